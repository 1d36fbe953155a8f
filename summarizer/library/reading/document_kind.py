"""What kind of document this is: a contract, a filing (or financial report), or something else.

Decided once per document from its page texts, by structure and wording, never by file name:

- a **contract** binds parties: "WHEREAS", "IN WITNESS WHEREOF", "this Agreement", "the
  Parties", "shall", "hereby", numbered sections ("Section 4.2", "ARTICLE VI");
- a **filing** reports on a company: the SEC's cover ("SECURITIES AND EXCHANGE COMMISSION",
  "Form 10-K"), "Item 7." headings, financial statements ("Consolidated Balance Sheets",
  "(in millions)"), fiscal periods ("three months ended", "fiscal 2022") and pages of numbers.

Each signal is counted per 1,000 words; a kind wins when its score passes ``MIN_SCORE`` and is
clearly ahead of the other one, otherwise the document is ``other`` and gets the generic path
(today's contract-shaped cutter and search, which is what every document had before kinds).
The kind chooses the passage cutter (``summarizer.library.cutting.passages``), the query vocabulary
and whether the clause ranker reorders results (``summarizer.search.retrieval``).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable

# The kinds are the values the store keeps (re-exported here, where they are decided).
from summarizer.library.storage.schema import CONTRACT as CONTRACT
from summarizer.library.storage.schema import FILING as FILING
from summarizer.library.storage.schema import KINDS as KINDS
from summarizer.library.storage.schema import OTHER as OTHER

# Pages read to decide: the front of a document says what it is, and a long filing's
# statements come after its first hundred pages; reading more changes nothing but time.
MAX_PAGES = 60
MIN_SCORE = 4.0  # signals per 1,000 words
LEAD = 2.0  # the winner's score must be this many times the other's

_CONTRACT_SIGNALS = tuple(
    re.compile(p)
    for p in (
        r"\bWHEREAS\b",
        r"(?i)\bin witness whereof\b",
        r"(?i)\bthis (?:agreement|amendment|contract|lease|license)\b",
        r"(?i)\bthe parties\b",
        r"(?i)\bparty hereto\b|\bparties hereto\b",
        r"(?i)\bhereby\b|\bhereunder\b|\bhereof\b|\bhereinafter\b",
        r"\bshall\b",
        r"(?m)^\s*(?:ARTICLE|Article|SECTION|Section)\s+[IVXLC\d]",
        r"(?i)\bterminat(?:e|ion) (?:of )?this\b",
        r"(?i)\bgoverning law\b|\bindemnif",
    )
)
_FILING_SIGNALS = tuple(
    re.compile(p)
    for p in (
        r"(?i)securities and exchange commission",
        r"(?i)\bform\s+(?:10-K|10-Q|8-K|20-F|6-K)\b",
        r"(?m)^\s*(?:ITEM|Item)\s+\d{1,2}[A-C]?\.",
        r"(?i)\bconsolidated (?:balance sheets?|statements? of)",
        r"(?i)\(\s*(?:dollars |amounts )?in (?:millions|thousands|billions)\b",
        r"(?i)\b(?:three|six|nine|twelve) months ended\b",
        r"(?i)\bfiscal (?:year|quarter|\d{4})\b",
        r"(?i)\bnet (?:income|earnings|sales|revenues?)\b",
        r"(?i)\bper (?:diluted )?share\b",
        r"(?i)\bcash flows?\b|\boperating (?:income|margin|activities)\b",
        r"(?i)\bgaap\b|\bebitda\b",
        r"(?i)\bshareholders'? equity\b|\bstockholders'? equity\b",
    )
)
_SEC = re.compile(r"(?i)securities\s+and\s+exchange\s+commission")
_SEC_ADDRESS = re.compile(r"(?i)washington,?\s+d\.?\s?c\.?\s+20549")
_FORM = re.compile(r"(?i)\bform\s+(?:10-K|10-Q|8-K|20-F|6-K|40-F|S-1|10-KT)\b")
COVER_PAGES = 2
_WORD = re.compile(r"\w+")
# A figure as statements print one: "4,466", "(92)", "$12.5", "12.5%".
FIGURE = re.compile(r"(?<![\w.])\(?\$?\d[\d,]*(?:\.\d+)?\)?%?(?![\w])")


def numbers_share(text: str) -> float:
    """The share of a text's tokens that are numbers ("4,466", "(92)", "12.5%")."""
    tokens = text.split()
    if not tokens:
        return 0.0
    return sum(bool(FIGURE.fullmatch(t)) for t in tokens) / len(tokens)


def kind_scores(pages: Iterable[str]) -> tuple[float, float]:
    """``(contract, filing)`` signals per 1,000 words of the first ``MAX_PAGES`` pages; a page that
    is mostly numbers (a statement, a table) counts as three filing signals."""
    words = contract = filing = 0
    for n, text in enumerate(pages):
        if n >= MAX_PAGES:
            break
        words += len(_WORD.findall(text))
        contract += sum(len(p.findall(text)) for p in _CONTRACT_SIGNALS)
        filing += sum(len(p.findall(text)) for p in _FILING_SIGNALS)
        filing += 3 * (numbers_share(text) >= 0.25)
    if not words:
        return 0.0, 0.0
    return 1000 * contract / words, 1000 * filing / words


def has_sec_cover(text: str) -> bool:
    """A page that is the cover of an SEC form: the Commission's name and address ("Washington,
    D.C. 20549", printed on every form's cover) and the form's name. An agreement that mentions a
    registration statement filed with the Commission names both, but not the address."""
    return bool(_SEC.search(text)) and bool(_FORM.search(text)) and bool(_SEC_ADDRESS.search(text))


def document_kind(pages: Iterable[str]) -> str:
    """``contract``, ``filing`` or ``other`` for a document given as its page texts in order.

    A document whose first pages hold an SEC form's cover is a filing whatever follows it: an
    8-K's exhibits are often agreements, but the document is the report that files them."""
    pages = list(itertools.islice(pages, MAX_PAGES))
    if any(has_sec_cover(text) for text in pages[:COVER_PAGES]):
        return FILING
    contract, filing = kind_scores(pages)
    if contract >= MIN_SCORE and contract >= LEAD * filing:
        return CONTRACT
    if filing >= MIN_SCORE and filing >= LEAD * contract:
        return FILING
    return OTHER

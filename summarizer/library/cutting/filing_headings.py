"""Where a filing's sections start, and their heading path: the cutter's rules for filings.

An SEC filing or financial report is organised by its form and its statements, not by numbered
clauses: ``PART II`` / ``Item 7. Management's Discussion and Analysis`` / ``Note 9 — Debt``, and
statement titles ("CONSOLIDATED BALANCE SHEETS", "Consolidated Statements of Cash Flows") with
their units ("(in millions, except per share data)"). Those lines start sections here; the
statement's units join its title, so every passage of a statement carries both in its heading
path ("PART II > Item 8. Financial Statements > CONSOLIDATED BALANCE SHEETS (Dollars in
millions)").

Lines in capitals inside a statement ("ASSETS", "LIABILITIES AND SHAREHOLDERS' EQUITY") are
sub-headings under the statement, never above it, and a line with figures in it ("TOTAL ASSETS
$ 23,717") is a table row, not a heading. Contract markers ("(a)", "5.") are not used: in a filing
they number lists and footnotes.
"""

from __future__ import annotations

import re

from summarizer.library.cutting.clauses import (
    LEVEL_ARTICLE,
    LEVEL_SECTION,
    ClauseStart,
    ends_sentence,
    is_caps,
    is_toc_line,
    is_toc_page,
    numbered_start,
    page_lines,
)
from summarizer.library.cutting.normalize import NormalizedText

LEVEL_ITEM = 1  # "Item 7."
LEVEL_STATEMENT = 2  # "Note 9 — Debt", a statement's title
LEVEL_SUBHEADING = 3  # a line in capitals, a short title-case line
MAX_HEADING_WORDS = 12
UNITS_WITHIN_LINES = 3  # a statement's units are printed within this many lines of its title

_PART = re.compile(r"PART\s+(?:[IV]{1,3}|\d)\b\.?", re.IGNORECASE)
_ITEM = re.compile(r"ITEM\s+(\d{1,2}(?:\.\d{2})?[A-C]?)(?:\s*[.:—–-]|\s)", re.IGNORECASE)
_NOTE = re.compile(r"NOTE\s+(\d{1,2}[A-Z]?)\b\s*[.:—–-]?\s*", re.IGNORECASE)
_STATEMENT = re.compile(
    r"(?:(?:condensed|unaudited|consolidated|combined|interim)\s+)*"
    r"(?:balance\s+sheets?|statements?\s+of\s+(?:financial\s+position|(?:comprehensive\s+)?(?:income|loss|earnings)|"
    r"operations|cash\s+flows?|(?:changes\s+in\s+)?(?:shareholders|stockholders|shareowners)['’]?\s+equity|"
    r"equity|comprehensive\s+(?:income|loss))|(?:income|cash\s+flow)\s+statements?)"
    r"(?:\s*\((?:unaudited|continued)\))?",
    re.IGNORECASE,
)
_UNITS = re.compile(r"\((?=[^()]*\b(?:millions|thousands|billions)\b)[^()]{3,80}\)", re.IGNORECASE)
_DIGIT = re.compile(r"\d")
_SMALL = frozenset("a an and as at by for from in into of on or the to with & vs".split())


def is_statement_heading(heading: str) -> bool:
    """True for a heading path under a financial statement's title ("… > CONSOLIDATED BALANCE SHEETS")."""
    return _STATEMENT.search(heading) is not None


def has_units(text: str) -> bool:
    """True for text that names its units as a table's title does: "(In millions, except per share data)"."""
    return _UNITS.search(text) is not None


def _words(line: str) -> list[str]:
    return line.split()


def _title_case(line: str) -> bool:
    """A short heading in title case without figures: "Liquidity and Capital Resources"."""
    words = _words(line)
    if not 1 < len(words) <= 8 or _DIGIT.search(line) or line[-1:] in ".,;:":
        return False
    return all(w[0].isupper() or w.lower() in _SMALL for w in words if w[0].isalpha()) and words[0][0].isupper()


def _rest(line: str, end: int) -> str:
    rest = line[end:].strip(" .:—–-")
    words = _words(rest)
    return " ".join(words[:MAX_HEADING_WORDS]).rstrip(" .:")


def _contract_clause(line: str, after_sentence: bool) -> ClauseStart | None:
    """A numbered clause with a title ("5.1 Termination.", "Section 4.2 Fees"), as an agreement
    filed with a report has them: under the sub-headings, one level deeper per number."""
    clause = numbered_start(line, after_sentence)
    if clause is None or not clause.number or not clause.title:
        return None
    return ClauseStart(
        0, LEVEL_SUBHEADING + 1 + clause.level - LEVEL_SECTION, clause.label, clause.title, clause.number
    )


def _start_of(line: str, statement_open: bool, after_sentence: bool = True) -> ClauseStart | None:
    match = _PART.match(line)
    if match and (len(_words(line)) <= MAX_HEADING_WORDS):
        label = " ".join(match.group(0).split()).rstrip(".").upper()
        return ClauseStart(0, LEVEL_ARTICLE, label, _rest(line, match.end()))
    match = _ITEM.match(line)
    if match:
        return ClauseStart(0, LEVEL_ITEM, f"Item {match.group(1).upper()}.", _rest(line, match.end()))
    match = _NOTE.match(line)
    if match and len(_words(line)) <= MAX_HEADING_WORDS and not _DIGIT.search(line[match.end() :]):
        return ClauseStart(0, LEVEL_STATEMENT, f"Note {match.group(1)}", _rest(line, match.end()))
    if not statement_open and (clause := _contract_clause(line, after_sentence)) is not None:
        return clause
    if _DIGIT.search(line.split("(")[0]) or len(_words(line)) > MAX_HEADING_WORDS:
        return None
    match = _STATEMENT.search(line)
    if match and len(_words(line)) <= 10:
        return ClauseStart(0, LEVEL_STATEMENT, "", " ".join(line.split()).rstrip(" .:"))
    if is_caps(line) and not line.rstrip().endswith(","):
        # Inside a statement a line in capitals is one of its parts ("ASSETS").
        return ClauseStart(0, LEVEL_SUBHEADING, "", " ".join(line.split()).rstrip(" .:"))
    if _title_case(line) and not statement_open:
        return ClauseStart(0, LEVEL_SUBHEADING, "", " ".join(line.split()))
    return None


def filing_starts(norm: NormalizedText, raw: str) -> list[ClauseStart]:
    """The section starts of one page of a filing, in order (none on a table-of-contents page)."""
    lines = [(start, line, raw_line) for start, line, raw_line in page_lines(norm, raw) if line]
    if is_toc_page(lines):
        return []
    found: list[ClauseStart] = []
    statement_at: int | None = None  # index in ``lines`` of a statement title awaiting its units
    in_statement = False  # below a statement's title on this page: its rows are not headings
    found_at = -UNITS_WITHIN_LINES - 1  # index in ``lines`` of the last start found
    for n, (start, line, raw_line) in enumerate(lines):
        if is_toc_line(line, raw_line):
            continue
        units = _UNITS.search(line)
        if units and found and not found[-1].label and n - found_at <= UNITS_WITHIN_LINES:
            last = found[-1]
            if last.level == LEVEL_SUBHEADING or (statement_at is not None and units.group(0) not in last.title):
                # A heading with its units under it is a table's title, a statement of its own
                # ("SUPPLEMENTAL DATA – NET REVENUES" / "(In thousands)").
                title = f"{last.title} {' '.join(units.group(0).split())}"
                found[-1] = ClauseStart(last.start, LEVEL_STATEMENT, last.label, title)
                statement_at, in_statement = None, True
                continue
        clause = _start_of(line, in_statement, ends_sentence(lines[n - 1][1]) if n else True)
        if clause is None:
            continue
        if found and found[-1].level == clause.level == LEVEL_SUBHEADING and found_at == n - 1:
            # A heading that runs over two lines starts once, with both lines in its title.
            last = found[-1]
            found[-1] = ClauseStart(last.start, last.level, last.label, f"{last.title} {clause.title}")
            found_at = n
            continue
        if clause.level == LEVEL_STATEMENT:
            statement_at, in_statement = (None, False) if clause.label else (n, True)
        elif clause.level < LEVEL_STATEMENT:
            statement_at, in_statement = None, False
        found.append(ClauseStart(start, clause.level, clause.label, clause.title))
        found_at = n
    return found

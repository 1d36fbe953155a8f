"""Where a passage of a Word document is, said so that a lawyer can find it in Word: the clause
number and heading Word shows, the paragraph range, and the page Word last laid it out on when the
file records one — "§ 9.1(a) Liability Caps, ¶ 95–97, p. 10".

The clause is the one the passage's first paragraph sits in: the nearest numbered paragraph at or
before it, with the numbers of the levels above it where its own number is only a sub-clause
("(a)" under "9.1" is "9.1(a)"). Word has no paragraph numbers of its own; ``¶`` counts the body's
paragraphs and table rows that have text, from 1, as ``docx_extract`` reads them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from summarizer.library.reading.docx_extract import DocxParagraph
from summarizer.page_labels import TEXT, page_label, paragraph_label

_BARE_SUB_CLAUSE = re.compile(r"[a-z]{1,4}[.)]?|[A-Z][.)]")
_RUN_IN_HEADING = re.compile(r"^(.{2,80}?)[.:](?:\s|$)")
_MAX_HEADING_WORDS = 9
_SMALL_WORDS = {"a", "an", "and", "as", "at", "by", "for", "in", "of", "on", "or", "the", "to", "with", "&"}


@dataclass(frozen=True, slots=True)
class Locator:
    clause: str  # "9.1(a)", "ARTICLE 7", "" when the passage sits before any numbered clause
    heading: str  # "Liability Caps", "" when none was found
    first_paragraph: int
    last_paragraph: int
    first_page: int | None
    last_page: int | None

    @property
    def short(self) -> str:
        """The clause and paragraphs alone, for a link in running text: "§ 7.2(a), ¶ 51"."""
        clause = f"§ {self.clause}" if self.clause[:1].isdigit() else self.clause
        paragraphs = paragraph_label(self.first_paragraph, self.last_paragraph, TEXT)
        return f"{clause}, {paragraphs}" if clause else paragraphs

    def __str__(self) -> str:
        parts: list[str] = []
        clause = f"§ {self.clause}" if self.clause[:1].isdigit() else self.clause
        label = " ".join(p for p in (clause, self.heading) if p)
        if label:
            parts.append(label)
        parts.append(paragraph_label(self.first_paragraph, self.last_paragraph, TEXT))
        if self.first_page is not None:
            parts.append(page_label(self.first_page, self.last_page, TEXT))
        return ", ".join(parts)


def heading_of(paragraph: DocxParagraph) -> str:
    """A clause's title: the run-in heading that opens its text ("Access and Use. During the
    Subscription Period …" → "Access and Use"), or a short heading paragraph ("Definitions")."""
    text = paragraph.text.strip()
    if not text:
        return ""
    match = _RUN_IN_HEADING.match(text)
    if match and text[match.end() :].strip() and _title_like(match.group(1)):
        return match.group(1).strip()
    short = text.rstrip(".:").strip()
    if len(short.split()) <= _MAX_HEADING_WORDS and (paragraph.heading_level is not None or _title_like(short)):
        return short
    return ""


def _title_like(words: str) -> bool:
    """Words set as a title: few, and most of those that are not small words capitalised."""
    tokens = [t for t in words.split() if any(ch.isalpha() for ch in t)]
    if not tokens or len(tokens) > _MAX_HEADING_WORDS:
        return False
    significant = [t.lstrip("“\"'(") for t in tokens if t.lower() not in _SMALL_WORDS]
    return bool(significant) and sum(t[:1].isupper() for t in significant) >= 0.75 * len(significant)


def clause_chain(paragraphs: Sequence[DocxParagraph], position: int) -> list[DocxParagraph]:
    """The numbered paragraphs the paragraph at ``position`` (0-based) sits under, outermost first."""
    chain: list[DocxParagraph] = []
    level: int | None = None
    for index in range(min(position, len(paragraphs) - 1), -1, -1):
        paragraph = paragraphs[index]
        if not paragraph.number or paragraph.list_level is None or paragraph.number == "•":
            continue
        if level is None or paragraph.list_level < level:
            chain.append(paragraph)
            level = paragraph.list_level
            if level == 0:
                break
    return chain[::-1]


def clause_reference(chain: Sequence[DocxParagraph]) -> str:
    """The number a reader cites: the innermost number, prefixed by the outer ones while it is a
    sub-clause ("(a)" → "9.1(a)"; "9.1" stays "9.1", not "9. 9.1")."""
    if not chain:
        return ""
    reference = _as_part(chain[-1].number or "")
    for outer in reversed(chain[:-1]):
        if not reference.startswith("("):
            break
        reference = _as_part(outer.number or "") + reference
    return reference


def _as_part(number: str) -> str:
    """A number as part of a reference: "7.1." → "7.1", a bare "a." or "a)" → "(a)"."""
    if _BARE_SUB_CLAUSE.fullmatch(number):
        return f"({number.rstrip('.)')})"
    return number.rstrip(".")


def locate(paragraphs: Sequence[DocxParagraph], first: int, last: int) -> Locator:
    """The locator of paragraphs ``first``..``last`` (1-based ``DocxParagraph.index``) of a document
    whose paragraphs are ``paragraphs`` in order."""
    by_index = {p.index: position for position, p in enumerate(paragraphs)}
    position = by_index.get(first)
    if position is None:  # not a paragraph of the document (a wrong citation): no clause to name
        return Locator("", "", first, last, None, None)
    chain = clause_chain(paragraphs, position)
    heading = ""
    for paragraph in reversed(chain):
        heading = heading_of(paragraph)
        if heading:
            break
    if not chain:
        for index in range(position, -1, -1):
            if paragraphs[index].heading_level is not None:
                heading = heading_of(paragraphs[index])
                break
    first_page = paragraphs[position].page
    end = by_index.get(last)
    last_page = paragraphs[end].page if end is not None else first_page
    return Locator(clause_reference(chain), heading, first, last, first_page, last_page)

"""A document's clauses as units: each clause's number, heading, heading path, span and text.

The same clause starts that cut passages (``summarizer.library.cutting.clauses``) cut a document
into clauses here, one unit per start, for PDF pages and Word paragraphs alike (a Word
document's "pages" are its paragraphs). Text before the first clause is a preamble unit.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from summarizer.library.cutting.clauses import LEVEL_ARTICLE, PREAMBLE, ClauseStart, HeadingTracker, clause_starts
from summarizer.library.cutting.normalize import normalize
from summarizer.library.reading.page_furniture import without_furniture

_SPACES = re.compile(r"\s+")
_ITEM_LABEL = re.compile(r"\([a-z0-9]{1,5}\)")
# The number a heading starts with: "5.2 Fees", "Section 5.2", "§ 5".
_HEADING_NUMBER = re.compile(r"(?:(?:SECTION|Section|§)\s*)?(\d{1,3}[A-Z]?(?:\.\d{1,3})*)(?=[.):]?(?:\s|$))")
PATH_SEPARATOR = " › "


@dataclass(frozen=True, slots=True)
class ClauseUnit:
    """One clause of a document: from its start to the next clause's start.

    ``page_start``/``start`` and ``page_end``/``end`` are normalized offsets on those pages (the
    end is exclusive); ``text`` is the clause's text with runs of whitespace made one space.
    ``joined_markers`` are the ``(start, end)`` offsets in ``text`` of the markers of clauses
    joined into this one (``summarizer.compare.segmentation``: a start one version's line breaks
    made and the other's did not); empty for a clause as cut.
    """

    index: int
    label: str  # the marker as written: "6.3", "ARTICLE VI", "(a)"; empty for a heading or the preamble
    number: tuple[str, ...]
    title: str
    path: tuple[str, ...]  # the headings in effect, the clause's own last
    page_start: int
    start: int
    page_end: int
    end: int
    text: str
    joined_markers: tuple[tuple[int, int], ...] = ()

    @property
    def heading(self) -> str:
        return " ".join(part for part in (self.label, self.title) if part)

    @property
    def full_label(self) -> str:
        """The marker with the numbers of the clauses it sits in: "5.2(a)(i)" for item (i) of
        (a) of 5.2, as a lawyer cites it; the marker as written for any other clause."""
        if not _ITEM_LABEL.fullmatch(self.label):
            return self.label
        above = self.path[:-1] if self.path and self.path[-1].startswith(self.label) else self.path
        parts = [self.label]
        for heading in reversed(above):
            marker = heading.split(" ", 1)[0]
            if _ITEM_LABEL.fullmatch(marker):
                parts.insert(0, marker)
                continue
            number = _HEADING_NUMBER.match(heading)
            if number is not None:
                parts.insert(0, number.group(1))
            break
        return "".join(parts) if len(parts) > 1 and not _ITEM_LABEL.fullmatch(parts[0]) else self.label

    @property
    def display_label(self) -> str:
        """How a person names the clause: "6.3 Termination", "5.2(a)", or the heading path's last part."""
        if self.label:
            return " ".join(part for part in (self.full_label, self.title) if part)
        return self.heading or (self.path[-1] if self.path else PREAMBLE)

    @property
    def body(self) -> str:
        """The text without its own number, so a renumbered clause keeps its body."""
        if self.label and self.text.startswith(self.label):
            return self.text[len(self.label) :].lstrip(" .):")
        return self.text

    @property
    def content(self) -> str:
        """The body without the clause's own heading: what a split or merge carries over."""
        body = self.body
        if self.title and body.startswith(self.title):
            return body[len(self.title) :].lstrip(" .:")
        return body

    def to_json(self) -> dict[str, object]:
        return {
            "label": self.display_label,
            "number": ".".join(self.number),
            "path": list(self.path),
            "page_start": self.page_start,
            "start": self.start,
            "page_end": self.page_end,
            "end": self.end,
        }


def collapse_spaces(text: str) -> str:
    return _SPACES.sub(" ", text).strip()


@dataclass(slots=True)
class _Open:
    clause: ClauseStart | None
    path: tuple[str, ...]
    page: int
    start: int
    pieces: list[str]
    page_end: int
    end: int


def _title_of_bare_article(item: _Open, start: ClauseStart, page: int) -> bool:
    """True when ``start`` is the title line of an article marker standing alone on the page
    before (a Word paragraph)."""
    clause = item.clause
    return (
        clause is not None
        and clause.level == LEVEL_ARTICLE
        and not clause.title
        and page != item.page_end
        and start.start == 0
        and not start.label
        and collapse_spaces(" ".join(item.pieces)) == clause.label
    )


def document_clauses(pages: Iterable[tuple[int, str]]) -> list[ClauseUnit]:
    """The clauses of a document given as ``(page_number, raw_text)`` in page order."""
    units: list[ClauseUnit] = []
    headings = HeadingTracker()
    current: _Open | None = None

    def close(item: _Open) -> None:
        text = collapse_spaces(" ".join(item.pieces))
        if not text:
            return
        clause = item.clause
        units.append(
            ClauseUnit(
                index=len(units),
                label=clause.label if clause else "",
                number=clause.number if clause else (),
                title=clause.title if clause else "",
                path=item.path,
                page_start=item.page,
                start=item.start,
                page_end=item.page_end,
                end=item.end,
                text=text,
            )
        )

    for page, raw in pages:
        norm = normalize(raw)
        if not norm.text:
            continue
        text = norm.text
        position = 0
        for start in clause_starts(norm, raw):
            if current is not None and _title_of_bare_article(current, start, page):
                # "ARTICLE VI" and "TERM AND TERMINATION" in two Word paragraphs: one heading, as
                # on a PDF page (summarizer.library.cutting.clauses).
                assert current.clause is not None
                titled = ClauseStart(current.clause.start, LEVEL_ARTICLE, current.clause.label, start.title)
                current.clause, current.path = titled, headings.enter(titled, current.page)
                continue  # the title's text joins the article's with the text that follows
            if current is None:
                current = _Open(None, headings.path(page) or (PREAMBLE,), page, 0, [], page, 0)
            current.pieces.append(text[position : start.start])
            current.page_end, current.end = page, start.start
            close(current)
            path = headings.enter(start, page)
            current = _Open(start, path, page, start.start, [], page, start.start)
            position = start.start
        if current is None:
            current = _Open(None, headings.path(page) or (PREAMBLE,), page, 0, [], page, 0)
        current.pieces.append(text[position:])
        current.page_end, current.end = page, len(text)
    if current is not None:
        close(current)
    return units


def pdf_clauses(pages: Iterable[tuple[int, str]]) -> list[ClauseUnit]:
    """The clauses of a PDF's pages, its running headers, footers and page numbers blanked first
    (``page_furniture.without_furniture``, offsets kept): a footer that a reflow brought into
    another clause, or a header between two paragraphs of one, is no part of a clause's text, so
    two versions laid out differently compare clause by clause as the same text."""
    return document_clauses(without_furniture(list(pages)))

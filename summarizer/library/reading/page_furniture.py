"""Page furniture: the running headers, running footers and page numbers at a page's edges.

A passage that crosses a page break covers the bottom of one page and the top of the next in
the raw page texts, so its spans also hold the footer and page number of the first page and the
header of the second. ``body_span`` narrows a span to the page's body, so that a cited passage
is highlighted without them.

A furniture line is one of the few lines at the top or the bottom of a page (blank lines not
counted) that is a bare page number ("12", "- 12 -", "Page 12 of 40", "xii"), or that holds a
letter and repeats at the same edge of a nearby page once its digits are ignored ("Acme Corp. —
Confidential — 12").
Furniture runs from the edge inward: the first line that is neither ends it, so a body line is
never taken for furniture because a line beyond it was.

The stored spans are left as they are (changing them would mean re-cutting every document); this
is applied where a span is shown.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Iterator

EDGE_LINES = 3
"""How many non-blank lines at each edge of a page may be furniture."""
NEIGHBOUR_PAGES = 2
"""A running line is looked for on the pages this many before and after the page."""

_PAGE_NUMBER = re.compile(
    r"(?:(?i:page|p\.|pg\.?)\s*)?[-–—]?\s*(?:\d{1,4}|[ivxlcdm]{1,7})\s*[-–—]?"
    r"(?:\s*(?:(?i:of)|/)\s*\d{1,4})?"
)
_DIGITS = re.compile(r"\d+")
_LETTER = re.compile(r"[^\W\d_]")


def is_page_number(line: str) -> bool:
    """True for a line that is only a page number: "12", "- 12 -", "Page 12 of 40", "iv"."""
    return _PAGE_NUMBER.fullmatch(" ".join(line.split())) is not None


def _shape(line: str) -> str:
    """A line with its numbers blanked out, so "Page 3" and "Page 4" compare equal."""
    return _DIGITS.sub("#", " ".join(line.split())).casefold()


def _numbers(line: str) -> list[int]:
    return [int(digits) for digits in _DIGITS.findall(line)]


def _lines(raw: str) -> Iterator[tuple[int, int]]:
    """``(start, end)`` of each non-blank line of ``raw``, stripped of its blanks."""
    pos = 0
    for line in raw.split("\n"):
        stripped = line.strip()
        if stripped:
            start = pos + line.index(stripped[0])
            yield start, start + len(stripped)
        pos += len(line) + 1


def _edges(raw: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """The top and bottom edge lines of a page, each listed from the edge inward."""
    lines = list(_lines(raw))
    return lines[:EDGE_LINES], lines[::-1][:EDGE_LINES]


def body_range(raw: str, neighbours: Iterable[str]) -> tuple[int, int]:
    """The range of ``raw`` between its furniture at the top and at the bottom.

    ``neighbours`` are the raw texts of nearby pages (``NEIGHBOUR_PAGES`` each side), where a
    running header or footer repeats. Without furniture this is the whole page."""
    top, bottom = _edges(raw)
    seen_top: dict[str, list[list[int]]] = defaultdict(list)  # shape -> the numbers of each line of that shape
    seen_bottom: dict[str, list[list[int]]] = defaultdict(list)
    for other in neighbours:
        other_top, other_bottom = _edges(other)
        for seen, spans in ((seen_top, other_top), (seen_bottom, other_bottom)):
            for s, e in spans:
                seen[_shape(other[s:e])].append(_numbers(other[s:e]))

    def furniture(span: tuple[int, int], seen: dict[str, list[list[int]]]) -> bool:
        line = raw[span[0] : span[1]]
        # A running line has words: a row of redaction marks ("[***] [***]") repeats at the
        # edges of a redacted schedule's pages and is its text. Its numbers are the same on
        # each page or go up with the pages ("Page 4 of 40"); a table's row "146 Mb 146 …" at
        # the edge of a page near one ending "170 Mb 170 …" is text.
        numbers = _numbers(line)
        running = any(
            all(abs(a - b) <= NEIGHBOUR_PAGES for a, b in zip(numbers, other, strict=True))
            for other in seen.get(_shape(line), [])
        )
        return is_page_number(line) or (running and _LETTER.search(line) is not None)

    start, end = 0, len(raw)
    for span in top:
        if not furniture(span, seen_top):
            break
        start = span[1]
    for span in bottom:
        if not furniture(span, seen_bottom) or span[0] < start:
            break
        end = span[0]
    return start, max(start, end)


def body_span(raw: str, start: int, end: int, neighbours: Iterable[str]) -> tuple[int, int] | None:
    """The part of ``raw[start:end]`` (a passage's span on that page) that is the page's body,
    without blanks at its ends; None when the span holds nothing but furniture."""
    body_start, body_end = body_range(raw, neighbours)
    start, end = max(start, body_start), min(end, body_end)
    while start < end and raw[start].isspace():
        start += 1
    while end > start and raw[end - 1].isspace():
        end -= 1
    return (start, end) if start < end else None


def without_furniture(pages: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """``(page, raw)`` with each page's furniture blanked out: its characters turned into spaces
    (line ends kept), so the text keeps its length and offsets into it are offsets into ``raw``.
    A passage cut from the result never starts or ends in a running header or footer, and its
    spans still point into the stored page text."""
    texts = [raw for _, raw in pages]
    blanked: list[tuple[int, str]] = []
    for n, (page, raw) in enumerate(pages):
        neighbours = texts[max(0, n - NEIGHBOUR_PAGES) : n] + texts[n + 1 : n + 1 + NEIGHBOUR_PAGES]
        start, end = body_range(raw, neighbours)
        if start == 0 and end == len(raw):
            blanked.append((page, raw))
            continue
        blank = _BLANK.sub(" ", raw[:start]), _BLANK.sub(" ", raw[end:])
        blanked.append((page, blank[0] + raw[start:end] + blank[1]))
    return blanked


_BLANK = re.compile(r"[^\n]")

"""Finding a passage from the library in the text QtPdf extracts from the same page.

The library stores page spans into pypdf's text; QtPdf (PDFium) extracts the same page
differently: ``\\r\\n`` line ends, no-break spaces, ligatures split or kept, hyphens at line
ends kept or dropped. Both texts are folded to their letters and digits (NFKC, casefolded)
with a map back to the original character indices, and the passage is searched in that
folded form. When the exact folded passage is not there (PDFium dropped or added a word),
its head and tail are searched instead, and failing that the longest common block.

No Qt here: the viewer turns the returned character range into rectangles.
"""

from __future__ import annotations

import difflib
import unicodedata
from dataclasses import dataclass

ANCHOR = 48  # folded characters used as head/tail anchors for a fuzzy match
MIN_BLOCK = 24  # the shortest common block accepted as a match


@dataclass(frozen=True, slots=True)
class Folded:
    """``text`` folded to letters and digits; ``index[i]`` is the source index of ``text[i]``."""

    text: str
    index: list[int]


def fold(source: str) -> Folded:
    chars: list[str] = []
    index: list[int] = []
    for position, char in enumerate(source):
        if char.isascii():
            if char.isalnum():
                chars.append(char.lower())
                index.append(position)
            continue
        for part in unicodedata.normalize("NFKC", char).casefold():
            if part.isalnum():
                chars.append(part)
                index.append(position)
    return Folded("".join(chars), index)


@dataclass(frozen=True, slots=True)
class Match:
    """Characters ``[start, end)`` of the searched text; ``exact`` is False for fuzzy matches."""

    start: int
    end: int
    exact: bool


def _span(hay: Folded, start: int, end: int, exact: bool) -> Match:
    return Match(hay.index[start], hay.index[end - 1] + 1, exact)


def locate(needle: str, haystack: str, hint: float | None = None) -> Match | None:
    """Where ``needle`` (pypdf text) is in ``haystack`` (QtPdf text), tolerant of layout.

    ``hint`` (0..1) is where the passage started in the pypdf page, used to choose
    between repeated occurrences.
    """
    n, h = fold(needle), fold(haystack)
    if not n.text or not h.text:
        return None
    found = _all(h.text, n.text)
    if found:
        best = _nearest(found, len(h.text), hint)
        return _span(h, best, best + len(n.text), True)
    if len(n.text) >= 2 * ANCHOR:
        heads = _all(h.text, n.text[:ANCHOR])
        tails = _all(h.text, n.text[-ANCHOR:])
        if heads and tails:
            start = _nearest(heads, len(h.text), hint)
            ends = [t + ANCHOR for t in tails if t + ANCHOR > start]
            if ends:
                end = min(ends, key=lambda e: abs((e - start) - len(n.text)))
                if end - start <= 2 * len(n.text):
                    return _span(h, start, end, False)
    matcher = difflib.SequenceMatcher(None, h.text, n.text, autojunk=False)
    block = matcher.find_longest_match(0, len(h.text), 0, len(n.text))
    if block.size >= min(MIN_BLOCK, len(n.text)):
        # Stretch the block to the passage's length on both sides.
        start = max(0, block.a - block.b)
        end = min(len(h.text), block.a + (len(n.text) - block.b))
        return _span(h, start, end, False)
    return None


def _all(text: str, part: str) -> list[int]:
    found: list[int] = []
    at = text.find(part)
    while at >= 0:
        found.append(at)
        at = text.find(part, at + 1)
    return found


def _nearest(positions: list[int], length: int, hint: float | None) -> int:
    if hint is None or len(positions) == 1:
        return positions[0]
    return min(positions, key=lambda p: abs(p / max(1, length) - hint))

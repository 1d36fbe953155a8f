"""Where a change is in each version's pages: the raw character spans of its changed words (or of
the whole clause, for a clause added, removed or moved), for a viewer to highlight.

A clause's words are found again on its pages (its span is in normalized page offsets, and its
text is those pages' normalized text with single spaces), so the word diff's runs map to page
offsets and, through ``normalize``'s map, to the raw page text the viewers show. A Word
document's pages are its paragraphs: the spans are offsets in a paragraph's stored text.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from summarizer.compare.alignment import words
from summarizer.compare.differences import CHANGED, RENUMBERED, Change
from summarizer.library.cutting.clause_units import ClauseUnit
from summarizer.library.cutting.normalize import normalize

_WORD = re.compile(r"\w+|[^\w\s]")  # as summarizer.compare.alignment tokenizes

PageText = Callable[[int], str | None]
"""page number → the page's raw text as stored (None when the page is not there)."""


@dataclass(frozen=True, slots=True)
class PageSpan:
    """Raw character offsets ``[start, end)`` on ``page`` (1-based; a Word paragraph's index)."""

    page: int
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class ChangeSpans:
    """What to highlight of one change in each version (empty where the clause is not in it)."""

    old: tuple[PageSpan, ...]
    new: tuple[PageSpan, ...]


def _clause_tokens(clause: ClauseUnit, page_text: PageText) -> list[PageSpan]:
    """The clause's word tokens where they stand on its pages, as raw spans, in order."""
    tokens: list[PageSpan] = []
    for page in range(clause.page_start, clause.page_end + 1):
        raw = page_text(page)
        if raw is None:
            continue
        norm = normalize(raw)
        start = clause.start if page == clause.page_start else 0
        end = clause.end if page == clause.page_end else len(norm.text)
        for match in _WORD.finditer(norm.text, start, max(start, end)):
            raw_start, raw_end = norm.raw_span(match.start(), match.end())
            tokens.append(PageSpan(page, raw_start, raw_end))
    return tokens


def _runs(tokens: list[PageSpan], marked: list[tuple[int, int]]) -> tuple[PageSpan, ...]:
    """Token ranges ``[i, j)`` joined into one span per run and page."""
    spans: list[PageSpan] = []
    for first, last in marked:
        run: PageSpan | None = None
        for token in tokens[first:last]:
            if run is not None and run.page == token.page:
                run = PageSpan(run.page, run.start, token.end)
            else:
                if run is not None:
                    spans.append(run)
                run = token
        if run is not None:
            spans.append(run)
    return tuple(spans)


def _body_offset(clause: ClauseUnit) -> int:
    """How many tokens the clause's own number takes before its body."""
    return max(0, len(words(clause.text)) - len(words(clause.body)))


def changed_token_ranges(change: Change) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """The word diff's changed runs as token ranges of the old and the new clause's body."""
    old_ranges: list[tuple[int, int]] = []
    new_ranges: list[tuple[int, int]] = []
    old_at = new_at = 0
    for edit in change.edits:
        old_count, new_count = len(words(edit.old)), len(words(edit.new))
        if edit.op != "equal":
            if old_count:
                old_ranges.append((old_at, old_at + old_count))
            if new_count:
                new_ranges.append((new_at, new_at + new_count))
        old_at += old_count
        new_at += new_count
    return old_ranges, new_ranges


def _side(
    clause: ClauseUnit | None, ranges: list[tuple[int, int]] | None, page_text: PageText, kind: str
) -> tuple[PageSpan, ...]:
    if clause is None:
        return ()
    tokens = _clause_tokens(clause, page_text)
    if not tokens:
        return ()
    offset = _body_offset(clause)
    if kind == RENUMBERED:  # the number is what changed
        return _runs(tokens, [(0, offset)]) if offset else ()
    if ranges is None:  # the whole clause: added, removed, moved, split, merged
        return _runs(tokens, [(0, len(tokens))])
    return _runs(tokens, [(offset + a, offset + b) for a, b in ranges])


def change_spans(change: Change, old_page_text: PageText, new_page_text: PageText) -> ChangeSpans:
    """The spans to highlight for ``change`` in each version."""
    if change.kind == CHANGED:
        old_ranges, new_ranges = changed_token_ranges(change)
        old = _side(change.old, old_ranges, old_page_text, CHANGED)
        new = _side(change.new, new_ranges, new_page_text, CHANGED)
        # Words only removed leave nothing to mark in the new version (and the reverse): the
        # clause is still shown there, at its start.
        return ChangeSpans(old, new)
    return ChangeSpans(
        _side(change.old, None, old_page_text, change.kind), _side(change.new, None, new_page_text, change.kind)
    )

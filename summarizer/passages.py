"""Cutting a document into passages for search, each keeping its page spans.

A passage is a run of consecutive units (sentences, or pieces of an over-long sentence),
cut at paragraph or sentence boundaries where possible and sized in the embedding model's
tokens (``ChunkTokenizer``) so the embedder never truncates it.

Each passage stores ``spans = [(page, start, end), ...]`` into the *raw* page texts, one per
page it touches, and ``text == PAGE_JOIN.join(raw[page][start:end] for each span)``.
``search_text`` is the normalized view of the same range, used for FTS and embeddings.

Pages are consumed one at a time and only the pages of the passage being built are kept,
so memory stays bounded on very long documents.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Protocol

from summarizer.normalize import PARAGRAPH_BREAK, NormalizedText, normalize

PAGE_JOIN = "\n"
DEFAULT_MAX_TOKENS = 200
DEFAULT_OVERLAP_TOKENS = 32
# Close a passage at a paragraph end once it holds at least this share of max_tokens.
PARAGRAPH_FLUSH_SHARE = 0.6

_SENTENCE_END = re.compile(r"(?<=[.!?;:])\s+(?=[\"'“‘(\[A-Z0-9§])")


class Tokenizer(Protocol):
    """The part of ``ChunkTokenizer`` this module needs."""

    def count_many(self, texts: list[str]) -> list[int]: ...

    def offsets(self, text: str) -> list[tuple[int, int]]: ...


@dataclass(frozen=True, slots=True)
class Span:
    page: int
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Passage:
    seq: int
    text: str
    search_text: str
    spans: tuple[Span, ...]
    n_tokens: int

    @property
    def page_start(self) -> int:
        return self.spans[0].page

    @property
    def page_end(self) -> int:
        return self.spans[-1].page


@dataclass(frozen=True, slots=True)
class _Unit:
    page: int
    start: int  # normalized offsets in that page
    end: int
    tokens: int
    new_paragraph: bool


def _sentence_ranges(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    pos = start
    for match in _SENTENCE_END.finditer(text, start, end):
        if match.start() > pos:
            yield pos, match.start()
        pos = match.end()
    if end > pos:
        yield pos, end


def _paragraph_ranges(text: str) -> Iterator[tuple[int, int]]:
    pos = 0
    while pos < len(text):
        brk = text.find(PARAGRAPH_BREAK, pos)
        end = len(text) if brk < 0 else brk
        if end > pos:
            yield pos, end
        pos = end + len(PARAGRAPH_BREAK) if brk >= 0 else len(text)


def _page_units(page: int, norm: NormalizedText, tokenizer: Tokenizer, max_tokens: int) -> list[_Unit]:
    text = norm.text
    ranges: list[tuple[int, int, bool]] = []
    for p_start, p_end in _paragraph_ranges(text):
        first = True
        for s_start, s_end in _sentence_ranges(text, p_start, p_end):
            ranges.append((s_start, s_end, first))
            first = False
    counts = tokenizer.count_many([text[s:e] for s, e, _ in ranges])
    units: list[_Unit] = []
    for (s, e, new_par), count in zip(ranges, counts, strict=True):
        if count <= max_tokens:
            units.append(_Unit(page, s, e, count, new_par))
            continue
        # An over-long sentence (a table, a run-on clause): cut it at token boundaries,
        # backing up to a space where there is one.
        offsets = tokenizer.offsets(text[s:e])
        i = 0
        while i < len(offsets):
            j = min(i + max_tokens, len(offsets))
            cut_end = s + offsets[j - 1][1]
            if j < len(offsets):
                space = text.rfind(" ", s + offsets[i][0], cut_end)
                if space > s + offsets[i][1]:
                    cut_end = space
                    while j > i + 1 and s + offsets[j - 1][0] >= cut_end:
                        j -= 1
            piece_start = s + offsets[i][0]
            units.append(_Unit(page, piece_start, cut_end, j - i, new_par and i == 0))
            i = j
    return units


class _Builder:
    def __init__(self, max_tokens: int, overlap_tokens: int) -> None:
        self.max_tokens = max_tokens
        self.overlap_tokens = overlap_tokens
        self.units: list[_Unit] = []
        self.tokens = 0
        self.seq = 0
        self.fresh = 0  # units added since the last passage (not counting the overlap)

    def make(self, raw_pages: dict[int, str], norm_pages: dict[int, NormalizedText]) -> Passage:
        by_page: dict[int, tuple[int, int]] = {}
        for unit in self.units:
            s, e = by_page.get(unit.page, (unit.start, unit.end))
            by_page[unit.page] = (min(s, unit.start), max(e, unit.end))
        spans: list[Span] = []
        raw_parts: list[str] = []
        norm_parts: list[str] = []
        for page, (s, e) in sorted(by_page.items()):
            norm = norm_pages[page]
            raw_s, raw_e = norm.raw_span(s, e)
            spans.append(Span(page, raw_s, raw_e))
            raw_parts.append(raw_pages[page][raw_s:raw_e])
            norm_parts.append(norm.text[s:e].replace(PARAGRAPH_BREAK, "\n"))
        passage = Passage(
            seq=self.seq,
            text=PAGE_JOIN.join(raw_parts),
            search_text=" ".join(norm_parts),
            spans=tuple(spans),
            n_tokens=self.tokens,
        )
        self.seq += 1
        return passage

    def keep_overlap(self) -> None:
        kept: list[_Unit] = []
        total = 0
        for unit in reversed(self.units[1:]):
            if total + unit.tokens > self.overlap_tokens:
                break
            kept.insert(0, unit)
            total += unit.tokens
        self.units, self.tokens = kept, total
        self.fresh = 0


def split_passages(
    pages: Iterable[tuple[int, str]],
    tokenizer: Tokenizer,
    *,
    max_tokens: int = DEFAULT_MAX_TOKENS,
    overlap_tokens: int = DEFAULT_OVERLAP_TOKENS,
) -> Iterator[Passage]:
    """Passages of a document given as ``(page_number, raw_text)`` in page order."""
    if overlap_tokens >= max_tokens // 2:
        raise ValueError("overlap must be less than half the passage size")
    builder = _Builder(max_tokens, overlap_tokens)
    raw_pages: dict[int, str] = {}
    norm_pages: dict[int, NormalizedText] = {}

    def flush(current_page: int) -> Passage:
        passage = builder.make(raw_pages, norm_pages)
        builder.keep_overlap()
        live = {u.page for u in builder.units} | {current_page}
        for page in [p for p in raw_pages if p not in live]:
            del raw_pages[page], norm_pages[page]
        return passage

    for page, raw in pages:
        norm = normalize(raw)
        if not norm.text:
            continue
        raw_pages[page], norm_pages[page] = raw, norm
        for unit in _page_units(page, norm, tokenizer, max_tokens):
            over = builder.tokens + unit.tokens > max_tokens
            paragraph_end = unit.new_paragraph and builder.tokens >= PARAGRAPH_FLUSH_SHARE * max_tokens
            if builder.units and (over or paragraph_end):
                yield flush(page)
                if builder.tokens + unit.tokens > max_tokens:
                    builder.units, builder.tokens = [], 0
            builder.units.append(unit)
            builder.tokens += unit.tokens
            builder.fresh += 1
        if not builder.units:
            raw_pages.pop(page, None)
            norm_pages.pop(page, None)
    if builder.fresh:
        yield builder.make(raw_pages, norm_pages)

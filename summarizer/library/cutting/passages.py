"""Cutting a document into passages for search, each keeping its page spans.

A contract is a tree of numbered clauses ("ARTICLE VI", "6.3 Termination for Breach.", "(a)
…"): a passage holds whole clauses where it can. ``summarizer.library.cutting.clauses`` finds where clauses
start; passages are packed from units (sentences, or pieces of an over-long sentence) up to
``max_tokens`` of the embedding model's word pieces, and a passage that would overflow is cut
at the clause start ranked highest in the outline (an article before a section before a
sub-clause), so that a clause shorter than a passage is never split. Only a clause longer than
a passage is cut inside, at a sentence boundary, with a few units of overlap. Text without
markers is cut at paragraph and sentence boundaries.

Each passage stores ``spans = [(page, start, end), ...]`` into the *raw* page texts, one per
page it touches, and ``text == PAGE_JOIN.join(raw[page][start:end] for each span)``.
``search_text`` is the normalized view of the same range, used for FTS and embeddings.
``heading`` is the path of headings the passage's first clause sits under ("ARTICLE VI TERM AND
TERMINATION > 6.3 Termination for Breach"): searchable and shown, but never part of ``text``,
so the spans still map the text exactly.

A passage may be longer than the embedding model's window: ``summarizer.library.vectors.embedding_windows``
embeds it in several windows.

Pages are consumed one at a time and only the pages of the passage being built are kept,
so memory stays bounded on very long documents.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Protocol

from summarizer.library.cutting.clauses import ClauseStart, HeadingTracker, clause_starts
from summarizer.library.cutting.filing_headings import filing_starts
from summarizer.library.cutting.normalize import PARAGRAPH_BREAK, NormalizedText, normalize
from summarizer.library.reading.document_kind import FILING, OTHER

PAGE_JOIN = "\n"
HEADING_JOIN = " > "
# How passages are cut is versioned by ``summarizer.library.storage.store.PASSAGE_FORMAT``: bump it when
# the cut below changes, so that documents cut the old way are re-cut by ``summarizer.library.reindex``.
DEFAULT_MAX_TOKENS = 400
# Passages are also held to this many characters of raw text (PDF text can be full of spaces).
DEFAULT_MAX_CHARS = 2000
DEFAULT_OVERLAP_TOKENS = 32
# At a clause start, close the passage early once it is this full, so the next clause starts a
# passage of its own instead of being cut at the end of this one: the higher the clause in the
# outline, the earlier (keys: clause levels, see summarizer.library.cutting.clauses; PARAGRAPH_LEVEL: a
# paragraph start that is not a clause start).
PARAGRAPH_LEVEL = 9
FLUSH_SHARE = {0: 0.3, 1: 0.5, 2: 0.7}
FLUSH_SHARE_OTHER = 0.85
# When a passage overflows, it is cut back at an earlier clause start only if what stays in it
# is at least this full (otherwise the clause being read is long anyway: cut inside it).
MIN_CUT_SHARE = 0.25

_SENTENCE_END = re.compile(r"(?<=[.!?;:])\s+(?=[\"'“‘(\[A-Z0-9§])")


class Tokenizer(Protocol):
    """The part of ``ChunkTokenizer`` this module needs."""

    def count_many(self, texts: list[str]) -> list[int]: ...

    def offsets(self, text: str) -> list[tuple[int, int]]: ...


StartFinder = Callable[[NormalizedText, str], list[ClauseStart]]


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
    heading: str = ""

    @property
    def page_start(self) -> int:
        return self.spans[0].page

    @property
    def page_end(self) -> int:
        return self.spans[-1].page


def text_by_page(text: str, spans: Iterable[tuple[int, int, int]]) -> list[tuple[int, str]]:
    """A stored passage's ``text`` cut back into each page's part, ``(page, part)`` in order (a
    Word passage's pages are its paragraphs); ``[]`` when ``text`` is not what ``spans`` say it is."""
    parts: list[tuple[int, str]] = []
    at = 0
    for page, start, end in spans:
        if end < start:
            return []
        parts.append((page, text[at : at + end - start]))
        at += end - start + len(PAGE_JOIN)
    return parts if parts and at - len(PAGE_JOIN) == len(text) else []


@dataclass(frozen=True, slots=True)
class _Unit:
    page: int
    start: int  # normalized offsets in that page
    end: int
    tokens: int
    chars: int  # length of the raw text it covers
    new_paragraph: bool
    level: int | None  # the outline level of the clause this unit starts, if it starts one
    heading: tuple[str, ...]

    @property
    def boundary(self) -> int | None:
        """The level of the cut point before this unit (None: not a place to cut)."""
        if self.level is not None:
            return self.level
        return PARAGRAPH_LEVEL if self.new_paragraph else None


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


def _block_ranges(text: str, clauses: list[ClauseStart]) -> Iterator[tuple[int, int, bool, ClauseStart | None]]:
    """Paragraphs, further cut where a clause starts: ``(start, end, new_paragraph, clause)``."""
    by_start = {c.start: c for c in clauses}
    cuts = sorted(by_start)
    for p_start, p_end in _paragraph_ranges(text):
        inner = [c for c in cuts if p_start < c < p_end]
        edges = [p_start, *inner, p_end]
        for n, (s, e) in enumerate(itertools.pairwise(edges)):
            s, e = _strip(text, s, e)
            if e > s:
                yield s, e, n == 0, by_start.get(edges[n])


def _strip(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _page_units(
    page: int,
    norm: NormalizedText,
    raw: str,
    tokenizer: Tokenizer,
    max_tokens: int,
    max_chars: int,
    headings: HeadingTracker,
    starts: StartFinder,
) -> list[_Unit]:
    text = norm.text
    ranges: list[tuple[int, int, bool, ClauseStart | None]] = []
    for b_start, b_end, new_par, clause in _block_ranges(text, starts(norm, raw)):
        first = True
        for s_start, s_end in _sentence_ranges(text, b_start, b_end):
            ranges.append((s_start, s_end, new_par and first, clause if first else None))
            first = False
    counts = tokenizer.count_many([text[s:e] for s, e, _, _ in ranges])
    units: list[_Unit] = []
    raw_end = 0  # a unit's characters include the raw text (spaces) since the previous unit

    def add(s: int, e: int, tokens: int, new_par: bool, level: int | None, heading: tuple[str, ...]) -> None:
        nonlocal raw_end
        raw_s, raw_e = norm.raw_span(s, e)
        units.append(_Unit(page, s, e, tokens, raw_e - min(raw_s, raw_end), new_par, level, heading))
        raw_end = raw_e

    for (s, e, new_par, clause), count in zip(ranges, counts, strict=True):
        level = None
        heading = headings.path(page)
        if clause is not None:
            level, heading = clause.level, headings.enter(clause, page)
        raw_s, raw_e = norm.raw_span(s, e)
        if count <= max_tokens and raw_e - raw_s <= max_chars:
            add(s, e, count, new_par, level, heading)
            continue
        # An over-long sentence (a table, a run-on clause): cut it at token boundaries, within
        # both limits, backing up to a space where there is one.
        offsets = tokenizer.offsets(text[s:e])
        i = 0
        while i < len(offsets):
            piece_raw_start = norm.raw_span(s + offsets[i][0], s + offsets[i][1])[0]
            j = i + 1
            while (
                j < len(offsets)
                and j - i < max_tokens
                and norm.raw_span(s + offsets[j][0], s + offsets[j][1])[1] - piece_raw_start <= max_chars
            ):
                j += 1
            cut_end = s + offsets[j - 1][1]
            if j < len(offsets):
                space = text.rfind(" ", s + offsets[i][0], cut_end)
                if space > s + offsets[i][1]:
                    cut_end = space
                    while j > i + 1 and s + offsets[j - 1][0] >= cut_end:
                        j -= 1
            first = i == 0
            add(s + offsets[i][0], cut_end, j - i, new_par and first, level if first else None, heading)
            i = j
    return units


class _Builder:
    def __init__(self, max_tokens: int, max_chars: int, overlap_tokens: int) -> None:
        self.max_tokens = max_tokens
        self.max_chars = max_chars
        self.overlap_tokens = overlap_tokens
        self.units: list[_Unit] = []
        self.tokens = 0
        self.chars = 0
        self.seq = 0
        self.fresh = 0  # units added since the last passage (not counting the overlap)

    def add(self, unit: _Unit) -> None:
        self.units.append(unit)
        self.tokens += unit.tokens
        self.chars += unit.chars + 1
        self.fresh += 1

    def fits(self, unit: _Unit) -> bool:
        return self.tokens + unit.tokens <= self.max_tokens and self.chars + unit.chars <= self.max_chars

    def share(self) -> float:
        """How full the passage is, by the tighter of its two limits."""
        return max(self.tokens / self.max_tokens, self.chars / self.max_chars)

    def make(self, raw_pages: dict[int, str], norm_pages: dict[int, NormalizedText], count: int) -> Passage:
        """The passage of the first ``count`` units."""
        units = self.units[:count]
        by_page: dict[int, tuple[int, int]] = {}
        for unit in units:
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
            n_tokens=sum(u.tokens for u in units),
            heading=HEADING_JOIN.join(units[0].heading),
        )
        self.seq += 1
        return passage

    def cut_point(self, incoming: _Unit) -> int | None:
        """Where to end the passage so that the clause being read stays whole: the index of
        the unit to start the next passage with, or None to cut inside the clause."""
        best: tuple[int, int] | None = None  # (level, -index)
        head_tokens = head_chars = 0
        tail_tokens, tail_chars = self.tokens + incoming.tokens, self.chars + incoming.chars
        emitted = len(self.units) - self.fresh  # the overlap: already in the previous passage
        for index, unit in enumerate(self.units):
            full = max(head_tokens / self.max_tokens, head_chars / self.max_chars)
            if index > emitted and unit.boundary is not None and full >= MIN_CUT_SHARE:
                fits = tail_tokens <= self.max_tokens and tail_chars <= self.max_chars
                if fits and (best is None or (unit.boundary, -index) <= best):
                    best = (unit.boundary, -index)
            head_tokens += unit.tokens
            head_chars += unit.chars + 1
            tail_tokens -= unit.tokens
            tail_chars -= unit.chars + 1
        return -best[1] if best is not None else None

    def keep_from(self, index: int) -> None:
        self.units = self.units[index:]
        self.tokens = sum(u.tokens for u in self.units)
        self.chars = sum(u.chars + 1 for u in self.units)
        self.fresh = len(self.units)

    def keep_overlap(self) -> None:
        kept: list[_Unit] = []
        total = 0
        for unit in reversed(self.units[1:]):
            if total + unit.tokens > self.overlap_tokens:
                break
            kept.insert(0, unit)
            total += unit.tokens
        self.units, self.tokens = kept, total
        self.chars = sum(u.chars + 1 for u in kept)
        self.fresh = 0


def _flush_share(level: int) -> float:
    return FLUSH_SHARE.get(level, FLUSH_SHARE_OTHER)


def split_passages(
    pages: Iterable[tuple[int, str]],
    tokenizer: Tokenizer,
    *,
    max_tokens: int = DEFAULT_MAX_TOKENS,
    max_chars: int = DEFAULT_MAX_CHARS,
    overlap_tokens: int = DEFAULT_OVERLAP_TOKENS,
    kind: str = OTHER,
) -> Iterator[Passage]:
    """Passages of a document given as ``(page_number, raw_text)`` in page order. ``kind``
    (``summarizer.library.reading.document_kind``) chooses where sections start: a filing's Parts, Items,
    Notes and statements, or else a contract's clauses (the generic rule)."""
    if overlap_tokens >= max_tokens // 2:
        raise ValueError("overlap must be less than half the passage size")
    builder = _Builder(max_tokens, max_chars, overlap_tokens)
    headings = HeadingTracker(preamble=kind != FILING)
    starts: StartFinder = filing_starts if kind == FILING else clause_starts
    raw_pages: dict[int, str] = {}
    norm_pages: dict[int, NormalizedText] = {}

    def flush(current_page: int, count: int, *, overlap: bool) -> Passage:
        passage = builder.make(raw_pages, norm_pages, count)
        if overlap:
            builder.keep_overlap()
        else:
            builder.keep_from(count)
        live = {u.page for u in builder.units} | {current_page}
        for page in [p for p in raw_pages if p not in live]:
            del raw_pages[page], norm_pages[page]
        return passage

    for page, raw in pages:
        norm = normalize(raw)
        if not norm.text:
            continue
        raw_pages[page], norm_pages[page] = raw, norm
        for unit in _page_units(page, norm, raw, tokenizer, max_tokens, max_chars, headings, starts):
            if builder.units and unit.boundary is not None and builder.share() >= _flush_share(unit.boundary):
                yield flush(page, len(builder.units), overlap=False)
            elif builder.units and not builder.fits(unit):
                cut = builder.cut_point(unit)
                if cut is not None:
                    yield flush(page, cut, overlap=False)
                else:
                    yield flush(page, len(builder.units), overlap=unit.boundary is None)
                    if not builder.fits(unit):
                        builder.keep_from(len(builder.units))
            builder.add(unit)
        if not builder.units:
            raw_pages.pop(page, None)
            norm_pages.pop(page, None)
    if builder.fresh:
        yield builder.make(raw_pages, norm_pages, len(builder.units))

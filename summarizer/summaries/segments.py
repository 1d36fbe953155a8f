"""Segments: runs of consecutive passages of about ``segment_tokens`` LLM tokens each.

Counted with the LLM's own tokenizer (``count_tokens``), not the embedding model's, because
a segment must fit the LLM's context with its instructions and reply. The cut points are
cached in the library by document (its passages' fingerprint), segment size and tokenizer
identity (the model file's sha256), so a document is counted once per model and size.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass

from inference.cancel import NEVER_CANCELLED, CancelToken
from inference.progress import Progress, ProgressCallback, Stage, no_progress
from summarizer.errors import DocumentError
from summarizer.library.storage.document_text import (
    PassagePiece,
    llm_text,
    passage_pieces,
    passages_fingerprint,
    read_pages,
    read_passages,
)
from summarizer.library.storage.store import Library
from summarizer.summaries.store import StoredSegment, replace_segments, segment_cuts

CountTokens = Callable[[str], int]


@dataclass(frozen=True, slots=True)
class Segment:
    seq: int
    first_passage_seq: int
    last_passage_seq: int
    page_start: int
    page_end: int
    n_tokens: int
    text: str

    @property
    def text_sha256(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()


def group_pieces(pieces: list[PassagePiece], counts: list[int], segment_tokens: int) -> list[list[int]]:
    """Indices of consecutive pieces grouped greedily so each group's count stays within
    ``segment_tokens`` (a single piece larger than that forms its own group)."""
    groups: list[list[int]] = []
    current: list[int] = []
    used = 0
    for index, count in enumerate(counts):
        if current and used + count > segment_tokens:
            groups.append(current)
            current, used = [], 0
        current.append(index)
        used += count
    if current:
        groups.append(current)
    return groups


def _make_segment(seq: int, pieces: list[PassagePiece], n_tokens: int) -> Segment:
    return Segment(
        seq=seq,
        first_passage_seq=pieces[0].seq,
        last_passage_seq=pieces[-1].seq,
        page_start=min(p.page_start for p in pieces),
        page_end=max(p.page_end for p in pieces),
        n_tokens=n_tokens,
        text=llm_text("".join(p.text for p in pieces)),
    )


def _split_to_fit(
    pieces: list[PassagePiece], count_tokens: CountTokens, segment_tokens: int
) -> list[tuple[list[PassagePiece], int]]:
    """Check a group with one count of its joined text (token boundaries at the joins can
    differ from the per-piece counts) and move trailing pieces out while it is too long."""
    out: list[tuple[list[PassagePiece], int]] = []
    rest = pieces
    while rest:
        take = len(rest)
        n = count_tokens(llm_text("".join(p.text for p in rest[:take])))
        while n > segment_tokens and take > 1:
            take -= 1
            n = count_tokens(llm_text("".join(p.text for p in rest[:take])))
        out.append((rest[:take], n))
        rest = rest[take:]
    return out


def build_segments(
    library: Library,
    doc_id: str,
    *,
    count_tokens: CountTokens | None,
    tokenizer_id: str,
    segment_tokens: int,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken = NEVER_CANCELLED,
) -> list[Segment]:
    """The document's segments, from the cache or counted now with ``count_tokens``.

    With ``count_tokens=None`` only the cache is used: ``DocumentError`` if it has nothing.
    """
    if segment_tokens < 64:
        raise ValueError("segment_tokens must be at least 64")
    record = library.document(doc_id)
    passages = read_passages(library, doc_id)
    if not passages:
        raise DocumentError(
            f"{record.title} ({doc_id}) has no text to summarize"
            + (" (it needs OCR)." if record.status == "needs_ocr" else ". Add it again with `pagewise ingest`."),
            path=record.path,
        )
    pieces = passage_pieces(passages, read_pages(library, doc_id))
    source_key = passages_fingerprint(library, doc_id)
    by_seq = {piece.seq: index for index, piece in enumerate(pieces)}
    cached = segment_cuts(library, doc_id, source_key=source_key, tokenizer=tokenizer_id, segment_tokens=segment_tokens)
    if cached:
        return [
            _make_segment(seq, pieces[by_seq[first] : by_seq[last] + 1], n)
            for seq, (first, last, n) in enumerate(cached)
        ]
    if count_tokens is None:
        raise DocumentError(f"{record.title} ({doc_id}) has not been split into segments for this model yet.")
    counts: list[int] = []
    for index, piece in enumerate(pieces):
        cancel.raise_if_cancelled()
        counts.append(count_tokens(llm_text(piece.text)))
        if index % 16 == 0 or index == len(pieces) - 1:
            progress(Progress(Stage.COUNT_TOKENS, index + 1, len(pieces), record.title))
    segments: list[Segment] = []
    for group in group_pieces(pieces, counts, segment_tokens):
        cancel.raise_if_cancelled()
        for part, n in _split_to_fit([pieces[i] for i in group], count_tokens, segment_tokens):
            segments.append(_make_segment(len(segments), part, n))
    stored = [
        StoredSegment(s.seq, s.first_passage_seq, s.last_passage_seq, s.page_start, s.page_end, s.n_tokens)
        for s in segments
    ]
    replace_segments(
        library, doc_id, stored, source_key=source_key, tokenizer=tokenizer_id, segment_tokens=segment_tokens
    )
    return segments

"""Summaries kept in the library, keyed by everything their text depends on.

A stored summary's key hashes: its kind and level, the document, the exact input text (a
segment's text, or the summaries it combines), the model file's sha256, ``PROMPT_VERSION``
and the parameters that shape the reply. So:

* a second run finds every key and makes no model call;
* a run stopped mid-way (crash, cancel) finds the finished ones and does only the rest;
* another model or prompt version misses every key (its own summaries are kept apart);
* another segment size changes the segments' text, so only summaries of changed segments
  (and the reductions above them) are recomputed.

Each summary is written in its own small transaction as soon as it is produced. Where a document
was cut into segments (for a tokenizer and a segment size) is kept here too.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from summarizer.library.storage.store import Library, now_iso, transaction

SummaryKind = Literal["segment", "reduce", "super"]


@dataclass(frozen=True, slots=True)
class SummaryKey:
    kind: SummaryKind
    level: int
    doc_id: str
    input_sha256: str
    model_sha256: str
    prompt_version: int
    params: tuple[tuple[str, Any], ...]

    @property
    def digest(self) -> str:
        parts = [
            self.kind,
            self.level,
            self.doc_id,
            self.input_sha256,
            self.model_sha256,
            self.prompt_version,
            list(self.params),
        ]
        return hashlib.sha256(json.dumps(parts).encode()).hexdigest()

    @property
    def params_json(self) -> str:
        return json.dumps(dict(self.params), sort_keys=True)


@dataclass(frozen=True, slots=True)
class StoredSummary:
    text: str
    page_start: int
    page_end: int
    prompt_tokens: int
    completion_tokens: int
    detail: dict[str, Any] = field(default_factory=dict)


def text_sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def get_summary(library: Library, key: SummaryKey) -> StoredSummary | None:
    return get_summary_by_digest(library, key.digest)


def get_summary_by_digest(library: Library, digest: str) -> StoredSummary | None:
    row = library.db.execute(
        "SELECT text, page_start, page_end, prompt_tokens, completion_tokens, detail FROM summaries "
        "WHERE summary_key = ?",
        [digest],
    ).fetchone()
    return _stored(row) if row is not None else None


def _stored(row: tuple[Any, ...]) -> StoredSummary:
    return StoredSummary(str(row[0]), int(row[1]), int(row[2]), int(row[3]), int(row[4]), json.loads(row[5]))


def put_summary(library: Library, key: SummaryKey, summary: StoredSummary) -> None:
    # One statement: atomic on its own in autocommit mode.
    library.db.execute(
        "INSERT OR REPLACE INTO summaries (summary_key, doc_id, kind, level, page_start, page_end, model_sha256, "
        "prompt_version, params, text, prompt_tokens, completion_tokens, detail, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            key.digest,
            key.doc_id,
            key.kind,
            key.level,
            summary.page_start,
            summary.page_end,
            key.model_sha256,
            key.prompt_version,
            key.params_json,
            summary.text,
            summary.prompt_tokens,
            summary.completion_tokens,
            json.dumps(summary.detail),
            now_iso(),
        ],
    )


def forget_summaries(library: Library, doc_id: str, model_sha256: str | None = None) -> int:
    """Drop a document's stored summaries (of one model, or all). Returns how many."""
    if model_sha256 is None:
        cursor = library.db.execute("DELETE FROM summaries WHERE doc_id = ?", [doc_id])
    else:
        cursor = library.db.execute(
            "DELETE FROM summaries WHERE doc_id = ? AND model_sha256 = ?", [doc_id, model_sha256]
        )
    return int(cursor.rowcount)


def count_summaries(library: Library, doc_id: str, kind: SummaryKind | None = None) -> int:
    if kind is None:
        row = library.db.execute("SELECT COUNT(*) FROM summaries WHERE doc_id = ?", [doc_id]).fetchone()
    else:
        row = library.db.execute(
            "SELECT COUNT(*) FROM summaries WHERE doc_id = ? AND kind = ?", [doc_id, kind]
        ).fetchone()
    return int(row[0])


def summaries_possibly_by_model_of_size(library: Library, doc_ids: Sequence[str], size: int) -> bool:
    """Whether any stored summary of ``doc_ids`` may have been made by a model file of ``size``
    bytes: one whose model file was hashed at that size, or whose model file is not in the cache
    (a server's, or a cache row since replaced) and so cannot be ruled out."""
    if not doc_ids:
        return False
    marks = ", ".join("?" for _ in doc_ids)
    row = library.db.execute(
        f"SELECT 1 FROM summaries s LEFT JOIN model_files m ON m.sha256 = s.model_sha256 "
        f"WHERE s.doc_id IN ({marks}) AND (m.sha256 IS NULL OR m.size = ?) LIMIT 1",
        [*doc_ids, size],
    ).fetchone()
    return row is not None


# --- summaries read whole, for reusing them in another context ------------------------------


def documents_with_super_summaries(library: Library, *, model_sha256: str, prompt_version: int) -> list[str]:
    """The documents still in the library with a super-summary by this model and prompt version."""
    rows = library.db.execute(
        "SELECT DISTINCT doc_id FROM summaries WHERE model_sha256 = ? AND kind = 'super' AND prompt_version = ? "
        "AND doc_id IN (SELECT doc_id FROM documents) ORDER BY doc_id",
        [model_sha256, prompt_version],
    ).fetchall()
    return [str(r[0]) for r in rows]


def super_summary_params(
    library: Library, doc_id: str, *, model_sha256: str, prompt_version: int
) -> list[tuple[str, str]]:
    """(key digest, parameters as JSON) of each super-summary of the document by this model and
    prompt version."""
    rows = library.db.execute(
        "SELECT summary_key, params FROM summaries WHERE doc_id = ? AND model_sha256 = ? AND kind = 'super' "
        "AND prompt_version = ?",
        [doc_id, model_sha256, prompt_version],
    ).fetchall()
    return [(r[0], r[1]) for r in rows]


# --- segments: where a document was cut for summarizing ------------------------------------


@dataclass(frozen=True, slots=True)
class StoredSegment:
    """A segment's cut as stored: its passages (by their order in the document), pages and size."""

    seq: int
    first_passage_seq: int
    last_passage_seq: int
    page_start: int
    page_end: int
    n_tokens: int


def segment_cuts(
    library: Library, doc_id: str, *, source_key: str, tokenizer: str, segment_tokens: int
) -> list[tuple[int, int, int]]:
    """(first passage, last passage, tokens) of each stored segment of the document's text
    ``source_key`` cut for this tokenizer and size, in order; empty when it was never cut so."""
    rows = library.db.execute(
        "SELECT seq, first_passage_seq, last_passage_seq, n_tokens FROM segments "
        "WHERE doc_id = ? AND source_key = ? AND tokenizer = ? AND segment_tokens = ? ORDER BY seq",
        [doc_id, source_key, tokenizer, segment_tokens],
    ).fetchall()
    return [(int(r[1]), int(r[2]), int(r[3])) for r in rows]


def replace_segments(
    library: Library,
    doc_id: str,
    segments: Sequence[StoredSegment],
    *,
    source_key: str,
    tokenizer: str,
    segment_tokens: int,
) -> None:
    """Store the document's segments for this tokenizer and size, in place of any cut before
    (of an older text too), in one transaction."""
    with transaction(library.db):
        library.db.execute(
            "DELETE FROM segments WHERE doc_id = ? AND tokenizer = ? AND segment_tokens = ?",
            [doc_id, tokenizer, segment_tokens],
        )
        for s in segments:
            library.db.execute(
                "INSERT INTO segments (doc_id, source_key, tokenizer, segment_tokens, seq, first_passage_seq, "
                "last_passage_seq, page_start, page_end, n_tokens) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    doc_id,
                    source_key,
                    tokenizer,
                    segment_tokens,
                    s.seq,
                    s.first_passage_seq,
                    s.last_passage_seq,
                    s.page_start,
                    s.page_end,
                    s.n_tokens,
                ],
            )


def longest_segment_tokens(
    library: Library, doc_id: str, *, source_key: str, tokenizer: str, segment_tokens: int
) -> int:
    """The tokens of the document's longest stored segment of this cut; 0 when none is stored."""
    row = library.db.execute(
        "SELECT MAX(n_tokens) FROM segments WHERE doc_id = ? AND source_key = ? AND tokenizer = ? "
        "AND segment_tokens = ?",
        [doc_id, source_key, tokenizer, segment_tokens],
    ).fetchone()
    return int(row[0]) if row is not None and row[0] is not None else 0

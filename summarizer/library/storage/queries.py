"""Reads of the library's tables for the steps above the store: search, answers, review, the window.

Each function says what it fetches, so that the SQL on documents, passages, their full-text
index and embeddings is written here and in the library's own writers (ingest, reindex,
re-embed, OCR), not in every module that needs a passage's heading or a document's kind. The
cache of model files' sha256 is read and written here too. (Summaries and their segments,
review results and conversations have stores of their own.)
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from summarizer.library.storage.schema import OTHER
from summarizer.library.storage.store import Library

__all__ = [
    "StoredPassage",
    "bm25_passage_ids",
    "document_kinds_of_passages",
    "embedding_count",
    "headings_of_documents_of",
    "known_model_file_sha256",
    "passage_headings",
    "passage_headings_and_texts",
    "passage_id_range",
    "passage_ids_of",
    "passage_search_texts",
    "passage_spans",
    "passage_tokens_of",
    "passages_by_id",
    "passages_in_id_range",
    "passages_matching",
    "passages_matching_in_id_range",
    "ready_document_kinds",
    "remember_model_file_sha256",
    "write_state",
]


def _marks(values: Sequence[object]) -> str:
    return ",".join("?" * len(values))


def _doc_filter(doc_ids: Sequence[str] | None) -> tuple[str, list[Any]]:
    """``AND p.doc_id IN (...)`` and its arguments; nothing for every document."""
    if not doc_ids:
        return "", []
    return f" AND p.doc_id IN ({_marks(doc_ids)})", list(doc_ids)


# --- the database as a whole ---------------------------------------------------------------


def write_state(library: Library) -> tuple[int, int]:
    """A value that changes whenever this or another connection writes to the library (for
    caches of what the tables hold)."""
    conn = library.db.conn
    (version,) = conn.execute("PRAGMA data_version").fetchone()
    return int(version), conn.total_changes


def embedding_count(library: Library) -> int:
    """How many passage vectors the library holds."""
    return int(library.db.execute("SELECT COUNT(*) FROM embeddings").fetchone()[0])


# --- documents ------------------------------------------------------------------------------


def ready_document_kinds(library: Library, doc_ids: Sequence[str] | None) -> frozenset[str]:
    """The kinds of the ready documents among ``doc_ids`` (all, for None or none), ``other`` for
    one cut before kinds."""
    where, args = _doc_filter(doc_ids)
    rows = library.db.execute(
        f"SELECT DISTINCT COALESCE(p.kind, '{OTHER}') FROM documents p WHERE p.state = 'ready'{where}", args
    ).fetchall()
    return frozenset(str(r[0]) for r in rows)


def document_kinds_of_passages(library: Library, passage_ids: Sequence[int]) -> frozenset[str]:
    """The kinds of the documents the passages come from (``other`` for one cut before kinds)."""
    ids = list(passage_ids)
    rows = library.db.execute(
        f"SELECT DISTINCT COALESCE(d.kind, '{OTHER}') FROM passages p JOIN documents d ON d.doc_id = p.doc_id "
        f"WHERE p.passage_id IN ({_marks(ids)})",
        ids,
    ).fetchall()
    return frozenset(str(r[0]) for r in rows)


def passage_tokens_of(library: Library, doc_ids: Sequence[str]) -> int:
    """The word pieces of every passage of the documents, together."""
    row = library.db.execute(
        f"SELECT COALESCE(SUM(n_tokens), 0) FROM passages WHERE doc_id IN ({_marks(doc_ids)})", list(doc_ids)
    ).fetchone()
    return int(row[0])


def headings_of_documents_of(library: Library, passage_ids: Sequence[int]) -> list[str]:
    """Every distinct heading path of the documents that hold any of ``passage_ids``."""
    ids = list(passage_ids)
    rows = library.db.execute(
        "SELECT DISTINCT heading FROM passages WHERE doc_id IN "
        f"(SELECT DISTINCT doc_id FROM passages WHERE passage_id IN ({_marks(ids)}))",
        ids,
    ).fetchall()
    return [str(r[0]) for r in rows]


# --- passages -------------------------------------------------------------------------------


def passage_ids_of(library: Library, doc_ids: Sequence[str] | None) -> list[int]:
    """The ids of the documents' passages (every passage, for None or none)."""
    where, args = _doc_filter(doc_ids)
    return [int(r[0]) for r in library.db.execute(f"SELECT passage_id FROM passages p WHERE 1{where}", args).fetchall()]


def passage_id_range(library: Library, doc_ids: Sequence[str] | None) -> tuple[int, int] | None:
    """The lowest and highest passage id of the documents (one document's passages are written
    in one transaction, so their ids are one run); None when they have no passage."""
    where, args = _doc_filter(doc_ids)
    low, high = library.db.execute(
        f"SELECT MIN(p.passage_id), MAX(p.passage_id) FROM passages p WHERE 1{where}", args
    ).fetchone()
    return None if low is None else (int(low), int(high))


def passages_in_id_range(library: Library, low: int, high: int) -> int:
    """How many passages have an id from ``low`` to ``high``."""
    row = library.db.execute("SELECT COUNT(*) FROM passages WHERE passage_id BETWEEN ? AND ?", [low, high]).fetchone()
    return int(row[0])


def _passage_columns(library: Library, passage_ids: Sequence[int], columns: str) -> dict[int, tuple[str, ...]]:
    """``columns`` (fixed column names, comma-separated) of each passage, by id (ids not in the
    library left out)."""
    ids = list(passage_ids)
    rows = library.db.execute(
        f"SELECT passage_id, {columns} FROM passages WHERE passage_id IN ({_marks(ids)})", ids
    ).fetchall()
    return {int(r[0]): tuple(str(value) for value in r[1:]) for r in rows}


def passage_headings(library: Library, passage_ids: Sequence[int]) -> dict[int, str]:
    """Each passage's heading path, by id (ids not in the library left out)."""
    return {pid: heading for pid, (heading,) in _passage_columns(library, passage_ids, "heading").items()}


def passage_search_texts(library: Library, passage_ids: Sequence[int]) -> dict[int, str]:
    """Each passage's text as it is searched (``search_text``), by id."""
    return {pid: text for pid, (text,) in _passage_columns(library, passage_ids, "search_text").items()}


def passage_headings_and_texts(library: Library, passage_ids: Sequence[int]) -> dict[int, tuple[str, str]]:
    """Each passage's (heading path, text), by id: what the clause ranker reads."""
    return {
        pid: (heading, text) for pid, (heading, text) in _passage_columns(library, passage_ids, "heading, text").items()
    }


def passage_spans(library: Library, passage_id: int) -> tuple[tuple[int, int, int], ...]:
    """Where the passage's text lies on its pages: (page, start, end) character spans; none for
    a passage no longer in the library."""
    row = library.db.execute("SELECT spans FROM passages WHERE passage_id = ?", [passage_id]).fetchone()
    return tuple((int(p), int(s), int(e)) for p, s, e in json.loads(row[0])) if row else ()


@dataclass(frozen=True, slots=True)
class StoredPassage:
    """A passage as the library holds it, with where it lies."""

    passage_id: int
    doc_id: str
    text: str
    page_start: int
    page_end: int
    spans: list[tuple[int, int, int]]
    heading: str


def passages_by_id(library: Library, passage_ids: Sequence[int]) -> dict[int, StoredPassage]:
    """The passages, by id (ids not in the library left out)."""
    ids = list(passage_ids)
    rows = library.db.execute(
        "SELECT passage_id, doc_id, text, page_start, page_end, spans, heading FROM passages "
        f"WHERE passage_id IN ({_marks(ids)})",
        ids,
    ).fetchall()
    return {
        int(r[0]): StoredPassage(
            passage_id=int(r[0]),
            doc_id=r[1],
            text=r[2],
            page_start=r[3],
            page_end=r[4],
            spans=[tuple(s) for s in json.loads(r[5])],
            heading=r[6],
        )
        for r in rows
    }


def passage_ids_covering(library: Library, doc_id: str, first: int, last: int) -> list[int]:
    """The document's passages that hold every page ``first``..``last``, the fewest pages first."""
    rows = library.db.execute(
        "SELECT passage_id FROM passages WHERE doc_id = ? AND page_start <= ? AND page_end >= ? "
        "ORDER BY page_end - page_start, seq",
        [doc_id, first, last],
    ).fetchall()
    return [int(r[0]) for r in rows]


# --- the full-text index --------------------------------------------------------------------


def passages_matching_in_id_range(library: Library, match: str, low: int, high: int) -> int:
    """How many passages with an id from ``low`` to ``high`` the FTS5 query ``match`` finds."""
    row = library.db.execute(
        "SELECT COUNT(*) FROM passages_fts WHERE passages_fts MATCH ? AND rowid BETWEEN ? AND ?", [match, low, high]
    ).fetchone()
    return int(row[0])


def passages_matching(library: Library, match: str, passage_ids: Sequence[int]) -> list[int]:
    """The passages among ``passage_ids`` that the FTS5 query ``match`` finds."""
    ids = list(passage_ids)
    rows = library.db.execute(
        f"SELECT rowid FROM passages_fts WHERE passages_fts MATCH ? AND rowid IN ({_marks(ids)})", [match, *ids]
    ).fetchall()
    return [int(r[0]) for r in rows]


def bm25_passage_ids(
    library: Library,
    match: str,
    *,
    heading_weight: float,
    limit: int,
    doc_ids: Sequence[str] | None = None,
    id_range: tuple[int, int] | None = None,
) -> list[int]:
    """The ids of the first ``limit`` passages the FTS5 query ``match`` finds, best first by BM25
    over the text and the heading path (weighted ``heading_weight``; the text weighs 1). With
    ``doc_ids`` and ``id_range`` (theirs, ``passage_id_range``) only the documents' passages: the
    range lets FTS5 skip the other documents' postings instead of ranking them all."""
    rank = f"bm25(passages_fts, 1.0, {float(heading_weight)!r})"
    args: list[Any]
    if doc_ids and id_range is not None:
        where, args = _doc_filter(doc_ids)
        low, high = id_range
        sql = (
            "SELECT f.rowid FROM passages_fts f JOIN passages p ON p.passage_id = f.rowid "
            f"WHERE passages_fts MATCH ? AND f.rowid BETWEEN ? AND ?{where} ORDER BY {rank} LIMIT ?"
        )
        args = [low, high, *args]
    else:
        # Without a filter, ranking inside the FTS table and joining nothing is ~40% faster.
        args = []
        sql = f"SELECT rowid FROM passages_fts WHERE passages_fts MATCH ? ORDER BY {rank} LIMIT ?"
    rows = library.db.execute(sql, [match, *args, limit]).fetchall()
    return [int(r[0]) for r in rows]


# --- model files: the cache of their sha256 ---------------------------------------------------


def known_model_file_sha256(library: Library, path: Path, size: int, mtime_ns: int) -> str | None:
    """The sha256 recorded for the model file at ``path`` when it had this size and modification
    time; None when it was never hashed, or has changed since."""
    row = library.db.execute(
        "SELECT sha256 FROM model_files WHERE path = ? AND size = ? AND mtime_ns = ?", [str(path), size, mtime_ns]
    ).fetchone()
    return str(row[0]) if row is not None else None


def remember_model_file_sha256(library: Library, path: Path, size: int, mtime_ns: int, sha256: str) -> None:
    """Record the sha256 of the model file at ``path`` as it is now (size, modification time)."""
    library.db.execute(
        "INSERT INTO model_files (path, size, mtime_ns, sha256) VALUES (?, ?, ?, ?) "
        "ON CONFLICT(path) DO UPDATE SET size = excluded.size, mtime_ns = excluded.mtime_ns, sha256 = excluded.sha256",
        [str(path), size, mtime_ns, sha256],
    )

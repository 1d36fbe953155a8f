"""Hybrid retrieval: BM25 (FTS5) and cosine (FAISS), fused by reciprocal rank fusion."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from inference.errors import DocumentNotFound
from summarizer.fts_query import fts_query
from summarizer.library import Library

RRF_K = 60  # the constant of Cormack et al. (2009)
CANDIDATES = 50  # taken from each ranking before fusion


@dataclass(frozen=True, slots=True)
class SearchResult:
    passage_id: int
    doc_id: str
    text: str
    page_start: int
    page_end: int
    score: float
    spans: list[tuple[int, int, int]]
    bm25_rank: int | None = None
    vector_rank: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "passage_id": self.passage_id,
            "doc_id": self.doc_id,
            "text": self.text,
            "page_start": self.page_start,
            "page_end": self.page_end,
            "score": round(self.score, 6),
        }


def _doc_filter(doc_ids: Sequence[str] | None) -> tuple[str, list[Any]]:
    if not doc_ids:
        return "", []
    return f" AND p.doc_id IN ({','.join('?' * len(doc_ids))})", list(doc_ids)


def bm25_ranking(library: Library, query: str, doc_ids: Sequence[str] | None, limit: int) -> list[int]:
    match = fts_query(query)
    if match is None:
        return []
    if doc_ids:
        where, args = _doc_filter(doc_ids)
        sql = (
            "SELECT f.rowid FROM passages_fts f JOIN passages p ON p.passage_id = f.rowid "
            f"WHERE passages_fts MATCH ?{where} ORDER BY bm25(passages_fts) LIMIT ?"
        )
    else:
        # Without a filter, ranking inside the FTS table and joining nothing is ~40% faster.
        args = []
        sql = "SELECT rowid FROM passages_fts WHERE passages_fts MATCH ? ORDER BY bm25(passages_fts) LIMIT ?"
    rows = library.db.execute(sql, [match, *args, limit]).fetchall()
    return [int(r[0]) for r in rows]


def vector_ranking(library: Library, query: str, doc_ids: Sequence[str] | None, limit: int) -> list[int]:
    from summarizer.embedding_model import configured_model_name
    from summarizer.query_encoder import load_query_encoder
    from summarizer.vector_index import load_index

    index = load_index(library)
    if index.size == 0:
        return []
    encoder = load_query_encoder(index.model or configured_model_name())
    allowed: list[int] | None = None
    if doc_ids:
        where, args = _doc_filter(doc_ids)
        allowed = [
            int(r[0]) for r in library.db.execute(f"SELECT passage_id FROM passages p WHERE 1{where}", args).fetchall()
        ]
    vector = encoder.encode_query(query)
    return [pid for pid, _ in index.search(vector, limit, allowed)]


def search(
    library: Library,
    query: str,
    *,
    doc_ids: Sequence[str] | None = None,
    k: int = 3,
    use_vectors: bool = True,
) -> list[SearchResult]:
    """The top ``k`` passages for ``query``, optionally only in ``doc_ids``."""
    for doc_id in doc_ids or ():
        library.document(doc_id)  # raises DocumentNotFound with a helpful message
    bm25 = bm25_ranking(library, query, doc_ids, CANDIDATES)
    vectors = vector_ranking(library, query, doc_ids, CANDIDATES) if use_vectors else []
    fused: dict[int, float] = {}
    for ranking in (bm25, vectors):
        for rank, passage_id in enumerate(ranking, start=1):
            fused[passage_id] = fused.get(passage_id, 0.0) + 1.0 / (RRF_K + rank)
    top = sorted(fused.items(), key=lambda item: (-item[1], item[0]))[:k]
    if not top:
        return []
    bm25_rank = {pid: r for r, pid in enumerate(bm25, start=1)}
    vector_rank = {pid: r for r, pid in enumerate(vectors, start=1)}
    rows = {
        int(r[0]): r
        for r in library.db.execute(
            "SELECT passage_id, doc_id, text, page_start, page_end, spans FROM passages "
            f"WHERE passage_id IN ({','.join('?' * len(top))})",
            [pid for pid, _ in top],
        ).fetchall()
    }
    results = []
    for passage_id, score in top:
        row = rows.get(passage_id)
        if row is None:  # a stale vector of a removed passage
            continue
        results.append(
            SearchResult(
                passage_id=passage_id,
                doc_id=row[1],
                text=row[2],
                page_start=row[3],
                page_end=row[4],
                score=score,
                spans=[tuple(s) for s in json.loads(row[5])],
                bm25_rank=bm25_rank.get(passage_id),
                vector_rank=vector_rank.get(passage_id),
            )
        )
    return results


__all__ = ["DocumentNotFound", "SearchResult", "search"]

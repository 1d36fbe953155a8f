"""The retrieval systems scored on ACORD, each built from the product's own search code.

A system is fitted on training queries (their text and grades) and gives a ranking function:
query -> passage ids, best first. None of today's systems learns anything, so fitting returns the
same function whatever it is given; the fold machinery of lab.eval.score_acord still fits each
fold on the other folds' queries only, so a trained variant plugs in as one more ``System``.

- ``bm25``: FTS5's BM25 over the passages (text, and heading weighted 2 as search does: the
  clauses have none), the query's own words only (no lexicon, no word left out for being common).
- ``bm25 + lexicon``: the BM25 ranking as search makes it (``retrieval.bm25_ranking`` with the
  default ``RetrievalParams``: the legal lexicon's terms added, words in over a quarter of the
  passages left out).
- ``embedder``: the clause embedder alone (the library's vector index, cosine).
- ``hybrid``: ``retrieval.search`` with BM25 as in ``bm25`` and the embedder fused by reciprocal
  rank (the product's k and weights), no ranker, no near-copy removal.
- ``hybrid + ranker``: the same, then the clause ranker reorders the first ``rerank_top`` (10) as
  search does (``retrieval.rerank``).
- ``search, no ranker``: ``retrieval.search`` with the default parameters but ``rerank_top=0``.
- ``search``: ``retrieval.search`` exactly as the product runs it (``DEFAULT_PARAMS``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from summarizer.library.storage.store import Library
    from summarizer.search.retrieval import RetrievalParams, SearchResult

Ranking = Callable[[str], list[int]]  # query -> passage ids, best first
Grades = Mapping[str, Mapping[str, int]]  # query -> clause id -> grade
Fit = Callable[[Sequence[str], Grades], Ranking]  # fitted on these queries and their grades only
DEPTH = 10  # passages each system returns: NDCG@10 reads no further


@dataclass(frozen=True, slots=True)
class System:
    name: str
    about: str
    fit: Fit


def untrained(name: str, about: str, ranking: Ranking) -> System:
    """A system that learns nothing: fitted on any queries, it ranks as ``ranking`` does."""

    def fit(queries: Sequence[str], grades: Grades) -> Ranking:
        del queries, grades
        return ranking

    return System(name, about, fit)


def plain_params() -> RetrievalParams:
    """Search's parameters for the plain hybrid: the query's own words for BM25, no ranker, no
    near-copy removal, no exhibit weighting."""
    from summarizer.search.retrieval import DEFAULT_PARAMS

    return replace(
        DEFAULT_PARAMS, expand_query=False, max_term_share=1.0, rerank_top=0, max_overlap=1.0, attachment_weight=1.0
    )


def bm25_ranking(library: Library, params: RetrievalParams) -> Ranking:
    from summarizer.search import retrieval

    kinds = retrieval.document_kinds(library, None)
    return lambda query: retrieval.bm25_ranking(library, query, None, DEPTH, params, kinds)


def embedder_ranking(library: Library) -> Ranking:
    from summarizer.library.vectors.query_encoder import load_query_encoder
    from summarizer.library.vectors.vector_index import load_index

    index = load_index(library)
    if index.model is None:
        raise SystemExit("the ACORD library has no vectors: build it again (lab.eval.score_acord --rebuild)")
    encoder = load_query_encoder(index.model)
    return lambda query: [pid for pid, _ in index.search(encoder.encode_query(query), DEPTH)]


_searched: dict[tuple[RetrievalParams, str], list[SearchResult]] = {}


def search_results(library: Library, query: str, params: RetrievalParams) -> list[SearchResult]:
    """``retrieval.search``'s first ``DEPTH`` results, kept for the run: the tries of
    lab.eval.acord_tries reorder the same results (their timings then leave the search out)."""
    from summarizer.search.retrieval import search

    key = (params, query)
    if key not in _searched:
        _searched[key] = search(library, query, k=DEPTH, params=params)
    return _searched[key]


def search_ranking(library: Library, params: RetrievalParams) -> Ranking:
    return lambda query: [r.passage_id for r in search_results(library, query, params)]


def baseline_systems(library: Library) -> list[System]:
    from summarizer.search.retrieval import DEFAULT_PARAMS

    plain = plain_params()
    return [
        untrained("bm25", "FTS5 BM25, the query's own words", bm25_ranking(library, plain)),
        untrained(
            "bm25 + lexicon", "search's BM25 ranking (lexicon terms added)", bm25_ranking(library, DEFAULT_PARAMS)
        ),
        untrained("embedder", "the clause embedder alone (cosine)", embedder_ranking(library)),
        untrained("hybrid", "bm25 + embedder, reciprocal rank fusion", search_ranking(library, plain)),
        untrained(
            "hybrid + ranker",
            "hybrid, the clause ranker reordering its first 10",
            search_ranking(library, replace(plain, rerank_top=DEFAULT_PARAMS.rerank_top)),
        ),
        untrained(
            "search, no ranker",
            "search's defaults with rerank_top=0",
            search_ranking(library, replace(DEFAULT_PARAMS, rerank_top=0)),
        ),
        untrained("search", "search as the product runs it (DEFAULT_PARAMS)", search_ranking(library, DEFAULT_PARAMS)),
    ]

"""No-training tries on ACORD (issue 58 item 2): keep a query's distinctive terms from being
overridden by a clause ranker that is sure of the category. Lab-side options, not the product's.

A query's **distinctive terms** are its words (search's FTS terms, stopwords out) that no matched
entry of the legal lexicon covers (the words that name the category: "governing law", "liability
cap", "non-compete") and that at most ``MAX_SHARE`` of the corpus's passages hold (FTS5's porter
stems: "willful" is searched as "will", held by most passages, so it is not distinctive). In
"New York Governing Law" they are "new" and "york".

- ``distinctive ranking``: a third ranking in the reciprocal-rank fusion, BM25 over the
  distinctive terms only (weight ``w``), then the clause ranker reorders the first 10 as search does
  (on ``search``'s parameters, without its near-copy removal).
- ``distinctive first``: after the ranker, the first 10 are stably sorted by how many of the
  distinctive terms each passage holds (more first): the ranker orders passages alike in that.
- ``ranker within ties``: the ranker only reorders passages whose fused (pre-ranker) scores are
  within ``tolerance`` (relative) of the first of their run; the hybrid's order stands between runs.

Each is scored like the baselines (lab.eval.score_acord); none is fitted on anything.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from lab.eval.acord_systems import DEPTH, Ranking, System, plain_params, search_results, untrained

if TYPE_CHECKING:
    from summarizer.library.storage.store import Library
    from summarizer.search.retrieval import RetrievalParams, SearchResult

MAX_SHARE = 0.05  # a distinctive word is in at most 5% of the passages
TOLERANCES = (0.1, 0.25)  # ties: fused scores within this much (relative) of their run's first
WEIGHTS = (0.75, 1.5)  # the distinctive ranking's weight in the fusion (BM25 weighs 1, the embedder 0.75)


def distinctive_terms(library: Library, query: str, max_share: float = MAX_SHARE) -> list[str]:
    from summarizer.library.storage.queries import passage_id_range, passages_in_id_range, passages_matching_in_id_range
    from summarizer.search.fts_query import fts_string, fts_terms
    from summarizer.search.legal_lexicon import LEXICON
    from summarizer.search.lexicon import matching

    covered = {
        word for entry in matching(LEXICON, query) for m in entry.asks.finditer(query) for word in fts_terms(m.group(0))
    }
    words = [w for w in fts_terms(query) if w not in covered]
    bounds = passage_id_range(library, None)
    if not words or bounds is None:
        return []
    low, high = bounds
    total = passages_in_id_range(library, low, high)
    return [w for w in words if passages_matching_in_id_range(library, fts_string(w), low, high) <= max_share * total]


def holding(library: Library, terms: Sequence[str], passage_ids: Sequence[int]) -> dict[int, int]:
    """How many of ``terms`` each passage holds."""
    from summarizer.library.storage.queries import passages_matching
    from summarizer.search.fts_query import fts_string

    counts = dict.fromkeys(passage_ids, 0)
    for term in terms:
        for pid in passages_matching(library, fts_string(term), list(passage_ids)):
            counts[pid] += 1
    return counts


def distinctive_first(library: Library, query: str, results: Sequence[SearchResult]) -> list[int]:
    ids = [r.passage_id for r in results]
    terms = distinctive_terms(library, query)
    if not terms:
        return ids
    counts = holding(library, terms, ids)
    return sorted(ids, key=lambda pid: -counts[pid])  # stable: the ranker's order within a count


def within_ties(results: Sequence[SearchResult], tolerance: float) -> list[int]:
    """The fused order, with each run of scores within ``tolerance`` of its first ordered by the
    ranker's score (a passage the ranker did not score keeps its place at its run's end)."""
    fused = sorted(results, key=lambda r: -r.score)  # search keeps each passage's fused score
    out: list[int] = []
    run: list[SearchResult] = []
    for result in [*fused, None]:
        if result is None or (run and result.score < run[0].score * (1 - tolerance)):
            ranked = sorted(run, key=lambda r: -(r.ranker_score if r.ranker_score is not None else -1e9))
            out += [r.passage_id for r in ranked]
            run = []
        if result is not None:
            run.append(result)
    return out


def fused_with_distinctive(library: Library, params: RetrievalParams, weight: float) -> Ranking:
    """Search's fusion (BM25 of ``params`` and the embedder) with a third ranking, BM25 over the
    query's distinctive terms, weighing ``weight``; then the ranker as search runs it."""
    from summarizer.library.storage.queries import bm25_passage_ids
    from summarizer.library.vectors.query_encoder import load_query_encoder
    from summarizer.library.vectors.vector_index import load_index
    from summarizer.search import retrieval
    from summarizer.search.fts_query import fts_query

    index = load_index(library)
    assert index.model is not None
    encoder = load_query_encoder(index.model)
    kinds = retrieval.document_kinds(library, None)

    def rank(query: str) -> list[int]:
        bm25 = retrieval.bm25_ranking(library, query, None, params.candidates, params, kinds)
        vectors = [pid for pid, _ in index.search(encoder.encode_query(query), params.candidates)]
        terms = distinctive_terms(library, query)
        match = fts_query(" ".join(terms)) if terms else None
        own = (
            bm25_passage_ids(library, match, heading_weight=params.heading_weight, limit=params.candidates)
            if match
            else []
        )
        fused: dict[int, float] = {}
        for ranking, w in ((bm25, params.bm25_weight), (vectors, params.vector_weight), (own, weight)):
            for place, pid in enumerate(ranking, start=1):
                fused[pid] = fused.get(pid, 0.0) + w / (params.rrf_k + place)
        ranked = sorted(fused.items(), key=lambda item: (-item[1], item[0]))[: max(DEPTH, params.rerank_top)]
        if params.rerank_top > 0:
            ranked, _ = retrieval.rerank(library, query, ranked, params.rerank_top, params.rerank_weight, params.rrf_k)
        return [pid for pid, _ in ranked[:DEPTH]]

    return rank


def after_search(
    library: Library, params: RetrievalParams, how: Callable[[str, list[SearchResult]], list[int]]
) -> Ranking:
    """Search's results for ``params``, put in order by ``how`` (query, results -> passage ids)."""
    return lambda query: how(query, search_results(library, query, params))


def ties_of(tolerance: float) -> Callable[[str, list[SearchResult]], list[int]]:
    return lambda _query, results: within_ties(results, tolerance)


def tries(library: Library) -> list[System]:
    from summarizer.search.retrieval import DEFAULT_PARAMS

    ranked = replace(plain_params(), rerank_top=DEFAULT_PARAMS.rerank_top)
    systems: list[System] = []
    for name, params in (("hybrid + ranker", ranked), ("search", DEFAULT_PARAMS)):
        systems.append(
            untrained(
                f"{name}, distinctive first",
                "the ranker's top 10 stably sorted by distinctive terms held",
                after_search(library, params, lambda q, results: distinctive_first(library, q, results)),
            )
        )
        for tolerance in TOLERANCES:
            systems.append(
                untrained(
                    f"{name}, ranker within ties ({tolerance:.0%})",
                    f"the ranker reorders only runs of fused scores within {tolerance:.0%}",
                    after_search(library, params, ties_of(tolerance)),
                )
            )
        for weight in WEIGHTS:
            systems.append(
                untrained(
                    f"{name}, distinctive ranking (w={weight})",
                    f"a third fused ranking: BM25 of the distinctive terms, weight {weight}",
                    fused_with_distinctive(library, params, weight),
                )
            )
    return systems

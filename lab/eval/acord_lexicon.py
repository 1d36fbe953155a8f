"""No-training tries on ACORD (issue 58 item 2): search's legal lexicon without its outweighing the
query's own words. Lab-side options, not the product's (until one measures better by the
cross-validated figure).

Search's BM25 adds up to 16 lexicon terms of the query's category to the query's own words, in one
FTS5 query; an ACORD query names its category *and* its variant ("New York Governing Law"), and the
category's added terms can outweigh the variant's own words (docs/retrieval.md: bm25 0.118, bm25 +
lexicon 0.087 cross-validated). Each try keeps everything else of ``search`` (the words held by over
a quarter of the passages left out, the exhibit weighting, the near-copy removal, the clause ranker
over the first 10):

- ``lexicon as a lower-weighted ranking (w)``: BM25 over the query's own words (weight 1) and BM25
  with the lexicon's terms as a ranking of its own (weight ``w``), fused by reciprocal rank with the
  clause embedder (0.75): the lexicon still brings the category's clauses up, but a clause holding
  the query's own rare words leads.
- ``no lexicon``: search with ``expand_query=False``.
- ``lexicon for category-only queries``: the lexicon's terms added only when the query has no
  distinctive term (lab.eval.acord_tries: a word no matched lexicon entry covers, in at most 5% of
  the passages), i.e. when it asks for the category alone, as CUAD's questions do.
- ``lexicon chosen by the query (w)``: the product's ``RetrievalParams.lexicon_by_query`` with
  ``lexicon_ranking_weight=w``: the lexicon as a ranking of weight ``w`` for a query with
  distinctive terms by the stricter rule of summarizer.search.distinctive (held by at least one
  passage, not a common English word), its terms in the one query for the others.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from lab.eval.acord_systems import DEPTH, Ranking, System, untrained

if TYPE_CHECKING:
    from summarizer.library.storage.store import Library
    from summarizer.search.retrieval import RetrievalParams

WEIGHTS = (0.25, 0.5)
BY_QUERY_WEIGHT = 0.25  # the weight measured on CUAD's figures for every query


def lexicon_as_ranking(library: Library, params: RetrievalParams, weight: float) -> Ranking:
    """Search with the lexicon-expanded BM25 as a third fused ranking of weight ``weight`` beside
    BM25 over the query's own words."""
    from summarizer.library.vectors.query_encoder import load_query_encoder
    from summarizer.library.vectors.vector_index import load_index
    from summarizer.search import retrieval

    index = load_index(library)
    assert index.model is not None
    encoder = load_query_encoder(index.model)
    kinds = retrieval.document_kinds(library, None)
    own_words = replace(params, expand_query=False)

    def rank(query: str) -> list[int]:
        own = retrieval.bm25_ranking(library, query, None, params.candidates, own_words, kinds)
        expanded = retrieval.bm25_ranking(library, query, None, params.candidates, params, kinds)
        vectors = [pid for pid, _ in index.search(encoder.encode_query(query), params.candidates)]
        fused: dict[int, float] = {}
        for ranking, w in ((own, params.bm25_weight), (expanded, weight), (vectors, params.vector_weight)):
            for place, pid in enumerate(ranking, start=1):
                fused[pid] = fused.get(pid, 0.0) + w / (params.rrf_k + place)
        retrieval._weigh_by_heading(library, fused, kinds, params)
        ranked = sorted(fused.items(), key=lambda item: (-item[1], item[0]))
        head = max(DEPTH, params.rerank_top)
        top = retrieval._without_copies(library, ranked, head, params.max_overlap)
        if params.rerank_top > 0:
            top, _ = retrieval.rerank(library, query, top, params.rerank_top, params.rerank_weight, params.rrf_k)
        return [pid for pid, _ in top[:DEPTH]]

    return rank


def lexicon_when_no_variant(library: Library, params: RetrievalParams) -> Ranking:
    from lab.eval.acord_tries import distinctive_terms
    from summarizer.search.retrieval import search

    plain = replace(params, expand_query=False)

    def rank(query: str) -> list[int]:
        chosen = plain if distinctive_terms(library, query) else params
        return [r.passage_id for r in search(library, query, k=DEPTH, params=chosen)]

    return rank


def lexicon_tries(library: Library) -> list[System]:
    from summarizer.search.retrieval import DEFAULT_PARAMS, search

    systems = [
        untrained(
            f"search, lexicon as a lower-weighted ranking (w={w})",
            f"BM25 of the query's own words (1) and BM25 with the lexicon ({w}) fused with the embedder",
            lexicon_as_ranking(library, DEFAULT_PARAMS, w),
        )
        for w in WEIGHTS
    ]
    no_lexicon = replace(DEFAULT_PARAMS, expand_query=False)
    systems.append(
        untrained(
            "search, no lexicon",
            "search with expand_query=False",
            lambda q: [r.passage_id for r in search(library, q, k=DEPTH, params=no_lexicon)],
        )
    )
    systems.append(
        untrained(
            "search, lexicon for category-only queries",
            "the lexicon's terms only when the query has no distinctive term",
            lexicon_when_no_variant(library, DEFAULT_PARAMS),
        )
    )
    by_query = replace(DEFAULT_PARAMS, lexicon_by_query=True, lexicon_ranking_weight=BY_QUERY_WEIGHT)
    systems.append(
        untrained(
            f"search, lexicon chosen by the query (w={BY_QUERY_WEIGHT})",
            "RetrievalParams.lexicon_by_query: the lexicon as a ranking of weight w only for a query "
            "with distinctive terms (summarizer.search.distinctive)",
            lambda q: [r.passage_id for r in search(library, q, k=DEPTH, params=by_query)],
        )
    )
    return systems

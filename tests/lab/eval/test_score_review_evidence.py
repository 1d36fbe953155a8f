"""The review evidence's ``--set``: it changes the search each item's query runs, and nothing
given leaves the product's own settings."""

from __future__ import annotations

from lab.eval.score_review_evidence import query_search_params
from summarizer.review.evidence import WITHOUT_RANKER


def test_no_setting_is_the_products_query_search() -> None:
    assert query_search_params([]) == WITHOUT_RANKER


def test_a_setting_reaches_the_query_search_and_the_ranker_stays_off() -> None:
    params = query_search_params(["lexicon_ranking_weight=0.25", "rerank_top=10"])
    assert params.lexicon_ranking_weight == 0.25
    assert params.rerank_top == 0

"""The data room's quality figures: recall is capped at the screen's worth of contracts, the held-out
and trained contracts are counted apart, a clause longer than a passage counts as shown, and every
variant question's answers are CUAD files with a quote."""

from __future__ import annotations

import json
from dataclasses import replace

from lab.eval.dataroom_quality import CONFIGURATIONS, VARIANTS, clause_shown, library_params, scores
from summarizer.search.by_contract import CONTRACTS_SHOWN, LIBRARY_PARAMS


def test_scores_of_a_list_against_the_contracts_that_have_the_clause() -> None:
    listed = [f"d{i}" for i in range(40)]
    relevant = {"d1", "d3", "d30", "x"}  # d30 searched but past the screen; x never reached
    figures = scores(listed, listed, relevant, held_out={"d3", "x"})
    assert figures["shown"] == CONTRACTS_SHOWN
    assert figures["hits_shown"] == 2 and figures["precision_shown"] == 2 / 25
    assert figures["recall_shown"] == 2 / 4 and figures["recall_shown_capped"] == 2 / 4
    assert figures["reciprocal_rank"] == 1 / 2  # d1 is second
    assert figures["recall_searched"] == 3 / 4
    assert figures["held_out"] == {"relevant": 2, "hits_shown": 1, "hits_searched": 1}
    assert figures["trained"] == {"relevant": 2, "hits_shown": 1, "hits_searched": 2}


def test_recall_capped_divides_by_what_a_screen_can_hold() -> None:
    many = {f"d{i}" for i in range(100)}
    figures = scores(sorted(many), sorted(many), many, held_out=set())
    assert figures["recall_shown"] == 0.25 and figures["recall_shown_capped"] == 1.0


def test_a_clause_is_shown_when_the_passage_holds_it_or_lies_inside_it() -> None:
    clause = (
        "Either party may terminate this Agreement at any time upon thirty (30) days' written notice to the "
        "other party, and upon such termination all licenses granted hereunder shall end and each party shall "
        "return the other's confidential information."
    )
    passage = "12. Termination. " + clause + " 13. Notices. All notices shall be in writing."
    assert clause_shown([clause], passage)
    assert clause_shown([clause + " " + clause.replace("thirty (30)", "sixty (60)")], clause)  # passage inside
    assert not clause_shown([clause], "13. Notices. All notices shall be in writing and sent by courier.")


def test_the_variant_questions_are_marked_as_tuning_data_with_quoted_answers() -> None:
    data = json.loads(VARIANTS.read_text())
    assert data["use"] == "tuning"
    assert 10 <= len(data["questions"]) <= 15
    for question in data["questions"]:
        assert question["question"].endswith("?") and question["notes"]
        assert question["answers"], question["id"]
        files = [a["file"] for a in question["answers"]]
        assert len(files) == len(set(files)) and all(f.endswith(".txt") for f in files)
        assert all(len(a["quote"]) > 20 for a in question["answers"])


def test_set_changes_the_library_settings_under_every_configuration() -> None:
    base = library_params(["lexicon_ranking_weight=0.25"])
    assert base.lexicon_ranking_weight == 0.25
    assert replace(base, lexicon_ranking_weight=LIBRARY_PARAMS.lexicon_ranking_weight) == LIBRARY_PARAMS
    assert library_params([]) == LIBRARY_PARAMS
    no_ranker = CONFIGURATIONS[2].params(base)
    assert no_ranker.lexicon_ranking_weight == 0.25 and no_ranker.rerank_top == 0

"""The Review tab's words for a cell: the grid's text and the correction panel's line."""

from __future__ import annotations

from app.views.review_view import cell_text, panel_text
from summarizer.review.evidence import Evidence, ItemResult


def not_found(score: float | None) -> ItemResult:
    evidence = [Evidence(7, 13, 13, "11.8 This Agreement shall be governed by the laws of the State of Texas.")]
    result = ItemResult("law", "Governing Law", "Which law governs?", "jurisdiction", "not_found", evidence)
    result.clause_score = score
    result.flag, result.reason = "missing", "not found (expected Delaware or New York)"
    return result


def test_a_not_found_cell_beside_a_passage_that_reads_like_the_clause_says_which_page_to_check() -> None:
    """Walk 2026-12-05, finding 9: "not found" in the grid and the panel while a click on the cell
    highlighted §11.8, "…THE LAWS OF THE STATE OF TEXAS"."""
    likely = not_found(5.8)  # the clause ranker's score of a passage that reads like the clause
    assert cell_text(likely) == "not found — check p. 13"
    assert panel_text(likely) == (
        "Governing Law — the model found no answer, but the passage on p. 13 reads like this clause: check it"
    )
    unlikely = not_found(-6.0)  # nothing reads like it: the model's "not found" stands alone
    assert cell_text(unlikely) == "not found"
    assert panel_text(unlikely) == "Governing Law — not found"
    assert cell_text(not_found(None)) == "not found"  # no clause ranker: nothing to go on

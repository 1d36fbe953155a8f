"""The Review tab's words for a cell: the grid's text and the correction panel's line."""

from __future__ import annotations

from app.views.review_cells import cell_text, panel_text
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
    assert cell_text(likely) == "not found — check p.\u00a013"
    assert panel_text(likely) == (
        "Governing Law — the model found no answer, but the passage on p.\u00a013 reads like this clause: check it"
    )
    unlikely = not_found(-6.0)  # nothing reads like it: the model's "not found" stands alone
    assert cell_text(unlikely) == "not found"
    assert panel_text(unlikely) == "Governing Law — not found"
    assert cell_text(not_found(None)) == "not found"  # no clause ranker: nothing to go on


def absent_cell() -> ItemResult:
    from summarizer.review.absence import absence_model

    evidence = [Evidence(3, 4, 5, "The Distributor shall not sell competing products in the Territory.")]
    result = ItemResult("excl", "Exclusivity", "Is there exclusivity?", "yes_no", "absent", evidence)
    result.clause_score = -4.2
    result.reason = absence_model().reason(-4.2, "Exclusivity")
    return result


def test_an_absent_cell_speaks_to_a_reader_and_a_none_found_correction_names_no_page() -> None:
    """Walk 2026-12-05, finding 21: the panel said "the clause ranker's best passage scores -4.2",
    and a "none found" correction showed as "none found (p. 2) ✎", the candidate's page beside a
    value that says nothing was found."""
    import re

    from summarizer.review.evidence import Correction, DocumentReview
    from summarizer.review.export import to_markdown

    absent = absent_cell()
    panel = panel_text(absent)
    assert panel == (
        "Exclusivity — probably absent: no passage reads like this clause, judged with how often contracts "
        "have one; check the closest candidate, on pp.\u00a04–5"
    )
    assert not re.search(r"ranker|score|-?\d+\.\d", panel)
    absent.correction = Correction("none found")
    assert cell_text(absent) == "none found ✎"
    present = not_found(5.8)
    present.correction = Correction("England and Wales")
    assert cell_text(present) == "England and Wales (p.\u00a013) ✎"  # a value found: its page stays
    none_here = not_found(5.8)
    none_here.correction = Correction("None: the contract names no governing law")
    assert cell_text(none_here) == "None: the contract names no governing law ✎"
    review = DocumentReview("d", "Distributor", "sha", "cuad", "1", (absent, present))
    grid = to_markdown([review])
    assert "| Exclusivity | none found [corrected] |" in grid
    assert "| Governing Law | England and Wales (p.\u00a013) [corrected] **missing** |" in grid

"""The review as a table of contracts (issue 46): the filter a reviewer types and the cells' states."""

from __future__ import annotations

import pytest

from summarizer.review.checklist import Checklist, ChecklistItem
from summarizer.review.contract_table import (
    ABSENT,
    CANDIDATE,
    FOUND,
    NOT_REVIEWED,
    TableFilterError,
    cell_kind,
    cell_state,
    cell_verdict,
    parse_filter,
    row_matches,
    state_sort_key,
    table_columns,
    table_row,
)
from summarizer.review.evidence import DocumentReview, Evidence, ItemResult

ITEMS = (
    ChecklistItem("law", "Governing Law", "Which law governs?", ("governed by the laws of",), "jurisdiction"),
    ChecklistItem("coc", "Change of Control", "Change of control?", ("change of control",), "yes_no"),
)
CHECKLIST = Checklist("two", "v1", ITEMS)
COLUMNS = table_columns(ITEMS, folders=True)


def result(item: ChecklistItem, status: str, passage: str = "", value: str | None = None) -> ItemResult:
    evidence = [Evidence(1, 4, 4, passage)] if passage else []
    return ItemResult(item.id, item.category, item.question, item.type, status, evidence, 1, value=value)


NEW_YORK = result(ITEMS[0], "evidence", "This Agreement shall be governed by the laws of the State of New York.")
TEXAS = result(ITEMS[0], "evidence", "governed by the laws of the State of Texas")
COC = result(ITEMS[1], "evidence", "Upon a change of control of either party ...")
NO_COC = result(ITEMS[1], "absent", "closest candidate passage")


@pytest.mark.parametrize(
    ("text", "new_york_with_coc", "texas_without_coc"),
    [
        ("has Change of Control", True, False),
        ("no change of control", False, True),
        ("probably absent", False, True),  # a phrase in any cell: the absent cell's label
        ("Governing Law = New York", True, False),  # searched in the best passage, not only "p. 4"
        ("governing: texas", False, True),  # a column by its beginning, ":" as "="
        ("law != new york", False, True),  # an item's id names its column too
        ("has change of control; governing law = texas", False, False),
        ("folder = tx", False, True),
        ("acme", True, True),
        ("", True, True),
    ],
)
def test_the_table_filter(text: str, new_york_with_coc: bool, texas_without_coc: bool) -> None:
    conditions = parse_filter(text, COLUMNS)
    ny = table_row_for(NEW_YORK, COC, folder="ny/")
    tx = table_row_for(TEXAS, NO_COC, folder="tx/")
    assert row_matches(ny, conditions, COLUMNS) is new_york_with_coc
    assert row_matches(tx, conditions, COLUMNS) is texas_without_coc


def table_row_for(law: ItemResult, coc: ItemResult, folder: str) -> object:
    from summarizer.review.export import absent_label

    review = DocumentReview("d1", "Acme Supply", "sha", "two", "v1", (law, coc))
    shown = [absent_label(i) if i.status == "absent" else "p. 4" for i in (law, coc)]
    return table_row(review, "Acme Supply", folder, shown, COLUMNS)


def test_a_filter_naming_no_column_says_what_to_type() -> None:
    with pytest.raises(TableFilterError, match="No column is called “Warranty”"):
        parse_filter("has Warranty", COLUMNS)


def test_cell_states() -> None:
    assert (cell_state(NEW_YORK), cell_state(NO_COC), cell_state(None)) == (CANDIDATE, ABSENT, NOT_REVIEWED)


MODEL_NEW_YORK = result(ITEMS[0], "answered", "governed by the laws of the State of New York", value="New York")
MODEL_NO_COC = result(ITEMS[1], "not_found", "Upon a change of control of either party ...")


@pytest.mark.parametrize(
    ("text", "model_row", "evidence_row"),
    [
        ("has Change of Control", False, True),  # the model read the contract and did not find it
        ("no change of control", True, False),
        ("model no change of control", True, False),
        ("evidence has change of control", False, True),
        ("model has governing law", True, False),
        ("evidence has governing law", False, True),
        ("has governing law", True, True),
    ],
)
def test_the_filter_tells_the_models_verdicts_from_the_evidence(text: str, model_row: bool, evidence_row: bool) -> None:
    """A contract the model reviewed is filtered by its verdict, even where the evidence-only
    search had found a passage; "model has" and "evidence has" pick the kind of cell."""
    conditions = parse_filter(text, COLUMNS)
    by_model = table_row_for(MODEL_NEW_YORK, MODEL_NO_COC, folder="")
    by_evidence = table_row_for(NEW_YORK, COC, folder="")
    assert row_matches(by_model, conditions, COLUMNS) is model_row
    assert row_matches(by_evidence, conditions, COLUMNS) is evidence_row


def test_cell_kinds_and_verdicts() -> None:
    from summarizer.review.evidence import Correction

    corrected = result(ITEMS[0], "absent", "x")
    corrected.correction = Correction("Delaware", True, "", "")
    assert [cell_kind(i) for i in (MODEL_NEW_YORK, NO_COC, corrected, None)] == ["model", "evidence", "reviewer", ""]
    assert cell_verdict(MODEL_NO_COC) == "not found (model)" and cell_verdict(NO_COC) == "probably absent (evidence)"
    assert cell_verdict(corrected) == "found (reviewer)" and cell_verdict(None) == NOT_REVIEWED


def test_an_evidence_only_cell_is_a_candidate_not_a_clause_found() -> None:
    """Issue 56 item 3: evidence not judged probably absent was "found", the state "has X" and the
    memo's "Clauses found" read; on validation contracts 53% of such cells were the clause. It is a
    candidate passage: "has X" still keeps it, a model's answer sorts before it."""
    answered = result(ITEMS[1], "answered", "Upon a change of control ...", value="Yes")
    assert (cell_state(COC), cell_state(answered)) == (CANDIDATE, FOUND)
    assert state_sort_key(FOUND, "z") < state_sort_key(CANDIDATE, "a") < state_sort_key(ABSENT, "a")
    conditions = parse_filter("has change of control", COLUMNS)
    assert row_matches(table_row_for(NEW_YORK, COC, folder=""), conditions, COLUMNS)

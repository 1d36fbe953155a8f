"""Issue 24: review cells a reviewer can trust: an unverified value never looks verified, an
error says why, corrections land on the cell the panel names (mouse or keyboard), the keyboard
reaches every cell, and an evidence-only review survives a checklist switch and a restart."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt

from tests.app.controllers.test_review import (
    LAW,
    click_cell,
    model_reply,
    open_tab,
    run_review,
    window_with_contract,
)

GREY = "#D9D9D9"


def invented_law(prompt: str) -> str:
    """The model's law answer quotes words that are not in the contract; the rest as usual."""
    if "Question: Which law governs" in prompt:
        return json.dumps({"found": True, "answer": "New York", "quote": "governed by New York law", "pages": [2]})
    if "Question: Is a party restricted" in prompt:
        return "{not json"  # an error cell
    return model_reply(prompt)


def test_an_unverified_value_has_its_own_style_count_and_words(
    qtbot: Any, make_window: Any, fake_engine: Any, tmp_path: Path
) -> None:
    fake_engine.summary_reply = invented_law
    window, doc_id, panel = window_with_contract(qtbot, make_window, tmp_path, evidence_only=False)
    panel.set_checked(doc_id)
    run_review(qtbot, window)
    law = panel.grid.item(1, 0)
    assert panel.result_at(1, 0).flag == "match"  # the playbook would say match, but the quote is not there
    assert law.text() == "New York (p.\u00a02) · unverified"
    assert law.background().color().name().upper() == GREY and law.font().italic()
    assert panel.grid.horizontalHeaderItem(0).text().endswith("1 unverified")
    click_cell(qtbot, panel.grid, 1, 0)
    assert "unverified" in panel.cell_label.text() and "not in the contract" in panel.cell_label.text()
    click_cell(qtbot, panel.grid, 2, 0)  # the error cell: its reason is in the panel, not only the tooltip
    assert panel.cell_label.text().startswith("Non-Compete — no value: error: ")
    assert len(panel.cell_label.text()) > len("Non-Compete — no value: error: ") + 10

    click_cell(qtbot, panel.grid, 1, 0)  # the reviewer accepts it: verified by a person, flagged again
    panel.accepted.setChecked(True)
    panel.save_button.click()
    assert panel.grid.item(1, 0).background().color().name().upper() == "#C6EFCE"
    assert not panel.grid.horizontalHeaderItem(0).text().endswith("unverified")


def test_the_correction_panel_follows_the_keyboard_and_save_writes_the_named_item(
    qtbot: Any, make_window: Any, tmp_path: Path
) -> None:
    from summarizer.review.store import corrections

    window, doc_id, panel = window_with_contract(qtbot, make_window, tmp_path, evidence_only=True)
    run_review(qtbot, window)
    click_cell(qtbot, panel.grid, 0, 0)
    assert panel.cell_label.text().startswith("Parties — evidence only")  # not "the model's value: evidence"
    qtbot.keyClick(panel.grid, Qt.Key.Key_Down)
    qtbot.keyClick(panel.grid, Qt.Key.Key_Down)
    assert panel.grid.currentRow() == 2
    assert panel.cell_label.text().startswith("Non-Compete")
    panel.value_edit.setText("X")
    panel.save_button.click()
    found = corrections(window.library, doc_id, "three")
    assert set(found) == {"nc"} and found["nc"][0].value == "X"
    assert panel.grid.item(2, 0).text().startswith("X (p.\u00a03)") and panel.grid.item(0, 0).text() == "p.\u00a01"


def test_tab_leaves_the_grid_and_enter_opens_the_passage(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    window, _doc_id, panel = window_with_contract(qtbot, make_window, tmp_path, evidence_only=True)
    run_review(qtbot, window)
    window.show()
    qtbot.waitExposed(window)
    panel.grid.setFocus()
    panel.grid.setCurrentCell(1, 0)
    window.viewer.go_to_page(3)
    qtbot.keyClick(panel.grid, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.viewer.current_page() == 2)  # Governing Law is on page 2
    assert not panel.grid.tabKeyNavigation()
    panel.grid.setFocus()
    qtbot.keyClick(panel.grid, Qt.Key.Key_Tab)
    qtbot.waitUntil(lambda: not panel.grid.hasFocus())
    assert panel.grid.currentRow() == 1  # Tab moved the focus, not the current cell


def test_an_evidence_review_stays_after_a_checklist_switch_and_a_restart(
    qtbot: Any, make_window: Any, tmp_path: Path
) -> None:
    window, doc_id, panel = window_with_contract(qtbot, make_window, tmp_path, evidence_only=True)
    run_review(qtbot, window)
    click_cell(qtbot, panel.grid, 1, 0)
    panel.value_edit.setText("Delaware")
    panel.save_button.click()
    assert window.reviews.use_checklist("cuad")
    assert window.reviews.use_checklist(str(tmp_path / "three.csv"))
    assert panel.grid.item(1, 0).text() == "Delaware (p.\u00a02) ✎"  # not "not reviewed"
    assert panel.grid.item(2, 0).text() == "p.\u00a03"
    window.close()

    again = make_window()
    panel = open_tab(qtbot, again, tmp_path, evidence_only=True)
    panel.set_checked(doc_id)
    assert panel.grid.item(1, 0).text() == "Delaware (p.\u00a02) ✎"
    panel.deviations_only.setChecked(True)  # no flags in an evidence review: the empty grid says why
    assert panel.empty_note.isVisibleTo(panel) and "evidence-only" in panel.empty_note.text()


def test_evidence_only_over_model_answers_keeps_the_answers(
    qtbot: Any, make_window: Any, fake_engine: Any, tmp_path: Path
) -> None:
    fake_engine.summary_reply = model_reply
    window, doc_id, panel = window_with_contract(qtbot, make_window, tmp_path, evidence_only=False)
    panel.set_checked(doc_id)
    run_review(qtbot, window)
    assert panel.grid.item(1, 0).text() == "New York (p.\u00a02)"
    panel.evidence_only.setChecked(True)
    run_review(qtbot, window)
    assert panel.grid.item(1, 0).text() == "New York (p.\u00a02)"
    assert "model's answers stay" in window.messages.history[-1].text
    assert LAW  # the contract's law clause is the one quoted


def test_a_correction_in_an_evidence_review_names_no_model_value(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    """Issue 24: "(the model's: evidence)" in an evidence-only review's tooltip and exports."""
    window, _doc_id, panel = window_with_contract(qtbot, make_window, tmp_path, evidence_only=True)
    run_review(qtbot, window)
    click_cell(qtbot, panel.grid, 1, 0)
    panel.value_edit.setText("Delaware")
    panel.save_button.click()
    tip = panel.grid.item(1, 0).toolTip()
    assert "evidence only: no model value" in tip and "the model's: evidence" not in tip


def test_an_absent_cell_says_why_and_where_to_check_without_a_percentage() -> None:
    """Issue 42: cells shown at 94-99% "likely absent" were clauses the annotators marked present,
    so the grid says "probably absent" and the page to check, and no likelihood."""
    from app.views.review_cells import cell_text, cell_tip, panel_text
    from summarizer.review.absence import absence_model
    from summarizer.review.evidence import Evidence, ItemResult

    evidence = [Evidence(7, 4, 4, "The Supplier shall offer prices no higher than ...")]
    result = ItemResult("mfn", "Most Favored Nation", "Is there an MFN clause?", "yesno", "absent", evidence, 9)
    result.reason = absence_model().reason(-5.2, "Most Favored Nation")
    assert cell_text(result) == "probably absent — closest: p.\u00a04"
    text = panel_text(result)
    assert text.startswith("Most Favored Nation — probably absent: no passage reads like this clause")
    # finding 21: no engine talk
    assert "score" not in text and text.endswith("check the closest candidate, on p.\u00a04")
    tip = cell_tip(result)
    assert "status: probably absent — closest: p.\u00a04" in tip
    for shown in (cell_text(result), text, tip):
        assert "%" not in shown and "likely absent" not in shown, shown

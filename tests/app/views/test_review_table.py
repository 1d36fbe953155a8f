"""The Review as a table of contracts (issue 46): it turns by itself for many contracts (or when
the user chooses), sorts by a column, filters by what is typed, and a title opens its contract."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt

from app.views.review_table import ContractTable
from app.views.review_view import TABLE_FROM, ReviewPanel
from summarizer.review.checklist import ChecklistItem
from summarizer.review.contract_table import HAS_CANDIDATES_NOTE
from summarizer.review.evidence import DocumentReview, Evidence, ItemResult

ITEMS = [
    ChecklistItem("law", "Governing Law", "Which law governs?", ("governed by the laws of",), "jurisdiction"),
    ChecklistItem("coc", "Change of Control", "Change of control?", ("change of control",), "yes_no"),
]
STATES = ["New York", "Texas", "Delaware"]


def review(n: int) -> DocumentReview:
    """Contract n: governed by one of three states' law; every third has no change-of-control clause."""
    law = ItemResult(
        "law", "Governing Law", "?", "jurisdiction", "evidence",
        [Evidence(n, 2, 2, f"This Agreement is governed by the laws of the State of {STATES[n % 3]}.")], 5,
    )  # fmt: skip
    has_coc = n % 3 != 0
    coc = ItemResult(
        "coc", "Change of Control", "?", "yes_no", "evidence" if has_coc else "absent",
        [Evidence(100 + n, 5, 5, "Upon a change of control of the Supplier ..." if has_coc else "Notices.")], 5,
    )  # fmt: skip
    return DocumentReview(f"d{n}", f"Contract {n:02d}", "sha", "two", "v1", (law, coc))


def panel_with(qtbot: Any, count: int) -> ReviewPanel:
    panel = ReviewPanel()
    qtbot.addWidget(panel)
    panel.set_grid(ITEMS, [(f"Contract {n:02d}", review(n)) for n in range(count)])
    return panel


def shown_titles(panel: ReviewPanel) -> list[str]:
    model = panel.table.model()
    return [model.index(row, 0).data() for row in range(model.rowCount())]


def test_a_few_contracts_stay_a_grid_and_many_turn_into_a_table(qtbot: Any) -> None:
    few = panel_with(qtbot, TABLE_FROM - 1)
    assert not few.table_mode() and few.views.currentWidget() is few.grid and few.grid.columnCount() == TABLE_FROM - 1
    many = panel_with(qtbot, 9)
    assert many.table_mode() and many.views.currentWidget() is many.table
    assert many.grid.columnCount() == 0  # the grid is not built while the table shows
    assert [many.table_model.headerData(c, Qt.Orientation.Horizontal) for c in range(3)] == [
        "Contract", "Governing Law", "Change of Control"
    ]  # fmt: skip
    assert shown_titles(many) == [f"Contract {n:02d}" for n in range(9)]
    many.contracts_as_rows.setChecked(False)  # the user's choice holds over the number of contracts
    assert many.views.currentWidget() is many.grid and many.grid.columnCount() == 9
    many.set_grid(ITEMS, [(f"Contract {n:02d}", review(n)) for n in range(12)])
    assert not many.table_mode()


def test_the_table_filters_by_what_is_typed(qtbot: Any) -> None:
    panel = panel_with(qtbot, 9)
    panel.filter_box.setText("has Change of Control")
    assert shown_titles(panel) == [f"Contract {n:02d}" for n in (1, 2, 4, 5, 7, 8)]
    # evidence only, "has" kept candidate passages, and says so (issue 56 item 3)
    assert panel.empty_note.text() == "6 of 9 contracts match. " + HAS_CANDIDATES_NOTE
    panel.filter_box.setText("has Change of Control; Governing Law = New York")
    assert shown_titles(panel) == []  # New York: 0, 3, 6, which have none
    panel.filter_box.setText("governing law = texas")
    assert shown_titles(panel) == ["Contract 01", "Contract 04", "Contract 07"]
    panel.filter_box.setText("probably absent")
    assert shown_titles(panel) == ["Contract 00", "Contract 03", "Contract 06"]
    panel.filter_box.setText("has Warranty")
    assert "No column is called “Warranty”" in panel.empty_note.text()
    panel.filter_box.clear()
    assert len(shown_titles(panel)) == 9 and panel.empty_note.isHidden()


def test_the_table_sorts_by_a_column(qtbot: Any) -> None:
    panel = panel_with(qtbot, 6)
    panel.table.sortByColumn(2, Qt.SortOrder.AscendingOrder)  # Change of Control: those that have it first
    assert shown_titles(panel)[-2:] == ["Contract 00", "Contract 03"]
    panel.table.sortByColumn(0, Qt.SortOrder.DescendingOrder)
    assert shown_titles(panel)[0] == "Contract 05"


def test_a_click_on_a_title_opens_its_contract_and_on_a_cell_its_passage(qtbot: Any) -> None:
    panel = panel_with(qtbot, 7)
    panel.show()
    panel.table.sortByColumn(0, Qt.SortOrder.DescendingOrder)  # the view's row 0 is contract 6
    opened: list[int] = []
    cells: list[tuple[int, int]] = []
    panel.contract_open_requested.connect(opened.append)
    panel.cell_clicked.connect(lambda item, contract: cells.append((item, contract)))
    for column in (0, 1):
        rect = panel.table.visualRect(panel.table.model().index(0, column))
        qtbot.mouseClick(panel.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert opened == [6] and cells == [(0, 6)]
    assert panel.cell_label.text().startswith("Governing Law — evidence only")


def test_a_row_fills_in_as_its_review_arrives() -> None:
    table = ContractTable()
    table.set_contracts(ITEMS, [("Contract 00", "", None)])
    assert table.index(0, 1).data() == "not reviewed"
    table.set_review(0, review(0))
    assert table.index(0, 1).data() == "candidate: p.\u00a02"
    assert table.index(0, 2).data().startswith("probably absent")


def test_an_item_arriving_repaints_its_own_cell_not_the_row() -> None:
    import dataclasses

    table = ContractTable()
    table.set_contracts(ITEMS, [("Contract 00", "", review(0))])
    changed: list[tuple[int, int, int, int]] = []
    table.dataChanged.connect(lambda a, b, _roles=(): changed.append((a.row(), a.column(), b.row(), b.column())))
    before = table.rows[0].review
    assert before is not None
    answered = dataclasses.replace(before.items[1], status="answered", value="yes", quote="Upon a change of control")
    table.set_review(0, dataclasses.replace(before, items=(before.items[0], answered)))
    assert changed == [(0, 2, 0, 2)]  # the change-of-control cell only
    assert table.index(0, 2).data().startswith("yes")
    table.set_review(0, table.rows[0].review)  # nothing changed: nothing to repaint
    assert changed == [(0, 2, 0, 2)]

"""The Review tab with the fake engine: evidence-only and model runs fill the grid, a cell opens
its page, corrections persist into the exports, Stop, a dropped contract is reviewed once it is in."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any
from unittest.mock import MagicMock

import pytest
from PySide6.QtCore import QMimeData, Qt, QUrl

from tests.app.conftest import wait_for_document
from tests.pdf_factory import make_pdf, text_pages

PARTIES = "This Agreement is made between Acme Corp (Company) and Beta LLC (Distributor)."
LAW = "This Agreement shall be governed by the laws of the State of New York."
NON_COMPETE = "During the Term, Distributor shall not sell any product that competes with the Products."
CHECKLIST = (
    "id,category,question,queries,type,expected\n"
    "parties,Parties,Who are the parties to this agreement?,agreement is made between,parties,\n"
    "law,Governing Law,Which law governs the agreement?,governed by the laws of,jurisdiction,New York or Delaware\n"
    "nc,Non-Compete,Is a party restricted from competing?,shall not sell any product that competes,yes_no,"
    "not acceptable binding us\n"
)
REPLIES = {
    "Who are the parties": ("Acme Corp; Beta LLC", PARTIES, 1),
    "Which law governs": ("New York", LAW, 2),
    "Is a party restricted": ("yes", NON_COMPETE, 3),
}


def contract(folder: Path, name: str = "supply.pdf") -> Path:
    filler = text_pages(3, 150)
    return make_pdf(folder / name, [
        ["SUPPLY AGREEMENT", PARTIES, *filler[0]],
        ["12. GOVERNING LAW", LAW, *filler[1]],
        ["14. NON-COMPETITION", NON_COMPETE, *filler[2]],
    ])  # fmt: skip


def model_reply(prompt: str) -> str:
    for question, (answer, quote, page) in REPLIES.items():
        if f"Question: {question}" in prompt:
            return json.dumps({"found": True, "answer": answer, "quote": quote, "pages": [page]})
    return json.dumps({"found": False, "answer": "", "quote": "", "pages": []})


def open_tab(qtbot: Any, window: Any, tmp_path: Path, *, evidence_only: bool) -> Any:
    window.tabs.setCurrentWidget(window.review)
    checklist = tmp_path / "three.csv"
    checklist.write_text(CHECKLIST)
    assert window.reviews.use_checklist(str(checklist))
    window.review.evidence_only.setChecked(evidence_only)
    return window.review


def window_with_contract(qtbot: Any, make_window: Any, tmp_path: Path, *, evidence_only: bool) -> tuple[Any, str, Any]:
    """A window with the test contract in its library and the Review tab open: (window, doc_id, panel)."""
    window = make_window()
    window.add_paths([contract(tmp_path)])
    doc_id = wait_for_document(qtbot, window)
    return window, doc_id, open_tab(qtbot, window, tmp_path, evidence_only=evidence_only)


def run_review(qtbot: Any, window: Any) -> None:
    window.review.review_button.click()
    assert window.reviews.job is not None
    qtbot.waitUntil(lambda: window.reviews.job is None, timeout=60_000)


def click_cell(qtbot: Any, grid: Any, row: int, column: int) -> None:
    rect = grid.visualItemRect(grid.item(row, column))
    qtbot.mouseClick(grid.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def test_evidence_only_fills_the_grid_and_a_cell_opens_its_passage(
    qtbot: Any, make_window: Any, tmp_path: Path
) -> None:
    window, doc_id, panel = window_with_contract(qtbot, make_window, tmp_path, evidence_only=True)
    assert panel.checked_doc_ids() == [doc_id]  # the library's selected document, checked as the tab opens
    assert panel.grid.item(0, 0).text() == "not reviewed"
    run_review(qtbot, window)
    assert [panel.grid.item(row, 0).text() for row in range(3)] == [
        "candidate: p.\u00a01",
        "candidate: p.\u00a02",
        "candidate: p.\u00a03",
    ]
    assert window.session.engine is None or not window.session.engine.calls  # no model was asked
    window.viewer.go_to_page(1)
    click_cell(qtbot, panel.grid, 2, 0)  # Non-Compete: its clause is on page 3
    qtbot.waitUntil(lambda: window.viewer.current_page() == 3)
    assert window.viewer.view.highlights and window.viewer.view.highlights[0].page == 2  # 0-based


def test_a_correction_persists_and_shows_in_the_grid_and_the_exports(
    qtbot: Any, make_window: Any, tmp_path: Path
) -> None:
    import docx

    from summarizer.review.store import corrections

    window, doc_id, panel = window_with_contract(qtbot, make_window, tmp_path, evidence_only=True)
    panel.set_checked(doc_id)
    run_review(qtbot, window)
    click_cell(qtbot, panel.grid, 1, 0)
    panel.value_edit.setText("Delaware")
    panel.accepted.setChecked(True)
    panel.note_edit.setText("confirmed with counsel")
    panel.save_button.click()
    assert panel.grid.item(1, 0).text() == "Delaware (p.\u00a02) ✎✓✱"
    assert panel.editing == (1, 0) and panel.note_edit.text() == "confirmed with counsel"  # the cell stays selected
    assert panel.grid.item(1, 0).background().color().name().upper() == "#C6EFCE"  # the playbook's match
    saved, _ = corrections(window.library, doc_id, "three")["law"]
    assert (saved.value, saved.accepted, saved.note) == ("Delaware", True, "confirmed with counsel")

    window.reviews.choose_export_path = lambda fmt, _suggested: tmp_path / f"review.{fmt}"
    panel.export_buttons["md"].click()
    markdown = (tmp_path / "review.md").read_text()
    assert "Delaware (p.\u00a02) [corrected, accepted]" in markdown and "note: confirmed with counsel" in markdown
    panel.export_buttons["docx"].click()
    memo = docx.Document(str(tmp_path / "review.docx"))
    assert memo.tables[0].rows[2].cells[1].text.startswith("Delaware (p.\u00a02) [corrected, accepted]")

    panel.deviations_only.setChecked(True)
    assert [panel.row_hidden(row) for row in range(3)] == [True, True, True]  # no deviation in this grid


def test_a_model_review_is_stored_shown_at_once_and_reflagged_for_the_side(
    qtbot: Any, make_window: Any, fake_engine: Any, tmp_path: Path
) -> None:
    fake_engine.summary_reply = model_reply
    window, doc_id, panel = window_with_contract(qtbot, make_window, tmp_path, evidence_only=False)
    panel.side.setText("Distributor")
    panel.set_checked(doc_id)
    run_review(qtbot, window)
    assert panel.grid.item(1, 0).text() == "New York (p.\u00a02)"
    assert panel.grid.item(2, 0).text() == "yes (p.\u00a03)"
    assert panel.grid.item(2, 0).background().color().name().upper() == "#FFC7CE"  # binds us: deviation
    panel.deviations_only.setChecked(True)
    assert [panel.row_hidden(row) for row in range(3)] == [True, True, False]
    calls = len(fake_engine.calls)
    panel.side.setText("Company")
    panel.side.editingFinished.emit()
    assert panel.grid.item(2, 0).background().color().name().upper() == "#C6EFCE"  # binds the other party
    assert panel.row_hidden(2)
    assert len(fake_engine.calls) == calls  # re-flagged without the model
    window.close()

    again = make_window()  # the same library: the stored review shows when the contract is picked
    panel = open_tab(qtbot, again, tmp_path, evidence_only=False)
    panel.set_checked(doc_id)
    assert panel.grid.item(1, 0).text() == "New York (p.\u00a02)"
    assert panel.result_at(1, 0) is not None and panel.result_at(1, 0).cached
    assert len(fake_engine.calls) == calls


def test_each_cell_shows_as_soon_as_its_item_is_finished(
    qtbot: Any, make_window: Any, fake_engine: Any, tmp_path: Path
) -> None:
    third_item = threading.Event()

    def held_reply(prompt: str) -> str:
        if "Question: Is a party restricted" in prompt:  # the third item waits until the test lets it go
            third_item.wait(timeout=120)
        return model_reply(prompt)

    fake_engine.summary_reply = held_reply
    window, doc_id, panel = window_with_contract(qtbot, make_window, tmp_path, evidence_only=False)
    panel.side.setText("Distributor")
    panel.set_checked(doc_id)
    assert panel.grid.item(1, 0).text() == "not reviewed"
    try:
        panel.review_button.click()
        qtbot.waitUntil(lambda: panel.grid.item(1, 0).text() == "New York (p.\u00a02)", timeout=60_000)
        assert window.reviews.job is not None and not window.reviews.job.done  # still running
        assert panel.grid.item(1, 0).background().color().name().upper() == "#C6EFCE"  # flagged at once
        assert panel.grid.item(0, 0).text().startswith("Acme Corp")
        assert panel.grid.item(2, 0).text() == "not reviewed"  # not finished: as it was
        law = panel.result_at(1, 0)
        assert law is not None and law.status == "answered" and law.flag == "match"
        assert panel.export_buttons["csv"].isEnabled()
        shown_while_running = [panel.grid.item(row, 0).text() for row in range(2)]
    finally:
        third_item.set()
    qtbot.waitUntil(lambda: window.reviews.job is None, timeout=60_000)
    assert [panel.grid.item(row, 0).text() for row in range(2)] == shown_while_running
    assert panel.grid.item(2, 0).text() == "yes (p.\u00a03)"
    assert panel.grid.item(2, 0).background().color().name().upper() == "#FFC7CE"


def test_stop_cancels_the_review(qtbot: Any, make_window: Any, fake_engine: Any, tmp_path: Path) -> None:
    fake_engine.summary_reply = model_reply
    window, doc_id, panel = window_with_contract(qtbot, make_window, tmp_path, evidence_only=False)
    fake_engine.piece_delay_s = 0.5  # each reply takes seconds: Stop comes first
    panel.set_checked(doc_id)
    panel.review_button.click()
    job = window.reviews.job
    qtbot.waitUntil(lambda: len(fake_engine.calls) >= 1, timeout=30_000)
    assert not panel.progress.isHidden()
    panel.progress.cancel_button.click()
    qtbot.waitUntil(lambda: window.reviews.job is None, timeout=30_000)
    assert job is not None and job.token.cancelled
    assert "review was stopped" in window.messages.history[-1].text
    assert panel.progress.isHidden() and panel.review_button.isEnabled()
    assert not any(panel.result_at(row, 0) and panel.result_at(row, 0).status == "answered" for row in range(3))


def test_a_contract_dropped_on_the_tab_is_added_then_reviewed(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    window = make_window()
    panel = open_tab(qtbot, window, tmp_path, evidence_only=True)
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(contract(tmp_path, "dropped.pdf")))])
    event = MagicMock()
    event.mimeData.return_value = mime
    panel.dropEvent(event)
    assert window.runner.ingests  # being added: the review waits for it
    assert window.reviews.job is None

    def third_found() -> bool:  # the run fills the column with "pending" items first
        result = panel.result_at(2, 0)
        return result is not None and result.status in ("evidence", "absent") and not window.runner.ingests

    qtbot.waitUntil(third_found, timeout=90_000)
    (doc_id,) = panel.checked_doc_ids()
    assert window.library.document(doc_id).path.endswith("dropped.pdf")
    assert panel.grid.item(2, 0).text() == "candidate: p.\u00a03"


def test_we_represent_is_kept_across_a_restart(qtbot: Any, make_window: Any) -> None:
    """Walk 2026-12-05, finding 14: the side typed in "We represent" was gone after a restart,
    and the side-dependent items lost their flags."""
    window = make_window()
    window.tabs.setCurrentWidget(window.review)
    window.review.side.setText("Distributor")
    window.review.side.editingFinished.emit()
    window.close()
    again = make_window()
    assert again.review.side_text() == "Distributor"
    assert again.reviews.panel.side_text() == "Distributor"


def test_the_checked_contracts_and_evidence_only_are_kept_across_a_restart(
    qtbot: Any, make_window: Any, tmp_path: Path
) -> None:
    """Walk 2026-12-06, finding 11: after a restart the Review tab had forgotten the checked
    contracts and "Evidence only"; a data room's table came back only after "All"."""
    window, doc_id, panel = window_with_contract(qtbot, make_window, tmp_path, evidence_only=True)
    panel.set_checked(doc_id)
    qtbot.wait(20)  # the list's change is kept when the event loop next runs
    window.close()
    again = make_window()
    assert again.review.evidence_only.isChecked()
    assert again.review.checked_doc_ids() == [doc_id]


def test_a_contract_being_added_is_not_called_interrupted(qtbot: Any, make_window: Any) -> None:
    """Walk 2026-12-05, finding 12: the Review tab's contract list said "interrupted · add it
    again to finish" for a document whose add was under way (the library said "embedding …")."""
    from tests.conftest import CONTRACTS

    window = make_window()
    job = window.add_paths([CONTRACTS / "collaboration-154p.pdf"])
    qtbot.waitUntil(lambda: any(r.state != "ready" for r in window.library.documents()), timeout=60_000)
    window.tabs.setCurrentWidget(window.review)
    (row,) = [window.review.contracts.item(n).text() for n in range(window.review.contracts.count())]
    assert "being added" in row and "interrupted" not in row
    with qtbot.waitSignal(job.finished, timeout=15_000):
        job.cancel()
    window.reviews.refresh_documents()
    (row,) = [window.review.contracts.item(n).text() for n in range(window.review.contracts.count())]
    assert "interrupted" in row  # stopped part-way: now it is


def test_the_table_of_contracts_fills_opens_a_contract_and_exports_a_workbook(
    qtbot: Any, make_window: Any, tmp_path: Path
) -> None:
    """Issue 46: the contracts as rows, each stored as it is reviewed; a title opens the contract,
    a cell its passage; the Excel export has a row per contract."""
    import openpyxl

    from summarizer.review.item_answers import stored_evidence_review

    window, doc_id, panel = window_with_contract(qtbot, make_window, tmp_path, evidence_only=True)
    panel.contracts_as_rows.setChecked(True)
    assert panel.views.currentWidget() is panel.table
    run_review(qtbot, window)
    model = panel.table.model()
    cells = ["supply", "candidate: p.\u00a01", "candidate: p.\u00a02", "candidate: p.\u00a03"]
    assert [model.index(0, column).data() for column in range(4)] == cells
    assert stored_evidence_review(window.library, doc_id, window.reviews.checklist) is not None

    window.select_document(None)
    rect = panel.table.visualRect(model.index(0, 0))
    qtbot.mouseClick(panel.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert window.doc_id == doc_id  # the title opened the contract
    window.viewer.go_to_page(1)
    rect = panel.table.visualRect(model.index(0, 2))  # Governing Law: its clause is on page 2
    qtbot.mouseClick(panel.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.waitUntil(lambda: window.viewer.current_page() == 2)

    window.reviews.choose_export_path = lambda fmt, _suggested: tmp_path / f"review.{fmt}"
    panel.export_buttons["xlsx"].click()
    sheet = openpyxl.load_workbook(tmp_path / "review.xlsx")["Contracts"]
    # evidence-only cells say so twice: a candidate passage (issue 56), and no model gave it (issue 57)
    assert [c.value for c in sheet[2]][2:] == [f"{cell} [evidence]" for cell in cells[1:]]


@pytest.mark.parametrize("shift", [0, -1])
def test_a_word_cell_names_and_opens_the_clause_of_the_models_quote(
    qtbot: Any, make_window: Any, fake_engine: Any, tmp_path: Path, shift: int
) -> None:
    """Issue 56, item 1: the model, reading each paragraph after its label, quotes 1.3 and cites
    [¶ 4] (or, ``shift`` -1, the paragraph before it: the quote decides); the cell, its stored
    result, the Markdown export and the citation jump name § 1.3 and ¶ 4, not the range 1.1–1.3
    its search evidence is named by."""
    from summarizer.review.item_answers import stored_review
    from tests.summarizer.review.test_word_answers import labelled_reader, services_docx

    def reader(prompt: str) -> str:
        reply = json.loads(labelled_reader(prompt))
        reply["pages"] = [page + shift for page in reply["pages"]]
        return json.dumps(reply)

    fake_engine.summary_reply = reader
    window = make_window()
    window.add_paths([services_docx(tmp_path)])
    doc_id = wait_for_document(qtbot, window)
    window.tabs.setCurrentWidget(window.review)
    checklist = tmp_path / "law.csv"
    checklist.write_text(
        "id,category,question,queries,type,expected\n"
        "law,Governing Law,Which law governs the agreement?,governed by the laws of,jurisdiction,Delaware\n"
    )
    assert window.reviews.use_checklist(str(checklist))
    panel = window.review
    panel.evidence_only.setChecked(False)
    panel.set_checked(doc_id)
    run_review(qtbot, window)
    assert panel.grid.item(0, 0).text() == "Delaware (§ 1.3 Jurisdiction, ¶ 4)"
    stored = stored_review(window.library, doc_id, window.reviews.checklist)
    assert stored is not None and stored.items[0].evidence[0].locator == "§ 1.3 Jurisdiction, ¶ 4"
    click_cell(qtbot, panel.grid, 0, 0)
    qtbot.waitUntil(lambda: window.viewer.word.reference != "")
    assert window.viewer.word.reference.startswith("§ 1.3 Jurisdiction, ¶ 4")
    window.reviews.choose_export_path = lambda fmt, _suggested: tmp_path / f"review.{fmt}"
    panel.export_buttons["md"].click()
    assert "Delaware (§ 1.3 Jurisdiction, ¶ 4)" in (tmp_path / "review.md").read_text()

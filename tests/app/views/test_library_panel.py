"""Adding documents: drop (mocked QDropEvent), broken files among good ones, passwords, removal."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any
from unittest.mock import MagicMock

from PySide6.QtCore import QUrl

from app.views.library_panel import KEY_ROLE
from summarizer.library.storage.store import Library
from tests.app.conftest import wait_for_document
from tests.conftest import CONTRACTS
from tests.docx_factory import comments, para, write_docx
from tests.summarizer.library.batches.conftest import data_room  # noqa: F401  (a fixture)


def drop_event(*paths: Path) -> MagicMock:
    """A stand-in for QDropEvent carrying file URLs (as Dangerzone's GUI tests do)."""
    event = MagicMock()
    event.mimeData.return_value.hasUrls.return_value = True
    event.mimeData.return_value.urls.return_value = [QUrl.fromLocalFile(str(p)) for p in paths]
    return event


def locked_copy(tmp_path: Path) -> Path:
    """endorsement-8p encrypted with the password "secret", as tmp_path/locked.pdf."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    for page in PdfReader(CONTRACTS / "endorsement-8p.pdf").pages:
        writer.add_page(page)
    writer.encrypt("secret", algorithm="AES-128")
    locked = tmp_path / "locked.pdf"
    with locked.open("wb") as handle:
        writer.write(handle)
    return locked


def test_dropping_a_pdf_indexes_it(qtbot: Any, make_window: Any) -> None:
    window = make_window()
    assert window.library_panel.empty.isVisible()
    with qtbot.waitSignal(window.library_panel.files_dropped, timeout=2000):
        window.library_panel.dropEvent(drop_event(CONTRACTS / "endorsement-8p.pdf"))
    doc_id = wait_for_document(qtbot, window)
    assert window.library_panel.state_of(doc_id) == "ready · 8 pages · PDF · contract"
    assert window.viewer.document.pageCount() == 8
    with Library.open() as library:
        assert library.document(doc_id).pages == 8


def test_dropping_a_pdf_anywhere_in_the_window_indexes_it(qtbot: Any, make_window: Any) -> None:
    window = make_window()
    with qtbot.waitSignal(window.files_dropped, timeout=2000):
        window.dropEvent(drop_event(CONTRACTS / "endorsement-8p.pdf"))
    doc_id = wait_for_document(qtbot, window)
    assert window.library_panel.state_of(doc_id) == "ready · 8 pages · PDF · contract"


def test_a_broken_pdf_does_not_stop_the_others(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    window = make_window()
    folder = tmp_path / "drop"
    folder.mkdir()
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4\nthis is not really a pdf")
    shutil.copy(CONTRACTS / "endorsement-8p.pdf", folder / "good.pdf")
    window.library_panel.dropEvent(drop_event(folder))  # a folder: every PDF in it, as one batch
    qtbot.waitUntil(lambda: not window.runner.ingests and window.doc_id is not None, timeout=90_000)
    # a folder's failures are told by their rows and summed up once (a data room's would fill the window)
    assert window.messages.history[-1].text == "Added drop: 1 added, 1 failed (their rows say why)."
    assert "broken.pdf" in window.library_panel._item(f"path:{folder / 'broken.pdf'}").toolTip()
    assert window.library_panel.state_of(
        f"path:{folder / 'broken.pdf'}",
    ).startswith("error")
    with Library.open() as library:
        assert [Path(d.path).name for d in library.documents()] == ["good.pdf"]


def test_an_encrypted_pdf_asks_for_its_password(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    locked = locked_copy(tmp_path)
    window = make_window()
    asked: list[tuple[str, bool]] = []
    answers = iter(["wrong", "secret"])
    window.ask_password = lambda path, wrong: asked.append((path, wrong)) or next(answers)
    window.add_paths([locked])
    qtbot.waitUntil(lambda: window.doc_id is not None and not window.runner.ingests, timeout=90_000)
    assert asked == [(str(locked), False), (str(locked), True)]
    assert window.viewer.document.pageCount() == 8  # the viewer got the password too
    doc_id = window.doc_id

    # After a restart the password is gone (never written to disk). Start-up does not prompt
    # (the window restores the selection before it is shown); selecting the document asks, a
    # cancelled prompt says what to do, and the right password shows it.
    window.close()
    prompts: list[tuple[str, bool]] = []
    replies = iter([None, "nope", "secret"])
    import app.main_window as main_window_module

    original = main_window_module.MainWindow._ask_password_dialog
    main_window_module.MainWindow._ask_password_dialog = lambda self, path, wrong: prompts.append(("start-up", wrong))
    try:
        again = make_window()
    finally:
        main_window_module.MainWindow._ask_password_dialog = original
    assert prompts == []
    assert not [m for m in again.messages.history if m.level == "error"]  # issue 24: no red banner at start
    assert "locked.pdf is encrypted" in again.viewer.placeholder.text()  # not "Drop PDF files here"
    again.ask_password = lambda path, wrong: prompts.append((path, wrong)) or next(replies)
    again.select_document(doc_id)
    assert prompts == [(str(locked), False)]
    assert again.viewer.document.pageCount() == 0
    assert "locked.pdf is encrypted" in again.viewer.placeholder.text()  # said there, calmly
    assert "password" in again.viewer.placeholder.text()
    assert not [m for m in again.messages.history if m.level == "error"]  # walk 2026-12-05: no red banner
    again.select_document(doc_id)
    assert prompts[1:] == [(str(locked), False), (str(locked), True)]
    assert again.viewer.document.pageCount() == 8


def test_removing_a_document_removes_it_and_its_conversation(qtbot: Any, make_window: Any) -> None:
    window = make_window()
    window.add_paths([CONTRACTS / "endorsement-8p.pdf"])
    doc_id = wait_for_document(qtbot, window)
    window.ask("What is this?")
    qtbot.waitUntil(lambda: window.answer_job is None and len(window.conversation.turns) == 1, timeout=20_000)
    window.confirm_remove = lambda title: True
    window.remove_document(doc_id)
    assert window.doc_id is None
    assert doc_id not in window.library_panel.row_keys()
    with Library.open() as library:
        assert library.documents() == []
        assert library.db.execute("SELECT COUNT(*) FROM conversation_turns").fetchone()[0] == 0


def test_an_encrypted_pdf_over_an_open_one_asks_once(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    """Finding: with another PDF open, the right password added the file, then a second prompt
    said "That password is not right", and again on every switch back (QtPdf dropped a password
    set while another file was loaded)."""
    locked = locked_copy(tmp_path)
    window = make_window()
    window.add_paths([CONTRACTS / "supply-16p.pdf"])
    qtbot.waitUntil(lambda: window.doc_id is not None and not window.runner.ingests, timeout=90_000)
    plain = window.doc_id
    assert window.viewer.document.pageCount() == 16
    asked: list[tuple[str, bool]] = []
    window.ask_password = lambda path, wrong: asked.append((path, wrong)) or "secret"
    window.open_paths([locked])  # File → Open: another is selected, so "is ready" and Show
    qtbot.waitUntil(lambda: not window.runner.ingests, timeout=90_000)
    assert window.doc_id == plain
    (ready,) = [item for item in window.message_bar.items() if item.message.key == "document-ready"]
    assert ready.action_button is not None
    ready.action_button.click()
    locked_id = window.doc_id
    assert locked_id not in (None, plain)
    assert asked == [(str(locked), False)]
    assert window.viewer.document.pageCount() == 8
    window.select_document(plain)
    window.select_document(locked_id)
    assert asked == [(str(locked), False)] and window.viewer.document.pageCount() == 8


def test_a_finished_add_never_takes_the_selection_away(qtbot: Any, make_window: Any) -> None:
    """Walk 2026-12-05, finding 1: while the 10-K was being added the user selected a contract
    and typed a question; when the 10-K was ready the window switched to it, and Ctrl+Enter
    asked the 10-K. A finished add selects the document only when none is selected; otherwise
    it says "… is ready." with a Show button."""
    window = make_window()
    window.add_paths([CONTRACTS / "endorsement-8p.pdf"])
    reading = wait_for_document(qtbot, window)  # nothing was selected: the first one is shown
    window.conversation.question.setPlainText("What is the governing law of this agreement?")
    window.open_paths([CONTRACTS / "supply-16p.pdf"])  # File → Open, `pagewise FILE.pdf`
    qtbot.waitUntil(lambda: not window.runner.ingests, timeout=90_000)
    assert window.doc_id == reading and window.viewer.document.pageCount() == 8
    assert window.conversation.question.toPlainText() == "What is the governing law of this agreement?"
    (ready,) = [item for item in window.message_bar.items() if item.message.key == "document-ready"]
    assert ready.message.level == "info" and ready.message.text == "supply-16p is ready."
    assert ready.action_button is not None and ready.action_button.text() == "Show"
    ready.action_button.click()
    assert window.doc_id not in (None, reading) and window.viewer.document.pageCount() == 16
    assert not [item for item in window.message_bar.items() if item.message.key == "document-ready"]


def test_a_file_being_added_is_listed_once(qtbot: Any, make_window: Any) -> None:
    """Finding: "indexing 17/154" beside "interrupted · add it again to finish" for the same PDF
    (the library holds a partial record while the file is read, and any refresh listed it)."""
    long_pdf = CONTRACTS / "collaboration-154p.pdf"
    window = make_window()
    job = window.add_paths([long_pdf])
    key = f"path:{long_pdf}"
    qtbot.waitUntil(lambda: (window.library_panel.state_of(key) or "").startswith("indexing"), timeout=60_000)
    with Library.open() as library:
        assert [d.state for d in library.documents()] == ["extracting"]  # the partial record exists
    window.documents.refresh()  # as when another file finishes meanwhile
    assert window.library_panel.row_keys() == [key]
    with qtbot.waitSignal(job.finished, timeout=15_000):
        job.cancel()
    (doc_id,) = window.library_panel.row_keys()  # cancelled: the partial record, once
    assert window.library_panel.state_of(doc_id) == "interrupted · add it again to finish"
    window.add_paths([long_pdf])  # added again: its row becomes the file's row again
    assert window.library_panel.row_keys() == [key]
    window.ingest.cancel()
    qtbot.waitUntil(lambda: not window.runner.ingests, timeout=15_000)


def test_a_failed_row_says_why_and_an_interrupted_one_can_be_added_again(
    qtbot: Any, make_window: Any, tmp_path: Path
) -> None:
    """Issue 24: a failed row showed the empty viewer; an interrupted document had only Remove."""
    window = make_window()
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.4\nthis is not really a pdf")
    window.add_paths([broken])
    qtbot.waitUntil(lambda: not window.runner.ingests, timeout=60_000)
    panel = window.library_panel
    assert panel.select(f"path:{broken}")
    assert window.viewer.placeholder.text().startswith("broken.pdf: error")
    assert panel.retry_file(f"path:{broken}") == str(broken)

    good = shutil.copy(CONTRACTS / "endorsement-8p.pdf", tmp_path / "good.pdf")
    window.add_paths([Path(good)])
    doc_id = wait_for_document(qtbot, window)
    with window.library.db.conn:  # committed: the ingest process writes next
        window.library.db.execute("UPDATE documents SET state = 'chunking' WHERE doc_id = ?", [doc_id])
    window.documents.refresh()
    assert panel.state_of(doc_id) == "interrupted · add it again to finish"
    assert panel.select(doc_id)
    with qtbot.waitSignal(panel.retry_requested) as retry:
        panel.retry_action.trigger()
    assert Path(retry.args[0]).name == "good.pdf"
    qtbot.waitUntil(lambda: not window.runner.ingests and window.library.document(doc_id).state == "ready",
                    timeout=60_000)  # fmt: skip


def test_library_rows_stay_in_place(qtbot: Any, make_window: Any) -> None:
    """Walk 2026-12-05, finding 23: re-opening a file moved its row to the end of the list, and
    the progress line that appears above the panes pushed the list down a row as a click landed."""
    window = make_window()
    for name in ("license-17p.pdf", "endorsement-8p.pdf", "supply-16p.pdf"):
        window.add_paths([CONTRACTS / name])
        qtbot.waitUntil(lambda: not window.runner.ingests, timeout=60_000)
    before = window.library_panel.row_keys()
    assert len(before) == 3
    list_widget = window.library_panel.list
    top = list_widget.mapTo(window, list_widget.rect().topLeft()).y()
    job = window.add_paths([CONTRACTS / "license-17p.pdf"])  # opened again
    assert window.ingest_progress.isVisible()
    assert list_widget.mapTo(window, list_widget.rect().topLeft()).y() == top  # the list did not move
    assert window.library_panel.row_keys()[0] == f"path:{CONTRACTS / 'license-17p.pdf'}"  # in its place
    with qtbot.waitSignal(job.finished, timeout=60_000):
        pass
    assert window.library_panel.row_keys() == before


def test_a_cancelled_password_prompt_gives_no_red_banner(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    """Walk 2026-12-05, finding 29: Cancel on the password prompt of an encrypted document gave a
    red error banner, though the viewer already said the same thing calmly."""
    locked = locked_copy(tmp_path)
    window = make_window()
    window.ask_password = lambda path, wrong: "secret"
    window.add_paths([locked])
    doc_id = wait_for_document(qtbot, window)
    window.close()
    again = make_window()
    again.select_document(None)
    again.ask_password = lambda path, wrong: None  # Cancel
    again.select_document(doc_id)
    assert again.viewer.document.pageCount() == 0
    assert "locked.pdf is encrypted" in again.viewer.placeholder.text()
    assert not [m.text for m in again.messages.history if m.level in ("error", "warning")]


def test_adding_an_interrupted_document_again_keeps_it_selected_and_ends_the_reindex_banner(
    qtbot: Any, make_window: Any
) -> None:
    """Walk 2026-12-05, finding 6: after "Add again to finish" the row above was selected (an
    encrypted document, whose password prompt opened and held the add), and "1 document was left
    half cut into passages [Reindex]" stayed for a document that was ready."""
    window = make_window()
    panel = window.library_panel
    window.add_paths([CONTRACTS / "endorsement-8p.pdf"])
    above = wait_for_document(qtbot, window)
    window.add_paths([CONTRACTS / "supply-16p.pdf"])
    qtbot.waitUntil(lambda: len(window.library.documents()) == 2 and not window.runner.ingests, timeout=90_000)
    (doc_id,) = [d.doc_id for d in window.library.documents() if d.doc_id != above]
    with window.library.db.conn:  # committed: the ingest process writes next
        window.library.db.execute("UPDATE documents SET state = 'chunking' WHERE doc_id = ?", [doc_id])
    window.documents.refresh()
    assert panel.row_keys() == [above, doc_id] and panel.select(doc_id)
    assert "interrupted while being added" in (window.reindexer.check() or "")
    selected: list[str | None] = []
    panel.document_selected.connect(selected.append)
    panel.retry_action.trigger()
    assert panel.selected_key() == f"path:{CONTRACTS / 'supply-16p.pdf'}"  # the same file's row, not the one above
    qtbot.waitUntil(lambda: not window.runner.ingests and window.library.document(doc_id).state == "ready",
                    timeout=60_000)  # fmt: skip
    assert panel.selected_key() == doc_id and window.doc_id == doc_id
    assert above not in selected  # the document above was never opened (nor asked its password)
    assert not [item for item in window.message_bar.items() if item.message.key == "reindex"]


def test_dropping_a_word_document_indexes_it_and_says_what_it_holds(
    qtbot: Any, make_window: Any, tmp_path: Path
) -> None:
    body = para("This Agreement is made between the Supplier and the Customer.") + (
        '<w:p><w:commentRangeStart w:id="0"/><w:ins w:id="1" w:author="Buyer" w:date="2026-01-01T00:00:00Z">'
        "<w:r><w:t>Time is of the essence.</w:t></w:r></w:ins></w:p>"
    )
    path = write_docx(tmp_path / "draft.docx", body, comments_xml=comments((0, "Counsel", "Agreed?")))
    window = make_window()
    with qtbot.waitSignal(window.library_panel.files_dropped, timeout=2000):
        window.library_panel.dropEvent(drop_event(path, tmp_path / "~$draft.docx"))
    doc_id = wait_for_document(qtbot, window)
    assert (
        window.library_panel.state_of(doc_id) == "ready · 2 paragraphs · Word · contract · 1 tracked change, 1 comment"
    )
    assert window.viewer.path is None  # no PDF: the Word view shows the stored paragraphs
    assert window.viewer.word.isVisibleTo(window.viewer)
    shown = window.viewer.word.browser.toPlainText()
    assert "This Agreement is made between the Supplier" in shown and "Time is of the essence." in shown


def test_showing_a_word_document_from_elsewhere_moves_the_library_selection(
    qtbot: Any, make_window: Any, tmp_path: Path
) -> None:
    """The library's highlighted row is the document shown, however it came to be shown: by the
    window's ``select_document`` (scripts, the command line) or by a citation of a Word document
    clicked while a PDF was selected (the Review grid's evidence)."""
    from app.services.answering import CitationView

    window = make_window()
    window.add_paths([CONTRACTS / "endorsement-8p.pdf"])
    pdf_id = wait_for_document(qtbot, window)
    path = write_docx(tmp_path / "draft.docx", para("This Agreement is made between the Supplier and the Customer."))
    window.open_paths([path])
    qtbot.waitUntil(lambda: not window.runner.ingests and len(window.library.documents()) == 2, timeout=90_000)
    word_id = next(r.doc_id for r in window.library.documents() if r.file_type == "docx")
    panel = window.library_panel

    def highlighted() -> list[str]:
        return [str(item.data(KEY_ROLE)) for item in panel.list.selectedItems()]

    assert window.doc_id == pdf_id and highlighted() == [pdf_id]
    window.select_document(word_id)
    assert window.doc_id == word_id and panel.selected_key() == word_id and highlighted() == [word_id]
    assert window.viewer.word.isVisibleTo(window.viewer)
    window.select_document(pdf_id)
    assert panel.selected_key() == pdf_id and highlighted() == [pdf_id]
    window.show_citation(CitationView(1, word_id, 1, None, "[¶ 1]", True))
    assert window.doc_id == word_id and highlighted() == [word_id]
    window.select_document(None)
    assert window.doc_id is None and highlighted() == []


def _document_keys(keys: list[str]) -> list[str]:
    return [k for k in keys if not k.startswith("path:")]


def test_a_data_rooms_folders_show_and_filter_the_library(
    qtbot: Any,
    make_window: Any,
    data_room: Path,  # noqa: F811
) -> None:
    window = make_window()
    panel = window.library_panel
    window.add_paths([data_room])
    qtbot.waitUntil(lambda: not window.runner.ingests, timeout=90_000)
    qtbot.waitUntil(lambda: len(_document_keys(panel.row_keys())) == 6, timeout=5000)
    assert panel.folder_filter.isVisible()
    folders = [panel.folder_filter.itemText(i) for i in range(panel.folder_filter.count())]
    assert folders == ["All folders", "archive", "archive/inner", "licensing", "licensing/2019", "services"]
    with Library.open() as library:
        by_folder = {r.folder: r.doc_id for r in library.documents()}
    assert panel.state_of(by_folder["licensing/2019"]) == "in licensing/2019 · ready · 3 pages · PDF · contract"
    panel.show_folder("licensing")  # a folder holds its sub-folders
    assert _document_keys(panel.shown_keys()) == [by_folder["licensing/2019"]]
    panel.show_folder("archive")
    assert sorted(_document_keys(panel.shown_keys())) == sorted([by_folder["archive"], by_folder["archive/inner"]])
    panel.show_folder("")
    assert len(_document_keys(panel.shown_keys())) == 6


def test_many_documents_are_removed_and_added_again_at_once(
    qtbot: Any,
    make_window: Any,
    data_room: Path,  # noqa: F811
) -> None:
    window = make_window()
    panel = window.library_panel
    window.add_paths([data_room])
    qtbot.waitUntil(lambda: not window.runner.ingests, timeout=90_000)
    qtbot.waitUntil(lambda: len(_document_keys(panel.row_keys())) == 6, timeout=5000)
    failed = [k for k in panel.row_keys() if k.startswith("path:")]
    assert len(failed) == 2
    for key in failed:  # the two files that could not be added, selected together: added again as one job
        panel._item(key).setSelected(True)
    window.ask_password = lambda path, wrong: None  # the encrypted one asks again; the user cancels
    panel.retry_action.trigger()
    assert len(window.runner.ingests) == 1 and sorted(window.runner.ingests[0].paths) == sorted(k[5:] for k in failed)
    qtbot.waitUntil(lambda: not window.runner.ingests, timeout=90_000)
    asked: list[str] = []
    window.confirm_remove = lambda title: asked.append(title) or True
    panel.list.clearSelection()
    for key in _document_keys(panel.row_keys()):
        panel._item(key).setSelected(True)
    panel.remove_action.trigger()
    assert asked == ["these 6 documents"], "one question for all of them"
    with Library.open() as library:
        assert library.documents() == []
    assert _document_keys(panel.row_keys()) == [] and not panel.folder_filter.isVisible()


def test_documents_with_the_same_title_show_their_file_names(qtbot: Any) -> None:
    """The walk of 2026-12-06, finding 8: two NDAs both read "Example Cover Page for Bonterms
    Mutual NDA" in the library, with nothing to tell them apart."""
    from app.views.library_panel import LibraryPanel
    from summarizer.library.storage.store import DocumentRecord

    panel = LibraryPanel()
    qtbot.addWidget(panel)
    title = "Example Cover Page for Bonterms Mutual NDA"
    panel.set_documents(
        [
            DocumentRecord("a", "/room/bonterms-nda.docx", title, 3, 9, "s1", "ready", "ready", [], [], []),
            DocumentRecord("b", "/room/nda-tracked.docx", title, 3, 9, "s2", "ready", "ready", [], [], []),
        ]
    )
    rows = [panel.list.item(n).text().split("\n")[0] for n in range(panel.list.count())]
    assert sorted(rows) == [f"{title} — bonterms-nda.docx", f"{title} — nda-tracked.docx"]


def test_long_names_fit_the_library_list_without_gaps_or_a_side_scroll_bar(qtbot: Any) -> None:
    """The walk of 2026-12-06, finding 12: CUAD's long names without spaces were cut with a
    horizontal scroll bar, and the rows were separated by blank gaps (about 8 of 40 fitted)."""
    from app.views.library_panel import LibraryPanel
    from summarizer.library.storage.store import DocumentRecord

    panel = LibraryPanel()
    qtbot.addWidget(panel)
    long = "EmeraldHealthBioceuticalsInc_20200218_1-A_EX1A-6 MAT CTRCT_11987205_EX1A-6 MAT CTRCT_Development Agreement"
    panel.set_documents(
        [
            DocumentRecord(f"d{n}", f"/room/{long}-{n}.pdf", f"{long} {n}", 3, 9, "s", "ready", "ready", [], [], [])
            for n in range(12)
        ]
    )
    panel.resize(240, 600)
    panel.show()
    qtbot.waitExposed(panel)
    line = panel.list.fontMetrics().lineSpacing()
    heights = {panel.list.visualItemRect(panel.list.item(n)).height() for n in range(3)}
    assert max(heights) <= 3 * line  # two lines (title, state), no blank gap
    assert not panel.list.horizontalScrollBar().isVisible()
    assert panel.list.item(0).toolTip().startswith(f"{long} 0\n")  # the title whole

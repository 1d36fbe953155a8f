"""The Compare tab with the fake engine: a comparison started from the library (two selected, or
Compare with…), the filters, next/previous change from the keyboard, both versions opened side by
side at the change's clause with the changed words highlighted (PDF pages and the Word view), save
and reopen, Markdown export, an identical pair, and a version still being added."""

from __future__ import annotations

import os
import re
import threading
from pathlib import Path
from typing import Any

from PySide6.QtCore import QPointF, Qt

from summarizer.compare.differences import ADDED, CHANGED, REMOVED
from summarizer.library.ingest import ingest_path
from summarizer.library.storage.store import Library
from tests.docx_factory import para, write_docx
from tests.pdf_factory import make_pdf
from tests.summarizer.compare.contract_text import ARTICLES, contract_lines, edited

EDITS = {"thirty (30)": "sixty (60)", "Buyer shall pay": "Buyer may pay", "taxes arising": "own taxes arising"}


def _pdf(path: Path, replacements: dict[str, str] | None = None, articles: Any = None) -> Path:
    return make_pdf(path, [contract_lines(articles or edited(replacements or {}))])  # type: ignore[list-item]


def _docx(path: Path, replacements: dict[str, str] | None = None) -> Path:
    return write_docx(path, "".join(para(line) for line in contract_lines(edited(replacements or {})) if line))


def _without_exclusions_and_with_audit() -> Any:
    """The contract with 3.2 removed and a clause 2.4 added."""
    articles = [(label, title, list(sections)) for label, title, sections in ARTICLES]
    articles[2][2].pop(1)
    articles[1][2].append(
        ("2.4", "Audit", "Supplier may audit the Buyer's records once a year on thirty days' notice.")
    )
    return articles


def add(window: Any, *paths: Path) -> list[str]:
    """Add the files to the window's library (in this order) and list them; their ids."""
    with Library.open() as library:
        ids = [ingest_path(library, path).doc_id for path in paths]
    window.documents.refresh()
    return ids


def select_rows(window: Any, doc_ids: list[str]) -> None:
    panel = window.library_panel
    panel.list.clearSelection()
    for doc_id in doc_ids:
        panel._item(doc_id).setSelected(True)


def compare_selected(qtbot: Any, window: Any, doc_ids: list[str]) -> Any:
    select_rows(window, doc_ids)
    window.library_panel.compare_action.trigger()
    qtbot.waitUntil(
        lambda: window.comparisons.job is None and window.comparisons.comparison is not None, timeout=30_000
    )
    return window.compare


def test_two_selected_documents_are_compared_older_first_and_swapped(
    qtbot: Any, make_window: Any, tmp_path: Path
) -> None:
    window = make_window()
    old_id, new_id = add(window, _pdf(tmp_path / "old.pdf"), _pdf(tmp_path / "new.pdf", EDITS))
    assert window.library_panel.selected_doc_ids() == []
    panel = compare_selected(qtbot, window, [new_id, old_id])
    assert (window.comparisons.old.doc_id, window.comparisons.new.doc_id) == (old_id, new_id), "the older is old"
    assert window.tabs.currentWidget() is panel
    assert window.document_pane.currentWidget() is window.compare_versions, "both versions side by side"
    assert panel.old_title.text() == "old" and panel.new_title.text() == "new"
    changes = window.comparisons.comparison.changes
    listed = [(changes[i].kind, changes[i].new.label) for i in panel.visible_changes()]
    assert listed == [(CHANGED, "2.1"), (CHANGED, "2.3")]
    groups = [panel.tree.topLevelItem(g).text(0) for g in range(panel.tree.topLevelItemCount())]
    assert groups == ["ARTICLE II PAYMENT"]
    fees = panel.tree.topLevelItem(0).child(0)
    assert fees.text(1) == "2.1 Fees" and fees.text(2) == "2.1 Fees"
    assert fees.text(3).startswith("a period changed"), fees.text(3)
    assert panel.current_change() == panel.visible_changes()[0], "the first change is selected"
    assert "<s" in panel.detail.toHtml() and "sixty" in panel.detail.toPlainText()

    panel.swap_button.click()
    qtbot.waitUntil(lambda: window.comparisons.job is None and window.comparisons.old.doc_id == new_id, timeout=30_000)
    assert window.comparisons.new.doc_id == old_id
    # Leaving the tab gives the document pane back to the selected document.
    window.tabs.setCurrentWidget(window.conversation)
    assert window.document_pane.currentWidget() is window.viewer


def test_compare_with_picks_the_other_version(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    window = make_window()
    old_id, new_id = add(window, _pdf(tmp_path / "old.pdf"), _pdf(tmp_path / "new.pdf", EDITS))
    offered: list[Any] = []
    window.comparisons.choose_other = lambda title, others: offered.append((title, others)) or old_id
    window.library_panel.select(new_id)
    window.library_panel._compare_current_with()
    qtbot.waitUntil(
        lambda: window.comparisons.comparison is not None and window.comparisons.job is None, timeout=30_000
    )
    assert offered == [("new", [(old_id, "old")])]
    assert (window.comparisons.old.doc_id, window.comparisons.new.doc_id) == (old_id, new_id)


def test_compare_with_offers_the_likeliest_other_version_first(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    """The walk of 2026-12-06, finding 7: "Compare with…" preselected the library's first document
    (the first of its list), not the likely other version."""
    window = make_window()
    lease_id, old_id, new_id = add(
        window, _pdf(tmp_path / "lease.pdf", articles=_without_exclusions_and_with_audit()),
        _pdf(tmp_path / "supply-v1.pdf"), _pdf(tmp_path / "supply-v2.pdf", EDITS),
    )  # fmt: skip
    # the lease first in the library's order, whatever the ids
    window.library.db.execute(
        "UPDATE documents SET added_at = '2026-01-01T00:00:00+00:00' WHERE doc_id = ?", [lease_id]
    )
    window.documents.refresh()
    offered: list[Any] = []
    window.comparisons.choose_other = lambda title, others: offered.append(others)  # cancelled: None
    window.library_panel.select(new_id)
    window.library_panel._compare_current_with()
    (others,) = offered
    assert [doc_id for doc_id, _title in others] == [old_id, lease_id]  # the first is preselected


def test_compare_with_and_nothing_selected_says_what_to_do(qtbot: Any, make_window: Any) -> None:
    window = make_window()
    assert window.comparisons.compare_with("") is None
    assert window.messages.history[-1].text.startswith("Select a document in the library first")


def test_one_selected_document_says_to_select_two(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    window = make_window()
    (only,) = add(window, _pdf(tmp_path / "old.pdf"))
    select_rows(window, [only])
    assert window.comparisons.compare_selected(window.library_panel.selected_doc_ids()) is None
    assert "Select two versions" in window.messages.history[-1].text


def test_filters_and_keyboard_next_previous(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    window = make_window()
    ids = add(
        window,
        _pdf(tmp_path / "old.pdf"),
        make_pdf(tmp_path / "new.pdf", [contract_lines(_without_exclusions_and_with_audit())]),
    )
    panel = compare_selected(qtbot, window, ids)
    changes = window.comparisons.comparison.changes
    kinds = [changes[i].kind for i in panel.visible_changes()]
    assert kinds == [ADDED, REMOVED]
    panel.kind.setCurrentIndex(panel.kind.findText("Removed"))
    assert [changes[i].kind for i in panel.visible_changes()] == [REMOVED]
    panel.kind.setCurrentIndex(0)
    panel.material_only.setChecked(True)
    assert all(changes[i].material for i in panel.visible_changes())
    panel.material_only.setChecked(False)

    first, second = panel.visible_changes()
    panel.tree.setFocus()
    panel.select_change(first)
    qtbot.keyClick(panel.tree, Qt.Key.Key_N)
    assert panel.current_change() == second
    qtbot.keyClick(panel.tree, Qt.Key.Key_N)
    assert panel.current_change() == second, "the last change stays selected"
    qtbot.keyClick(panel.tree, Qt.Key.Key_P)
    assert panel.current_change() == first
    window.next_change_action.trigger()  # F8, from anywhere in the window
    assert panel.current_change() == second
    window.previous_change_action.trigger()  # Shift+F8
    assert panel.current_change() == first
    assert window.next_change_action.shortcut().toString() == "F8"
    assert "F8" in panel.next_button.toolTip() and "Shift+F8" in panel.previous_button.toolTip()


def test_formatting_only_changes_are_hidden_by_default(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    window = make_window()
    ids = add(
        window, _pdf(tmp_path / "old.pdf"), _docx(tmp_path / "new.docx", {'"Products" means': "“Products” means"})
    )
    panel = compare_selected(qtbot, window, ids)
    assert panel.visible_changes() == []
    panel.show_formatting.setChecked(True)
    (shown,) = panel.visible_changes()
    assert window.comparisons.comparison.changes[shown].kind == "formatting"


def test_a_selected_change_opens_both_versions_at_the_clause_with_the_words_highlighted(
    qtbot: Any, make_window: Any, tmp_path: Path
) -> None:
    window = make_window()
    ids = add(window, _pdf(tmp_path / "old.pdf"), _docx(tmp_path / "new.docx", EDITS))
    panel = compare_selected(qtbot, window, ids)
    changes = window.comparisons.comparison.changes
    fees = next(i for i in panel.visible_changes() if changes[i].new.label == "2.1")
    panel.select_change(fees)
    old_viewer, new_viewer = window.compare_versions.old.viewer, window.compare_versions.new.viewer
    # The old version (a PDF): its pages, the changed words highlighted on page 1.
    assert old_viewer.path == tmp_path / "old.pdf"
    marked = [old_viewer.document.getAllText(h.page).text() for h in old_viewer.view.highlights]
    assert old_viewer.view.highlights and {h.page for h in old_viewer.view.highlights} == {0}
    assert len(old_viewer.view.highlights) == 3 and all(marked)  # "shall", "thirty", "30"
    # The new version (a Word document): its paragraphs, the clause's paragraph scrolled to, "may",
    # "sixty" and "60" highlighted.
    assert new_viewer.word.isVisible()
    highlighted = new_viewer.word.browser.toHtml()
    assert highlighted.count("background-color:#fff1a8") == 3
    assert "2.1 Fees" in window.compare_versions.new.caption.text()
    assert new_viewer.word.focus is not None


def test_save_and_reopen_a_comparison(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    window = make_window()
    ids = add(window, _pdf(tmp_path / "old.pdf"), _pdf(tmp_path / "new.pdf", EDITS))
    panel = compare_selected(qtbot, window, ids)
    shown = window.comparisons.comparison
    saved_id = window.comparisons.save()
    assert saved_id is not None
    assert panel.saved.count() == 2 and panel.saved.itemData(1) == saved_id
    assert panel.saved.itemText(1).startswith("old → new")

    # A new window (the library reopened) lists it and shows it as it was.
    window.close()
    again = make_window()
    again.compare.saved.activated.emit(1)
    assert again.comparisons.comparison is not None
    assert again.comparisons.comparison.changes == shown.changes
    assert again.compare.visible_changes() == panel.visible_changes()
    assert again.tabs.currentWidget() is again.compare
    assert again.compare.message.text() == shown.message

    # Its documents removed, it still reopens; the viewers say where a version went.
    for doc_id in ids:
        again.library.remove(doc_id)
    again.compare.saved.activated.emit(1)
    assert again.comparisons.comparison.changes == shown.changes
    assert "no longer in the library" in again.compare_versions.old.viewer.placeholder.text()

    assert again.comparisons.delete_saved()
    assert again.compare.saved.count() == 1 and not again.compare.saved.isEnabled()

    out = tmp_path / "changes.md"
    again.comparisons.choose_export_path = lambda _suggested: out
    assert again.comparisons.export_markdown() == out
    assert "~~thirty~~ **sixty**" in out.read_text(encoding="utf-8")


def test_identical_files_say_identical(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    window = make_window()
    ids = add(window, _pdf(tmp_path / "old.pdf"), _docx(tmp_path / "same.docx"))
    panel = compare_selected(qtbot, window, ids)
    assert panel.message.text().startswith("The two versions are identical")
    assert panel.tree.topLevelItemCount() == 0 and not panel.next_button.isEnabled()


def test_unrelated_documents_say_they_are_different_documents(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    window = make_window()
    garden = [f"{n}. Garden{n}. Water the tomato plants at dawn in week {n}." for n in range(1, 9)]
    ids = add(window, _pdf(tmp_path / "old.pdf"), make_pdf(tmp_path / "garden.pdf", [garden]))
    panel = compare_selected(qtbot, window, ids)
    assert "different documents" in panel.message.text()
    assert panel.tree.topLevelItemCount() == 0


def test_a_version_still_being_added_is_waited_for(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    window = make_window()
    old_id, new_id = add(window, _pdf(tmp_path / "old.pdf"), _pdf(tmp_path / "new.pdf", EDITS))
    window.library.db.execute("UPDATE documents SET state = 'embedding' WHERE doc_id = ?", [new_id])
    window.runner.ingests.append(object())  # its add under way
    try:
        assert window.comparisons.compare(old_id, new_id) is None
        assert "still being added: the comparison starts when it is in" in window.messages.history[-1].text
        window.comparisons.document_added(old_id)  # another document came in: still waiting
        assert window.comparisons.job is None
    finally:
        window.runner.ingests.pop()
    window.library.db.execute("UPDATE documents SET state = 'ready' WHERE doc_id = ?", [new_id])
    window.comparisons.document_added(new_id)
    qtbot.waitUntil(
        lambda: window.comparisons.comparison is not None and window.comparisons.job is None, timeout=30_000
    )
    assert (window.comparisons.old.doc_id, window.comparisons.new.doc_id) == (old_id, new_id)


def test_a_version_not_fully_added_says_to_add_it_again(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    window = make_window()
    old_id, new_id = add(window, _pdf(tmp_path / "old.pdf"), _pdf(tmp_path / "new.pdf", EDITS))
    window.library.db.execute("UPDATE documents SET state = 'embedding' WHERE doc_id = ?", [new_id])
    assert window.comparisons.compare(old_id, new_id) is None
    assert "was not fully added: add it again" in window.messages.history[-1].text
    assert window.comparisons.waiting is None


def test_old_and_new_by_when_they_were_added_else_by_their_files(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    window = make_window()
    draft = _pdf(tmp_path / "draft v10.pdf", EDITS)
    first = _pdf(tmp_path / "draft v2.pdf")
    os.utime(draft, (first.stat().st_mtime + 5, first.stat().st_mtime + 5))
    draft_id, first_id = add(window, draft, first)  # in one go, the later draft's read done first
    order = window.comparisons.in_library_order
    assert order([draft_id, first_id]) == [first_id, draft_id], "added together: the older file first"
    os.utime(draft, (first.stat().st_mtime, first.stat().st_mtime))
    assert order([draft_id, first_id]) == [first_id, draft_id], "same time: v2 before v10"
    window.library.db.execute(
        "UPDATE documents SET added_at = '2026-01-01T10:00:00+00:00' WHERE doc_id = ?", [draft_id]
    )
    window.library.db.execute(
        "UPDATE documents SET added_at = '2026-01-01T10:05:00+00:00' WHERE doc_id = ?", [first_id]
    )
    assert order([first_id, draft_id]) == [draft_id, first_id], "added minutes apart: the one added first"


def test_stop_ends_a_comparison_without_showing_it(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    window = make_window()
    ids = add(window, _pdf(tmp_path / "old.pdf"), _pdf(tmp_path / "new.pdf", EDITS))
    release = threading.Event()
    busy = window.runner.submit_llm("answering", lambda _job: release.wait(30))  # the worker thread is busy
    job = window.comparisons.compare(*ids)
    assert job is not None and window.compare.progress.isVisibleTo(window.compare)
    window.compare.progress.cancel_button.click()  # Stop
    release.set()
    qtbot.waitUntil(lambda: busy.done and job.done, timeout=30_000)
    assert window.comparisons.comparison is None and window.comparisons.job is None
    assert window.messages.history[-1].text == "The comparison was stopped."
    assert not window.compare.progress.isVisibleTo(window.compare)


def test_the_word_redline_button_writes_each_difference_as_a_tracked_change(
    qtbot: Any, make_window: Any, tmp_path: Path
) -> None:
    """The Compare tab's "Word redline…" writes what `pagewise compare --format docx` writes: the
    period changed is a deletion of "thirty (30)" and an insertion of "sixty (60)" by Pagewise."""
    import zipfile

    window = make_window()
    ids = add(window, _docx(tmp_path / "old.docx"), _docx(tmp_path / "new.docx", EDITS))
    panel = compare_selected(qtbot, window, ids)
    assert panel.redline_button.isEnabled()
    out = tmp_path / "redline.docx"
    suggested: list[str] = []
    window.comparisons.choose_export_path = lambda name: suggested.append(name) or out
    panel.redline_button.click()
    assert suggested and suggested[0].endswith("redline.docx")
    body = zipfile.ZipFile(out).read("word/document.xml").decode()
    deleted = "".join(re.findall(r"<w:del\b.*?</w:del>", body, flags=re.S))
    inserted = "".join(re.findall(r"<w:ins\b.*?</w:ins>", body, flags=re.S))
    assert "thirty" in deleted and "sixty" in inserted
    assert 'w:author="Pagewise"' in body
    # the Compare menu has it too (the walk of 2026-12-06, finding 23)
    compare_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Compare")
    out.unlink()
    next(a for a in compare_menu.actions() if a.text() == "Export as Word &redline…").trigger()
    assert out.exists()


def _with_running_header(path: Path, replacements: dict[str, str] | None = None) -> Path:
    """The contract on pages of 6 body lines under a running header, a page number below."""
    body = [line for line in contract_lines(edited(replacements or {})) if line]
    chunks = [body[k : k + 6] for k in range(0, len(body), 6)]
    pages = [["CONFIDENTIAL TREATMENT REQUESTED", *chunk, f"- {n} -"] for n, chunk in enumerate(chunks, 1)]
    return make_pdf(path, pages)  # type: ignore[arg-type]


def test_the_changed_words_are_highlighted_on_pages_with_a_running_header(
    qtbot: Any, make_window: Any, tmp_path: Path
) -> None:
    """A PDF's clauses are cut with its running headers and page numbers blanked (issue 56), and
    their offsets are in that text: read in the page text with the header, the highlight fell
    words before the change ("for" for "30" on LibreOffice's pages of a Common Paper form)."""
    window = make_window()
    ids = add(window, _with_running_header(tmp_path / "old.pdf"), _with_running_header(tmp_path / "new.pdf", EDITS))
    panel = compare_selected(qtbot, window, ids)
    changes = window.comparisons.comparison.changes
    fees = next(i for i in panel.visible_changes() if changes[i].new.label == "2.1")
    panel.select_change(fees)
    for pane, words in ((window.compare_versions.old, {"shall", "thirty", "30"}),
                        (window.compare_versions.new, {"may", "sixty", "60"})):  # fmt: skip
        document, highlights = pane.viewer.document, pane.viewer.view.highlights
        marked = {  # the words under each highlighted rectangle
            document.getSelection(
                h.page, QPointF(r.left() + 0.2, r.center().y()), QPointF(r.right() - 0.2, r.center().y())
            )
            .text()
            .strip(" ()")
            for h in highlights
            for r in h.rects
        }
        assert len(highlights) == 3 and marked == words, marked

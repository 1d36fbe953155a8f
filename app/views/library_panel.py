"""The library panel: the documents with their state, drag-and-drop of PDFs and folders.

A document added from a folder or a .zip (a data room) shows its folder in its row, and once the
library holds any such, a folder list above the rows filters by it (a folder holds its
sub-folders). Rows can be selected together (Shift/Ctrl+click): removing or adding again then
applies to all of them at once.

Rows are keyed by ``doc_id`` once a document is in the library, and by its path while it
is waiting, being read, or failed (a file that could not be added has no ``doc_id``). A file
is listed once: while its path has a row, the library's (partial) record of it is not shown.
The panel only shows state; the controllers in ``app.controllers`` decide what happens.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from PySide6.QtCore import QItemSelectionModel, QPoint, QSignalBlocker, Qt, Signal
from PySide6.QtGui import QAction, QDragEnterEvent, QDragMoveEvent, QDropEvent, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QVBoxLayout,
    QWidget,
)

from app.widgets.job_progress import plural
from summarizer.library.reading.file_type import is_document_name
from summarizer.library.storage.store import DocumentRecord

KEY_ROLE = Qt.ItemDataRole.UserRole
STATE_ROLE = Qt.ItemDataRole.UserRole + 1
FILE_ROLE = Qt.ItemDataRole.UserRole + 2  # the resolved file path (the library stores it resolved)
FOLDER_ROLE = Qt.ItemDataRole.UserRole + 3  # a document's folder in the folder or zip it came from
ALL_FOLDERS = "All folders"
ONLY = QItemSelectionModel.SelectionFlag.ClearAndSelect

STATUS_TEXT = {
    "indexed": "ready",
    "partial": "ready · some pages unreadable",
    "needs_ocr": "needs OCR (no text layer)",
    "unchanged": "ready",
}


# The document's kind (summarizer/library/reading/document_kind.py); "other" and not yet known say nothing.
KIND_TEXT = {"contract": "contract", "filing": "filing or report"}


def record_state(record: DocumentRecord) -> str:
    if record.state != "ready":
        return "interrupted · add it again to finish"
    status = STATUS_TEXT.get(record.status, record.status)
    if record.file_type == "docx":
        # A Word document's "pages" are its paragraphs and table rows (summarizer/library/reading/docx_extract.py).
        state = f"{status} · {plural(record.pages, 'paragraph')} · Word"
    else:
        state = f"{status} · {plural(record.pages, 'page')} · PDF"
    if record.kind in KIND_TEXT:
        state += f" · {KIND_TEXT[record.kind]}"
    review = [plural(n, word) for n, word in ((record.tracked_changes, "tracked change"), (record.comments, "comment"))]
    if record.tracked_changes or record.comments:
        state += " · " + ", ".join(
            r for r, n in zip(review, (record.tracked_changes, record.comments), strict=True) if n
        )
    if record.folder:  # first: in a data room it tells rows apart better than their long names
        state = f"in {record.folder} · {state}"
    # "3 pages read by OCR: 1-3" (summarizer/library/reading/ocr_pages.py): the count shows in the row.
    read = next((w.split()[0] for w in record.warnings if " read by OCR" in w), None)
    if read is not None:
        state += f" · {read} read by OCR"
        if any("hard to read" in w for w in record.warnings):
            state += " · some hard to read"
    if record.words_only:  # no vectors: the embedding model could not be loaded (its tooltip says why)
        state += " · searchable by words only"
    return state


def local_pdf_paths(event: QDropEvent | QDragEnterEvent | QDragMoveEvent) -> list[Path]:
    mime = event.mimeData()
    if mime is None or not mime.hasUrls():
        return []
    paths = [Path(url.toLocalFile()) for url in mime.urls() if url.isLocalFile()]
    return [p for p in paths if p.is_dir() or is_document_name(p.name)]


class PdfDropTarget:
    """Accepts local PDF files dropped on the widget and emits ``files_dropped`` with their paths
    (mixed into a QWidget that declares ``files_dropped = Signal(list)`` and accepts drops)."""

    files_dropped: Any

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if local_pdf_paths(event):
            event.acceptProposedAction()

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        if local_pdf_paths(event):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        paths = local_pdf_paths(event)
        if paths:
            event.acceptProposedAction()
            self.files_dropped.emit(paths)


class LibraryPanel(PdfDropTarget, QWidget):
    document_selected = Signal(object)  # doc_id or None
    files_dropped = Signal(list)  # list[Path]
    remove_requested = Signal(str)  # doc_id, or a failed row's path
    remove_many_requested = Signal(list)  # several rows' keys, selected together
    retry_requested = Signal(str)  # the file of an interrupted document or a failed row: add it again
    retry_many_requested = Signal(list)  # several such files, added again as one batch
    file_selected = Signal(str)  # a row not in the library (failed, waiting) was selected: what it says
    compare_requested = Signal(list)  # the doc_ids of the documents selected together (two)
    compare_with_requested = Signal(str)  # doc_id: compare it with another, to be picked

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAcceptDrops(True)
        self._places: dict[str, int] = {}  # a file's row while it is added again (its real path: row)
        self._by_key: dict[str, QListWidgetItem] = {}  # every row by its key
        self.list = QListWidget(self)
        self.list.setObjectName("library-list")
        self._select_when_listed: str | None = None  # a document whose add the user was watching
        self._menu_key: str | None = None  # the row the context menu was opened on
        self.list.setWordWrap(True)
        self.list.setAlternatingRowColors(True)
        # Ctrl/Shift+click selects more than one: two versions to compare. The current row is the
        # document shown; the others are only selected.
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.list.customContextMenuRequested.connect(self._menu)
        self.list.currentItemChanged.connect(self._current_changed)
        self.list.setAcceptDrops(False)  # drops go to the panel
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.folder_filter = QComboBox(self)
        self.folder_filter.setObjectName("library-folder-filter")
        self.folder_filter.setToolTip("Show the documents of one folder of the data room")
        self.folder_filter.currentIndexChanged.connect(self._apply_filter)
        self.folder_filter.hide()
        self.empty = QLabel(
            "No documents yet.\n\nDrop PDF or Word files or folders\nhere, or use File → Open (Ctrl+O)."
        )
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setWordWrap(True)
        self.empty.setObjectName("library-empty")
        title = QLabel("<b>Library</b>")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(title)
        layout.addWidget(self.folder_filter)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.empty, 1)
        remove = QAction("Remove from library", self)
        remove.setShortcut(QKeySequence.StandardKey.Delete)
        remove.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        remove.triggered.connect(self._remove_current)
        self.addAction(remove)
        self.remove_action = remove
        retry = QAction("Add again to finish", self)
        retry.triggered.connect(self._retry_current)
        self.retry_action = retry
        self.compare_action = QAction("Compare these two versions", self)
        self.compare_action.setToolTip(
            "Compare the two selected documents clause by clause (the older added is the old one)"
        )
        self.compare_action.triggered.connect(lambda: self.compare_requested.emit(self.selected_doc_ids()))
        self.compare_with_action = QAction("Compare with…", self)
        self.compare_with_action.triggered.connect(self._compare_current_with)
        self._refresh_empty()

    # Rows

    def _item(self, key: str) -> QListWidgetItem | None:
        # By key, not by a walk over the rows: each of a 449-contract library's rows looked up the
        # others, and a list refresh took 250 ms of the GUI thread (issue 46).
        return self._by_key.get(key)

    def _take_row(self, item: QListWidgetItem) -> None:
        self._by_key.pop(str(item.data(KEY_ROLE)), None)
        self.list.takeItem(self.list.row(item))

    def _set(self, key: str, title: str, state: str, tooltip: str = "", file: str = "") -> QListWidgetItem:
        item = self._item(key)
        if item is None:
            item = QListWidgetItem()
            item.setData(KEY_ROLE, key)
            self._by_key[key] = item
            # A file added again takes the place its row had, and its document row takes it back
            # (walk 2026-12-05: re-opening a file moved its row to the end of the list).
            place = self._places.pop(file, None) if file else None
            if place is not None and place < self.list.count():
                self.list.insertItem(place, item)
            else:
                self.list.addItem(item)
        item.setText(f"{title}\n    {state}")
        item.setData(STATE_ROLE, state)
        item.setData(FILE_ROLE, file)
        item.setToolTip(tooltip or title)
        self._refresh_empty()
        return item

    def _rows_of_file(self, file: str, *, in_library: bool) -> list[QListWidgetItem]:
        items = (self.list.item(row) for row in range(self.list.count()))
        return [i for i in items if i.data(FILE_ROLE) == file and i.data(KEY_ROLE).startswith("path:") != in_library]

    def _refresh_empty(self) -> None:
        has_rows = self.list.count() > 0
        self.list.setVisible(has_rows)
        self.empty.setVisible(not has_rows)

    def row_keys(self) -> list[str]:
        return [self.list.item(r).data(KEY_ROLE) for r in range(self.list.count())]

    def state_of(self, key: str) -> str | None:
        item = self._item(key)
        return None if item is None else str(item.data(STATE_ROLE))

    def set_documents(self, records: list[DocumentRecord]) -> None:
        """Show the library's documents (rows of waiting or failed files are kept)."""
        current = self._select_when_listed or self.selected_key()
        files_being_added = {str(i.data(FILE_ROLE)) for k, i in self._by_key.items() if k.startswith("path:")}
        being_added = {r.path for r in records if r.path in files_being_added}
        wanted = {r.doc_id for r in records if r.path not in being_added}
        for key, item in list(self._by_key.items()):
            if not key.startswith("path:") and key not in wanted:
                self._take_row(item)
        for record in records:
            if record.doc_id in wanted:
                item = self._set(record.doc_id, record.title or Path(record.path).name, record_state(record),
                          f"{record.path}\n{plural(record.pages, 'page')} · {plural(record.passages, 'passage')}"
                          + "".join(f"\n{w}" for w in record.warnings), record.path)  # fmt: skip
                item.setData(FOLDER_ROLE, record.folder)
        self._refresh_folders()
        if current and self.select(current) and current == self._select_when_listed:
            self._select_when_listed = None
        self._refresh_empty()

    def set_state(self, key: str, state: str) -> None:
        item = self._item(key)
        if item is not None:
            title = item.text().split("\n", 1)[0]
            item.setText(f"{title}\n    {state}")
            item.setData(STATE_ROLE, state)

    def set_file(self, path: str, state: str, tooltip: str = "") -> None:
        """A row for a file not (yet) in the library: waiting, indexing or failed. It stands for
        the file's partial record in the library too, if there is one."""
        file = os.path.realpath(path)
        in_library = self._rows_of_file(file, in_library=True)
        if in_library and self._item(f"path:{path}") is None:
            self._places[file] = self.list.row(in_library[0])
        item = self._set(f"path:{path}", Path(path).name, state, tooltip or path, file)
        for row in in_library:
            self._take(row, successor=item)
        if item is self.list.currentItem():  # the viewer says what the selected row says, as it changes
            self._say_file_state(item)

    def file_state(self, path: str) -> str | None:
        """What the row of ``path`` (a file being added, or failed) says; None when it has none."""
        rows = self._rows_of_file(os.path.realpath(path), in_library=False)
        return str(rows[0].data(STATE_ROLE)) if rows else None

    def remove_key(self, key: str) -> None:
        item = self._item(key)
        if item is not None:
            if key.startswith("path:"):  # its document's row (added next) goes where it was
                self._places[str(item.data(FILE_ROLE))] = self.list.row(item)
            self._take_row(item)
        self._refresh_empty()

    def finish_file(self, path: str, doc_id: str) -> None:
        """``path`` was added as ``doc_id``: its row goes, and if it was the selected one, the
        document's row is selected when the library lists it (``set_documents``), not a neighbour."""
        item = self._item(f"path:{path}")
        if item is None:
            return
        if item is self.list.currentItem():
            self._select_when_listed = doc_id
        self._places[str(item.data(FILE_ROLE))] = self.list.row(item)  # its document's row goes there
        self._take(item)
        self._refresh_empty()

    def _take(self, item: QListWidgetItem, successor: QListWidgetItem | None = None) -> None:
        """Remove ``item``'s row. When it is the selected one, Qt would select a neighbour, and a
        neighbour selected by no one opens its document (an encrypted one asked for its password,
        walk 2026-12-05 finding 6): the selection moves to ``successor`` (the same file's new
        row) or to none, silently, as the document shown stays the same."""
        if item is self.list.currentItem():
            blocker = QSignalBlocker(self.list)
            if successor is not None:
                self.list.setCurrentItem(successor, ONLY)
            else:
                self.list.setCurrentRow(-1)
            blocker.unblock()
        self._take_row(item)

    # Folders

    def _refresh_folders(self) -> None:
        """The folder list: every folder of the documents and the folders above them."""
        folders: set[str] = set()
        for row in range(self.list.count()):
            folder = self.list.item(row).data(FOLDER_ROLE)
            while folder:
                folders.add(folder)
                folder = folder.rpartition("/")[0]
        chosen = self.folder_filter.currentData()
        wanted = [ALL_FOLDERS, *sorted(folders)]
        if [self.folder_filter.itemText(i) for i in range(self.folder_filter.count())] != wanted:
            blocker = QSignalBlocker(self.folder_filter)
            self.folder_filter.clear()
            self.folder_filter.addItem(ALL_FOLDERS, "")
            for folder in sorted(folders):
                self.folder_filter.addItem(folder, folder)
            index = self.folder_filter.findData(chosen) if chosen in folders else 0
            self.folder_filter.setCurrentIndex(max(0, index))
            blocker.unblock()
        self.folder_filter.setVisible(bool(folders))
        self._apply_filter()

    def show_folder(self, folder: str) -> None:
        """Show only the documents of ``folder`` (and its sub-folders); "" shows all."""
        index = self.folder_filter.findData(folder)
        self.folder_filter.setCurrentIndex(max(0, index))

    def _apply_filter(self) -> None:
        chosen = self.folder_filter.currentData() or ""
        for row in range(self.list.count()):
            item = self.list.item(row)
            folder = str(item.data(FOLDER_ROLE) or "")
            shown = not chosen or folder == chosen or folder.startswith(chosen + "/")
            item.setHidden(not shown and not str(item.data(KEY_ROLE)).startswith("path:"))

    def shown_keys(self) -> list[str]:
        return [self.list.item(r).data(KEY_ROLE) for r in range(self.list.count()) if not self.list.item(r).isHidden()]

    # Selection

    def selected_doc_ids(self) -> list[str]:
        """The library documents selected (with Ctrl/Shift+click), in list order."""
        keys = [str(item.data(KEY_ROLE)) for item in self.list.selectedItems()]
        order = self.row_keys()
        return sorted((k for k in keys if not k.startswith("path:")), key=order.index)

    def selected_keys(self) -> list[str]:
        """The selected rows' keys in list order (the current row alone when none is selected)."""
        items = sorted(self.list.selectedItems(), key=self.list.row)
        keys = [str(i.data(KEY_ROLE)) for i in items if not i.isHidden()]
        current = self.selected_key()
        return keys or ([current] if current else [])

    def selected_key(self) -> str | None:
        item = self.list.currentItem()
        return None if item is None else str(item.data(KEY_ROLE))

    def select(self, key: str) -> bool:
        item = self._item(key)
        if item is None:
            return False
        self.list.setCurrentItem(item, ONLY)  # the one selected row (rows can be selected together)
        return True

    def mark_selected(self, key: str | None) -> None:
        """Highlight ``key``'s row (none: no row) without saying so: the document it names is
        already shown, by a script, the command line or a citation of another document (walk of
        issue 43: the highlight stayed on the PDF while a Word document was shown)."""
        item = self._item(key) if key else None
        current = self.list.currentItem()
        on_a_file = current is not None and str(current.data(KEY_ROLE)).startswith("path:")
        if item is current or (item is None and on_a_file):
            return  # a file's row (not in the library yet) selected shows no document: it stays
        blocker = QSignalBlocker(self.list)
        if item is not None:
            self.list.setCurrentItem(item)
        else:
            self.list.setCurrentRow(-1)
        blocker.unblock()

    def _current_changed(self, current: QListWidgetItem | None, _previous: QListWidgetItem | None) -> None:
        key = None if current is None else str(current.data(KEY_ROLE))
        self.document_selected.emit(None if key is None or key.startswith("path:") else key)
        if current is not None:
            self._say_file_state(current)

    def _say_file_state(self, item: QListWidgetItem) -> None:
        """``file_selected`` with what the row of a file not in the library says (none for a document's row)."""
        key = str(item.data(KEY_ROLE))
        if key.startswith("path:"):
            state = str(item.data(STATE_ROLE))
            reason = item.toolTip()
            self.file_selected.emit(f"{Path(key[5:]).name}: {state}" + (f"\n\n{reason}" if reason != key[5:] else ""))

    def retry_file(self, key: str) -> str | None:
        """The file to add again for the row ``key`` (an interrupted document, or a file that
        failed), or None when the row is neither."""
        item = self._item(key)
        if item is None:
            return None
        state = str(item.data(STATE_ROLE))
        if key.startswith("path:"):
            return key[5:] if state.startswith(("error", "encrypted")) else None
        return str(item.data(FILE_ROLE)) if state.startswith("interrupted") else None

    # Menu

    def _menu(self, position: QPoint) -> None:
        item = self.list.itemAt(position)
        if item is None:
            return
        two = item.isSelected() and len(self.selected_doc_ids()) == 2
        if not item.isSelected():
            self.list.setCurrentItem(item, ONLY)
        menu = QMenu(self)
        key = str(item.data(KEY_ROLE))
        keys = self.selected_keys()
        retry = [f for k in keys if (f := self.retry_file(k))]
        if len(keys) > 1:
            if retry:
                self.retry_action.setText(f"Add {len(retry)} again")
                menu.addAction(self.retry_action)
            self.remove_action.setText(f"Remove {len(keys)} from library")
        else:
            self.remove_action.setText("Remove from library")
            if self.retry_file(key):
                self.retry_action.setText("Try again" if key.startswith("path:") else "Add again to finish")
                menu.addAction(self.retry_action)
        if two:
            menu.addAction(self.compare_action)
        if not key.startswith("path:"):
            self._menu_key = key
            menu.addAction(self.compare_with_action)
        menu.addSeparator()
        menu.addAction(self.remove_action)
        menu.exec(self.list.viewport().mapToGlobal(position))

    def _compare_current_with(self) -> None:
        key = self._menu_key or self.selected_key()
        if key is not None and not key.startswith("path:"):
            self.compare_with_requested.emit(key)

    def _retry_current(self) -> None:
        files = [f for k in self.selected_keys() if (f := self.retry_file(k))]
        if len(files) > 1:
            self.retry_many_requested.emit(files)
        elif files:
            self.retry_requested.emit(files[0])

    def _remove_current(self) -> None:
        keys = self.selected_keys()
        if len(keys) > 1:
            self.remove_many_requested.emit(keys)
        elif keys:
            self.remove_requested.emit(keys[0])

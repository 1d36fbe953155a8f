"""Which document is selected (the library, the viewer and the tabs follow it), a document added
shown or announced, and removing one."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from app.controllers.context import JobContext, UsesJobContext
from app.controllers.ingest import IngestController
from app.controllers.open_document import OpenDocumentController
from app.views.library_panel import LibraryPanel
from inference.errors import PagewiseError
from summarizer.library.storage.store import DocumentRecord


def title_of(record: DocumentRecord) -> str:
    return record.title or Path(record.path).name


class DocumentsController(UsesJobContext, QObject):
    selected = Signal(object)  # the DocumentRecord now shown, or None
    removing = Signal(str)  # doc_id, before it leaves the library

    def __init__(
        self,
        context: JobContext,
        library_panel: LibraryPanel,
        opener: OpenDocumentController,
        confirm_remove: Callable[[str], bool],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.context = context
        self.library_panel = library_panel
        self.opener = opener
        self.confirm_remove = confirm_remove
        self.doc_id: str | None = None
        self.announced: str | None = None  # the document whose "is ready" message is shown
        self.batch_running: Callable[[], bool] = lambda: False
        library_panel.document_selected.connect(self.select)
        library_panel.remove_requested.connect(self.remove)
        library_panel.remove_many_requested.connect(self.remove_many)

    def record(self, doc_id: str | None) -> DocumentRecord | None:
        if not doc_id:
            return None
        try:
            return self.library.document(doc_id)
        except PagewiseError:
            return None

    def current(self) -> DocumentRecord | None:
        return self.record(self.doc_id)

    def current_title(self) -> str:
        """The selected document's own title ("" when it has none)."""
        record = self.current()
        return record.title if record is not None and record.title else ""

    def refresh(self) -> None:
        self.library_panel.set_documents(self.library.documents())

    def select(self, doc_id: str | None) -> None:
        if doc_id == self.doc_id and doc_id is not None:
            record = self.record(doc_id)
            if record is not None and self.opener.locked:
                self._show_problem(self.opener.open(record))  # selected again: ask for the password now
            return
        record = self.record(doc_id)
        self.doc_id = record.doc_id if record is not None else None
        self.library_panel.mark_selected(self.doc_id)  # when not selected there (a script, a citation)
        if record is None:
            self.messages.resolve("viewer")
            self.opener.close()
        else:
            self._show_problem(self.opener.open(record))
        self.selected.emit(record)

    def restore(self, doc_id: str) -> None:
        """Select ``doc_id`` as the window opens: an encrypted one waits to be selected."""
        self.opener.restoring = True
        try:
            self.library_panel.select(doc_id)
        finally:
            self.opener.restoring = False

    def announce_added(self, ingest: IngestController) -> None:
        """The documents ``ingest`` adds are shown or announced (``document_added``)."""
        self.batch_running = ingest.batch_running
        ingest.added.connect(self.document_added)
        self.selected.connect(self._announced_shown)

    def document_added(self, doc_id: str) -> None:
        """Show a document that is ready when none is selected; otherwise say so, with a button
        that shows it. A finished add never takes the user away from the document they are
        reading or asking about (walk 2026-12-05: a question typed for one contract was asked of
        the 10-K whose add finished meanwhile, even one opened with File → Open)."""
        if self.doc_id is None:
            self.library_panel.select(doc_id)
            return
        record = self.record(doc_id)
        if record is None or self.batch_running():  # a data room's files: its summary says it
            return
        self.announced = doc_id
        show = partial(self.library_panel.select, doc_id)
        self.messages.info(f"{title_of(record)} is ready.", key="document-ready", action="Show", on_action=show)

    def _announced_shown(self, record: DocumentRecord | None) -> None:
        if record is not None and record.doc_id == self.announced:  # shown: its "is ready" goes
            self.announced = None
            self.messages.resolve("document-ready")

    def _show_problem(self, problem: str | None) -> None:
        if problem:
            self.messages.error(problem, key="viewer")
        else:
            self.messages.resolve("viewer")  # a message about the document shown before ends

    def remove(self, key: str) -> None:
        if not key:
            return
        if key.startswith("path:"):
            self.library_panel.remove_key(key)
            self.messages.resolve(f"ingest:{key[5:]}")
            self.refresh()  # a partly added document listed under its file's row shows again
            return
        record = self.record(key)
        if record is None or not self.confirm_remove(title_of(record)):
            return
        self.removing.emit(key)
        try:
            self.library.remove(key)
        except PagewiseError as error:
            self.messages.report(error)
            return
        if self.doc_id == key:
            self.select(None)
        self.refresh()
        self.messages.info(f"Removed “{title_of(record)}” from the library.")

    def remove_many(self, keys: list[str]) -> None:
        """Remove several rows at once (one question for all): documents leave the library, rows of
        files that were not added go."""
        for key in [k for k in keys if k.startswith("path:")]:
            self.library_panel.remove_key(key)
            self.messages.resolve(f"ingest:{key[5:]}")
        records = [r for k in keys if not k.startswith("path:") and (r := self.record(k)) is not None]
        if not records:
            self.refresh()
            return
        if not self.confirm_remove(f"these {len(records)} documents" if len(records) > 1 else title_of(records[0])):
            return
        removed = 0
        for record in records:
            self.removing.emit(record.doc_id)
            try:
                self.library.remove(record.doc_id)
            except PagewiseError as error:
                self.messages.report(error)
                continue
            removed += 1
            if self.doc_id == record.doc_id:
                self.select(None)
        self.refresh()
        self.messages.info(f"Removed {removed} document{'s' if removed != 1 else ''} from the library.")

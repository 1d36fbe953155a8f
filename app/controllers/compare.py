"""Comparing two versions in the window: the comparison runs in the job runner's worker thread
(``summarizer.compare``, no model) with progress and Stop; the Compare tab lists the changes; a
selected change opens both versions side by side at its clause with the changed words
highlighted; a comparison is saved in the library and reopened; Markdown export. In the window:
the Compare menu, the Compare tab brought forward with a comparison, and the document pane showing
both versions while that tab is open (``connect_window``).

Old and new: of two documents picked together, the one added to the library first is the old
one (the swap button turns them round). A document still being added is waited for: the
comparison starts when it is in.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QInputDialog, QMenu, QStackedWidget, QTabWidget, QWidget

from app.controllers.context import JobContext, UsesJobContext
from app.controllers.documents import title_of
from app.controllers.open_document import show_word_document
from app.jobs.runner import Job
from app.views.compare_versions import CompareVersions, VersionPane
from app.views.compare_view import ComparePanel
from app.views.library_panel import LibraryPanel
from app.widgets import file_dialogs
from app.widgets.menus import add_action
from inference.errors import PagewiseError
from summarizer.compare.comparison import Comparison
from summarizer.compare.highlights import PageSpan, change_spans
from summarizer.compare.library_versions import clause_page_texts
from summarizer.library.cutting.clause_units import ClauseUnit
from summarizer.library.storage.doc_titles import likely_versions
from summarizer.library.storage.store import DocumentRecord

if TYPE_CHECKING:
    from app.controllers.ingest import IngestController

ADDED_TOGETHER_S = 60  # documents added this close together were added in one go


def _seconds(iso: str) -> float:
    try:
        return dt.datetime.fromisoformat(iso).timestamp()
    except ValueError:
        return 0.0


def _modified(path: str) -> float:
    try:
        return Path(path).stat().st_mtime
    except OSError:
        return float("inf")


def _natural(name: str) -> list[tuple[int, str]]:
    """A name's sort key with its numbers as numbers ("v2" before "v10")."""
    return [(int(part), "") if part.isdigit() else (-1, part.lower()) for part in re.split(r"(\d+)", name)]


@dataclass(frozen=True, slots=True)
class Version:
    """One side of the comparison shown: its document as it was when compared."""

    doc_id: str
    title: str
    file_type: str

    @property
    def unit(self) -> str:
        return "¶" if self.file_type == "docx" else "p."

    def as_saved(self) -> tuple[str, str, str]:
        return (self.doc_id, self.title, self.file_type)


class CompareController(UsesJobContext, QObject):
    shown = Signal()  # a comparison is in the tab: the document pane shows both versions

    def __init__(
        self,
        context: JobContext,
        panel: ComparePanel,
        versions: CompareVersions,
        passwords: dict[str, str],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.context = context
        self.panel = panel
        self.versions = versions
        self.passwords = passwords  # this session's PDF passwords (the main viewer's)
        self.parent_widget = parent
        self.job: Job | None = None
        self.comparison: Comparison | None = None
        self.old: Version | None = None
        self.new: Version | None = None
        self.saved_id: int | None = None  # the saved comparison shown, if it is one
        self.waiting: tuple[str, str] | None = None  # a pair whose document is still being added
        self.choose_other: Callable[[str, list[tuple[str, str]]], str | None] = self._other_dialog
        self.choose_export_path: Callable[[str], Path | None] = self._export_dialog
        panel.swap_requested.connect(self.swap)
        panel.save_requested.connect(self.save)
        panel.saved_chosen.connect(self.open_saved)
        panel.export_requested.connect(lambda fmt: self.export_redline() if fmt == "docx" else self.export_markdown())
        panel.cancel_requested.connect(self.cancel)
        panel.change_selected.connect(self.show_change)
        self.refresh_saved()

    # --- in the window ----------------------------------------------------------------------

    def connect_window(
        self, tabs: QTabWidget, pane: QStackedWidget, viewer: QWidget, library: LibraryPanel, ingest: IngestController
    ) -> None:
        """The window's parts: a comparison brings the Compare tab (``tabs``) forward, and the document
        ``pane`` shows both versions while that tab is open with one, ``viewer`` otherwise; the
        library's Compare entries; a document whose add a comparison waits for."""
        self.tabs, self.pane, self.viewer = tabs, pane, viewer
        self.shown.connect(lambda: tabs.setCurrentWidget(self.panel))
        self.shown.connect(self.show_versions_when_comparing)
        library.compare_requested.connect(self.compare_selected)
        library.compare_with_requested.connect(self.compare_with)
        ingest.added.connect(self.document_added)
        ingest.idle.connect(self.ingest_idle)
        tabs.currentChanged.connect(self.show_versions_when_comparing)

    def show_versions_when_comparing(self, *_args: object) -> None:
        """The document pane shows both versions while the Compare tab is open with a comparison,
        the selected document otherwise."""
        comparing = self.tabs.currentWidget() is self.panel and self.comparison is not None
        self.pane.setCurrentWidget(self.versions if comparing else self.viewer)

    def add_menu(self, menu: QMenu, selected: Callable[[], list[str]], current: Callable[[], str]) -> list[QAction]:
        """The Compare menu's entries (``selected``: the documents selected in the library;
        ``current``: the one shown); its Next and Previous change actions."""
        add_action(self, menu, "&Compare selected documents", "Ctrl+Shift+C", lambda: self.compare_selected(selected()))
        add_action(self, menu, "Compare &with…", None, lambda: self.compare_with(current()))
        menu.addSeparator()
        steps = [
            add_action(self, menu, "&Next change", "F8", lambda: self._step(self.panel.next_change)),
            add_action(self, menu, "&Previous change", "Shift+F8", lambda: self._step(self.panel.previous_change)),
        ]
        add_action(self, menu, "&Swap old and new", None, self.swap)
        menu.addSeparator()
        add_action(self, menu, "S&ave comparison", None, self.save)
        add_action(self, menu, "&Delete saved comparison", None, self.delete_saved)
        add_action(self, menu, "&Export comparison as Markdown…", None, self.export_markdown)
        add_action(self, menu, "Export as Word &redline…", None, self.export_redline)  # as the tab's button
        return steps

    def _step(self, move: Callable[[], object]) -> None:
        self.tabs.setCurrentWidget(self.panel)
        move()

    # --- starting -------------------------------------------------------------------------

    def _record(self, doc_id: str) -> DocumentRecord | None:
        try:
            return self.library.document(doc_id)
        except PagewiseError as error:
            self.messages.warning(str(error), key="compare")
            return None

    def in_library_order(self, doc_ids: list[str]) -> list[str]:
        """``doc_ids``, the older version first: the one added to the library first; of documents
        added together (within ``ADDED_TOGETHER_S``: one drop, in the order their reads finished),
        the older file, then the name in natural order ("v2" before "v10")."""
        rows = self.library.db.execute("SELECT doc_id, added_at, path FROM documents").fetchall()
        found = {str(r[0]): (_seconds(str(r[1])), str(r[2])) for r in rows}
        picked = [d for d in doc_ids if d in found]
        if len(picked) < len(doc_ids):
            return doc_ids
        times = [found[d][0] for d in picked]
        if max(times) - min(times) >= ADDED_TOGETHER_S:
            return sorted(picked, key=lambda d: found[d][0])
        return sorted(picked, key=lambda d: (_modified(found[d][1]), _natural(Path(found[d][1]).name)))

    def compare_selected(self, doc_ids: list[str]) -> Job | None:
        """Compare the two documents selected in the library (the older added is the old one)."""
        picked = [d for d in dict.fromkeys(doc_ids) if d and not d.startswith("path:")]
        if len(picked) != 2:
            self.messages.info(
                "Select two versions of a contract in the library (Ctrl+click the second), then choose Compare. "
                "Or right-click one and choose Compare with…"
            )
            return None
        old_id, new_id = self.in_library_order(picked)
        return self.compare(old_id, new_id)

    def compare_with(self, doc_id: str) -> Job | None:
        """Right-click → Compare with…: pick the other version."""
        if not doc_id:
            self.messages.info("Select a document in the library first, then choose Compare with… to pick the other.")
            return None
        record = self._record(doc_id)
        if record is None:
            return None
        others = likely_versions(record, self.library.documents())  # the likeliest first: preselected
        if not others:
            self.messages.info("Add the other version of this contract to the library first, then compare them.")
            return None
        other = self.choose_other(title_of(record), others)
        if other is None:
            return None
        old_id, new_id = self.in_library_order([doc_id, other])
        return self.compare(old_id, new_id)

    def compare(self, old_id: str, new_id: str) -> Job | None:
        """Compare ``old_id`` with ``new_id``; one still being added is waited for."""
        old, new = self._record(old_id), self._record(new_id)
        if old is None or new is None:
            return None
        for record in (old, new):
            if record.state == "ready":
                continue
            if self.runner.ingests:
                self.waiting = (old_id, new_id)
                self.messages.info(
                    f"{title_of(record)} is still being added: the comparison starts when it is in.", key="compare"
                )
            else:
                self.messages.warning(
                    f"{title_of(record)} was not fully added: add it again (right-click → Add again to finish), "
                    "then compare.",
                    key="compare",
                )
            return None
        if self.job is not None:
            self.job.cancel()  # the newer request wins
        self.waiting = None
        self.messages.resolve("compare")
        first, second = Version(old_id, title_of(old), old.file_type), Version(new_id, title_of(new), new.file_type)
        if first.title == second.title:  # two versions often share a title: their files tell them apart
            first = Version(old_id, Path(old.path).name, old.file_type)
            second = Version(new_id, Path(new.path).name, new.file_type)

        def run(job: Job) -> Comparison:
            from summarizer.compare.library_versions import compare_documents

            return compare_documents(self.worker_library(), old_id, new_id, job.report, job.token)

        job = self.runner.submit_llm("comparing", run)
        self.job = job
        self.panel.set_busy(True)
        self.panel.progress.start(f"Comparing {first.title} with {second.title}…")
        job.progressed.connect(self.panel.progress.update_progress)
        job.succeeded.connect(lambda comparison: self._show(comparison, first, second, None))
        job.failed.connect(lambda error: self.messages.report(error, "comparing", key="compare"))
        job.cancelled.connect(  # not for one replaced by a newer request
            lambda: self.messages.info("The comparison was stopped.", key="compare") if job is self.job else None
        )
        job.finished.connect(lambda: self._finished(job))
        return job

    def cancel(self) -> None:
        self.waiting = None
        if self.job is not None:
            self.panel.progress.mark_stopping()
            self.job.cancel()

    def _finished(self, job: Job) -> None:
        if job is self.job:
            self.job = None
            self.panel.progress.stop()
            self.panel.set_busy(False)

    def document_added(self, _doc_id: str) -> None:
        """A document is in: a comparison waiting for it starts."""
        if self.waiting is None:
            return
        old_id, new_id = self.waiting
        states = []
        for doc_id in (old_id, new_id):
            try:
                states.append(self.library.document(doc_id).state)
            except PagewiseError:
                states.append("gone")
        if all(state == "ready" for state in states):
            self.compare(old_id, new_id)

    def ingest_idle(self) -> None:
        """Every add ended: a comparison still waiting cannot start."""
        if self.waiting is not None:
            self.document_added("")
        if self.waiting is not None:
            self.waiting = None
            self.messages.warning(
                "A version to compare could not be added completely, so the comparison did not start.", key="compare"
            )

    # --- showing --------------------------------------------------------------------------

    def _show(
        self, comparison: Comparison, old: Version, new: Version, saved_id: int | None, message: str | None = None
    ) -> None:
        self.comparison, self.old, self.new, self.saved_id = comparison, old, new, saved_id
        self.panel.set_pair(old.title, new.title, (old.unit, new.unit))
        self.panel.set_comparison(comparison, message)
        self.versions.old.set_caption(old.title)
        self.versions.new.set_caption(new.title)
        self._open(self.versions.old, old)
        self._open(self.versions.new, new)
        self.shown.emit()
        visible = self.panel.visible_changes()
        if visible:
            self.panel.select_change(visible[0])

    def _open(self, pane: VersionPane, version: Version) -> DocumentRecord | None:
        """Show ``version`` in ``pane`` (once: the same document stays open); None when it cannot be."""
        try:
            record = self.library.document(version.doc_id)
        except PagewiseError:
            pane.doc_id = None
            pane.viewer.close_document(f"{version.title} is no longer in the library: add it again to see it here.")
            return None
        path = Path(record.path)
        if not path.is_file():
            pane.doc_id = None
            pane.viewer.close_document(f"{record.path} was moved or deleted: add the file again to see it here.")
            return None
        if pane.doc_id == version.doc_id and (record.file_type == "docx" or pane.viewer.path == path):
            return record
        pane.doc_id = None
        if record.file_type == "docx":
            show_word_document(self.library, pane.viewer, record.doc_id, path)
        elif not pane.viewer.open(path, self.passwords.get(record.path)):
            why = "is encrypted: select it in the library and give its password" if pane.viewer.needs_password else (
                "cannot be read as a PDF any more")  # fmt: skip
            pane.viewer.close_document(f"{path.name} {why}, then select the change again.")
            return None
        pane.doc_id = version.doc_id
        return record

    def show_change(self, index: int) -> None:
        """Both versions at the change's clause, its changed words highlighted."""
        if self.comparison is None or self.old is None or self.new is None:
            return
        if not 0 <= index < len(self.comparison.changes):
            return
        change = self.comparison.changes[index]
        spans = change_spans(change, self._page_texts(self.old.doc_id), self._page_texts(self.new.doc_id))
        for pane, version, clause, side in (
            (self.versions.old, self.old, change.old, spans.old),
            (self.versions.new, self.new, change.new, spans.new),
        ):
            pane.set_caption(version.title, clause.display_label if clause else "not in this version")
            record = self._open(pane, version)
            if record is None:
                continue
            self._highlight(pane, record, clause, side)

    def _highlight(
        self, pane: VersionPane, record: DocumentRecord, at: ClauseUnit | None, spans: tuple[PageSpan, ...]
    ) -> None:
        viewer = pane.viewer
        if record.file_type == "docx":
            by_paragraph: dict[int, list[tuple[int, int]]] = {}
            for span in spans:
                by_paragraph.setdefault(span.page, []).append((span.start, span.end))
            focus = spans[0].page if spans else (at.page_start if at is not None else None)
            reference = at.display_label if at is not None else ""
            show_word_document(self.library, viewer, record.doc_id, Path(record.path), focus, None, reference,
                               by_paragraph)  # fmt: skip
            return
        pieces = []
        for span in spans:
            raw = self.library.page_text_if_any(record.doc_id, span.page)
            if raw:
                pieces.append((span.page, raw[span.start : span.end], span.start / max(1, len(raw))))
        if pieces and viewer.highlight_passage(pieces, focus_page=pieces[0][0]):
            return
        viewer.clear_highlights()  # words only removed (or added) on the other side: the clause's start
        if at is not None:
            viewer.go_to_page(at.page_start)

    def swap(self) -> Job | None:
        if self.old is None or self.new is None:
            return None
        return self.compare(self.new.doc_id, self.old.doc_id)

    # --- saved comparisons, export ----------------------------------------------------------

    def refresh_saved(self) -> None:
        from summarizer.compare.saved import saved_comparisons

        try:
            saved = saved_comparisons(self.library)
        except PagewiseError as error:
            self.messages.report(error, "reading the saved comparisons", key="compare")
            return
        self.panel.set_saved([(s.comparison_id, f"{s.name} · {s.saved_at[:16].replace('T', ' ')}") for s in saved])

    def save(self) -> int | None:
        from summarizer.compare.saved import save_comparison

        if self.comparison is None or self.old is None or self.new is None:
            self.messages.info("Compare two versions first, then save the comparison.")
            return None
        if self.saved_id is not None:
            self.messages.info("This comparison is saved already: reopen it from the Saved list.")
            return self.saved_id
        self.saved_id = save_comparison(self.library, self.comparison, self.old.as_saved(), self.new.as_saved())
        self.refresh_saved()
        self.messages.info(f"Saved the comparison {self.old.title} → {self.new.title}: reopen it from the Saved list.")
        return self.saved_id

    def open_saved(self, comparison_id: int) -> None:
        from summarizer.compare.saved import load_comparison

        try:
            saved, comparison = load_comparison(self.library, comparison_id)
        except PagewiseError as error:
            self.messages.report(error, "reopening the comparison", key="compare")
            self.refresh_saved()
            return
        old = Version(saved.old_doc_id, saved.old_title, saved.old_file_type)
        new = Version(saved.new_doc_id, saved.new_title, saved.new_file_type)
        self._show(comparison, old, new, comparison_id, saved.message)  # as it was said when saved

    def delete_saved(self) -> bool:
        """Delete the saved comparison shown (it stays on screen, unsaved)."""
        from summarizer.compare.saved import delete_comparison

        if self.saved_id is None:
            self.messages.info("The comparison shown is not a saved one: reopen it from the Saved list to delete it.")
            return False
        delete_comparison(self.library, self.saved_id)
        self.saved_id = None
        self.refresh_saved()
        self.messages.info(
            "Deleted the saved comparison. It stays shown until you close or change it; Save keeps it again."
        )
        return True

    def export_markdown(self) -> Path | None:
        from summarizer.compare.report import comparison_markdown

        if self.comparison is None or self.old is None or self.new is None:
            self.messages.info("Compare two versions first, then export the comparison.")
            return None
        suggested = "".join(c for c in f"{self.old.title} vs {self.new.title}.md" if c not in '\\/:*?"<>|')
        path = self.choose_export_path(suggested)
        if path is None:
            return None
        text = comparison_markdown(self.comparison, self.old.title, self.new.title, (self.old.unit, self.new.unit))
        try:
            path.write_text(text, encoding="utf-8")
        except OSError as error:
            self.messages.error(f"Could not write {path}: {error.strerror or error}. Choose another folder.")
            return None
        self.messages.info(f"Saved {path}.")
        return path

    def export_redline(self) -> Path | None:
        """The comparison as a Word redline (``pagewise compare --format docx``): each difference a
        tracked change that Word and LibreOffice can accept or reject, after a table of the material
        changes."""
        from summarizer.compare.redline_docx import write_redline

        if self.comparison is None or self.old is None or self.new is None:
            self.messages.info("Compare two versions first, then export the redline.")
            return None
        suggested = "".join(c for c in f"{self.old.title} vs {self.new.title} redline.docx" if c not in '\\/:*?"<>|')
        path = self.choose_export_path(suggested)
        if path is None:
            return None
        try:
            write_redline(self.comparison, path, self.old.title, self.new.title, units=(self.old.unit, self.new.unit))
        except OSError as error:
            self.messages.error(f"Could not write {path}: {error.strerror or error}. Choose another folder.")
            return None
        self.messages.info(f"Saved {path}: open it in Word or LibreOffice to accept or reject each change.")
        return path

    def _page_texts(self, doc_id: str) -> Callable[[int], str | None]:
        return clause_page_texts(self.library, doc_id).get  # the text the clauses' offsets are in

    # --- dialogs (tests replace them) -----------------------------------------------------

    def _other_dialog(self, title: str, others: list[tuple[str, str]]) -> str | None:
        names = [f"{n}. {name}" for n, (_, name) in enumerate(others, 1)]  # two versions may share a title
        name, ok = QInputDialog.getItem(
            self.parent_widget, "Compare with…", f"Compare “{title}” with:", names, 0, False
        )
        if not ok or name not in names:
            return None
        return others[names.index(name)][0]

    def _export_dialog(self, suggested: str) -> Path | None:
        kind = "Word redline (*.docx)" if suggested.endswith(".docx") else "Markdown (*.md)"
        path = file_dialogs.save_file(self.parent_widget, "export", "Export the comparison", suggested, kind)
        return Path(path) if path else None

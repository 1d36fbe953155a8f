"""Contract review in the window: the checked contracts run against a checklist in the LLM
thread (evidence only, or with the model through the window's ``ModelSession``; several with the
model go through the data room's review, ``room_review``: one way to review many), with progress
and Stop; the grid shows each contract's stored review as soon as it is picked, and each item of
a running review as soon as it is finished (its one cell; the whole grid again when the run
ends); a clicked cell opens the contract at its passage; the reviewer's corrections are
recorded; exports.

A contract dropped on the tab is added to the library (the ingest controller) and reviewed once
it is in; one still being added when Review is pressed is queued until it is. A review asked for
while the model summarizes waits its turn in the one LLM thread.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, QSettings, Signal
from PySide6.QtWidgets import QTabWidget, QWidget

from app.controllers.context import JobContext, UsesJobContext
from app.controllers.documents import title_of
from app.controllers.ingest import IngestController
from app.controllers.review_memory import restore_review
from app.controllers.room_review import RoomReviewController
from app.jobs.ingest_process import expand_paths
from app.jobs.runner import IngestJob, Job
from app.services.answering import CitationView
from app.views.library_panel import LibraryPanel, record_state
from app.views.review_view import ReviewPanel
from app.widgets import file_dialogs
from inference.errors import PagewiseError
from summarizer.library.storage.queries import passage_spans
from summarizer.library.storage.store import DocumentRecord
from summarizer.review.checklist import Checklist, load_checklist
from summarizer.review.evidence import DocumentReview, ItemDone, ItemResult
from summarizer.review.word_answers import flat_text

EXPORT_FILTERS = {
    "md": "Markdown (*.md)",
    "csv": "CSV (*.csv)",
    "xlsx": "Excel workbook (*.xlsx)",
    "docx": "Word document (*.docx)",
}


def reviewable(record: DocumentRecord) -> bool:
    return record.state == "ready" and record.passages > 0


class ReviewController(UsesJobContext, QObject):
    model_changed = Signal()  # a review with the model ended: the status line may change

    def __init__(
        self,
        context: JobContext,
        panel: ReviewPanel,
        show_citation: Callable[[CitationView], None],
        add_paths: Callable[[list[Path]], IngestJob | None],
        model_missing: Callable[[str], str],
        model_name: Callable[[], str],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.context = context
        self.panel = panel
        self.show_citation = show_citation
        self.add_paths = add_paths
        self.model_missing = model_missing
        self.model_name = model_name
        self.parent_widget = parent
        self.checklist: Checklist = load_checklist("cuad")
        self.job: Job | None = None
        self.queued: list[str] = []  # doc_ids to review when they are in the library and no review runs
        self.waiting_files: set[str] = set()  # dropped files not in the library yet (real paths)
        self.column_ids: list[str] = []  # the grid's contracts, by column
        self.choose_checklist_file: Callable[[], Path | None] = self._checklist_dialog
        self.choose_export_path: Callable[[str, str], Path | None] = self._export_dialog
        self.file_state: Callable[[str], str | None] = lambda _path: None  # the library panel's row of a file
        self.open_contract: Callable[[str], object] = lambda _doc_id: None  # the window selects the document
        panel.review_requested.connect(self.review)
        panel.cancel_requested.connect(self.cancel)
        panel.selection_changed.connect(self.show_stored)
        panel.checklist_chosen.connect(self.use_checklist)
        panel.checklist_file_requested.connect(self._pick_checklist_file)
        panel.cell_clicked.connect(self.open_cell)
        panel.contract_open_requested.connect(self._open_contract_at)
        panel.correction_submitted.connect(self.correct)
        panel.export_requested.connect(self.export)
        panel.files_dropped.connect(self.add_and_review)
        self.refresh_documents()
        self.room = RoomReviewController(context, panel, self, model_missing, parent)  # the data room's model review
        self.room.finished.connect(self._run_queued)

    def connect_window(
        self,
        ingest: IngestController,
        library: LibraryPanel,
        tabs: QTabWidget,
        window_state: QSettings,
        current_doc: Callable[[], str | None],
        select: Callable[[str], object],
    ) -> None:
        """The window's parts: the documents ``ingest`` adds, the library panel's row of a file, the
        Review tab listing the library's documents each time it is opened, ``select`` opening a
        contract, and the side represented kept in ``window_state`` (``restore_side``)."""
        self.file_state, self.open_contract, self.window_state = library.file_state, select, window_state
        self.room.connect_window(window_state, tabs)
        ingest.added.connect(self.document_added)
        ingest.documents_changed.connect(self.refresh_documents)
        ingest.idle.connect(self.ingest_idle)
        # Kept at once: a crash or a kill does not lose it.
        self.panel.side.editingFinished.connect(lambda: window_state.setValue("review_side", self.panel.side_text()))
        tabs.currentChanged.connect(
            lambda i: self.refresh_documents(current_doc()) if tabs.widget(i) is self.panel else None
        )

    def restore_side(self) -> None:
        """The side represented, the checked contracts and "Evidence only" as they were (review_memory)."""
        ids = [r.doc_id for r in self.library.documents()]
        restore_review(self.panel, self.window_state, ids, self.refresh_documents, self.show_stored)
        self.room.offer_continue()  # a model review of the data room left unfinished

    # --- what is picked -------------------------------------------------------------------

    def refresh_documents(self, selected: str | None = None) -> None:
        """The library's documents in the contract list (the checked ones stay checked; with none
        checked, the document ``selected`` in the library is)."""
        checked = set(self.panel.checked_doc_ids()) or ({selected} if selected else set())
        records = self.library.documents()
        self.panel.set_documents([(r.doc_id, title_of(r), self._state(r)) for r in records], checked)
        self.show_stored()

    def _state(self, record: DocumentRecord) -> str:
        """The contract's state, as the library panel says it: a document whose add is under way
        is "being added", not "interrupted" (walk 2026-12-05) though its record is not ready yet."""
        if record.state != "ready":
            row = self.file_state(record.path)
            if row is not None and not row.startswith(("error", "encrypted")):
                return "being added…"
            if row is not None:
                return row
        return record_state(record)

    def use_checklist(self, name_or_path: str) -> bool:
        """Review with the bundled checklist ``cuad`` or a CSV/YAML file; False (and a message
        naming the file and line) when it cannot be used."""
        try:
            checklist = load_checklist(name_or_path)
        except PagewiseError as error:
            self.messages.warning(str(error), key="review")
            self.panel.checklist.setCurrentIndex(self.panel.checklist.findData(self._checklist_key()))
            return False
        self.messages.resolve("review")
        self.checklist = checklist
        if name_or_path != "cuad":
            self.panel.show_checklist_file(Path(name_or_path))
        else:
            self.panel.checklist.setCurrentIndex(self.panel.checklist.findData("cuad"))
        self.show_stored()
        return True

    def _checklist_key(self) -> str:
        return self.checklist.name if self.checklist.name == "cuad" else str(self.panel.checklist.currentData())

    def _pick_checklist_file(self) -> None:
        path = self.choose_checklist_file()
        if path is None:
            self.panel.checklist.setCurrentIndex(self.panel.checklist.findData(self._checklist_key()))
            return
        self.use_checklist(str(path))

    def show_stored(self) -> None:
        """The grid for the checked contracts: this session's evidence runs, else each contract's
        stored review (with the corrections, flagged for the side now given), without a model."""
        side = self.panel.side_text()
        columns: list[tuple[str, DocumentReview | None]] = []
        folders: list[str] = []
        self.column_ids = []
        for doc_id in self.panel.checked_doc_ids():
            try:
                record = self.library.document(doc_id)
            except PagewiseError:
                continue
            columns.append((title_of(record), self._shown_review(doc_id, side)))
            folders.append(str(getattr(record, "folder", "") or ""))  # the data room's folder, where ingest keeps one
            self.column_ids.append(doc_id)
        self.panel.set_grid(list(self.checklist.items), columns, folders)
        if columns:
            self.panel.hint.setText(
                "Click a cell to see its passage in the contract; select one to correct it below."
                if any(review is not None for _, review in columns)
                else "Not reviewed yet with this checklist: press Review."
            )

    def _shown_review(self, doc_id: str, side: str) -> DocumentReview | None:
        from summarizer.review.item_answers import shown_review

        try:
            return shown_review(self.library, doc_id, self.checklist, side=side)
        except PagewiseError as error:
            self.messages.report(error, "reading the stored review", key="review")
            return None

    # --- running --------------------------------------------------------------------------

    def review(self) -> Job | None:
        """Review the checked contracts (those still being added wait until they are in)."""
        doc_ids = self.panel.checked_doc_ids()
        if not doc_ids:
            self.messages.info("Check the contracts to review, or drop PDF files on the Review tab.")
            return None
        return self._review(doc_ids)

    def _review(self, doc_ids: list[str]) -> Job | None:
        ready: list[str] = []
        for doc_id in doc_ids:
            try:
                record = self.library.document(doc_id)
            except PagewiseError as error:
                self.messages.warning(str(error), key="review")
                continue
            if reviewable(record):
                ready.append(doc_id)
            elif record.state != "ready" and self.runner.ingests:
                self._queue(doc_id, f"{title_of(record)} is still being added: it will be reviewed when it is in.")
            elif record.passages == 0 and record.state == "ready":
                self.messages.warning(f"{title_of(record)} has no text to review (a scanned PDF needs OCR first).")
            else:
                self.messages.warning(f"{title_of(record)} was not fully added: add it again, then review it.")
        if not ready:
            return None
        if self.job is not None or self.room.job is not None:
            for doc_id in ready:
                self._queue(doc_id, "")
            self.messages.info("A review is running: the other contracts follow when it ends.")
            return None
        return self._start(ready)

    def _queue(self, doc_id: str, note: str) -> None:
        if doc_id not in self.queued:
            self.queued.append(doc_id)
        if note:
            self.messages.info(note)

    def _start(self, doc_ids: list[str]) -> Job | None:
        from summarizer.review.evidence_batch import review_evidence_stored
        from summarizer.review.item_answers import review_with_model

        evidence_only = self.panel.evidence_only.isChecked()
        if not evidence_only and (note := self.model_missing("Reviewing")):
            self.messages.warning(f"{note} Or check “Evidence only” to find the clauses without a model.", key="model")
            return None
        if not evidence_only and len(doc_ids) > 1:  # one way to review many with the model: the data room's
            return self.room.review_contracts(doc_ids, self.checklist)
        checklist, side = self.checklist, self.panel.side_text()
        self.messages.resolve("review")

        def run(job: Job) -> list[DocumentReview]:
            library = self.worker_library()
            if evidence_only:
                # each contract is stored as it is done: a stopped or crashed run continues where it was
                # the cells arrive one by one (on_item) and the table is read back when it ends: the
                # run keeps none of the reviews (in a data room, hundreds held twice)
                review_evidence_stored(
                    library, doc_ids, checklist, job.report, job.token, side=side, on_item=job.emit_partial, keep=False
                )
                return []
            engine = self.session.ensure_loaded(job.report, job.token)
            return review_with_model(
                library, engine, doc_ids, checklist, job.report, job.token, side=side, on_item=job.emit_partial
            )

        job = self.runner.submit_llm("review", run, on_cancel=None if evidence_only else self.session.cancel)
        self.job = job
        self.panel.set_busy(True)
        self.panel.progress.start("Finding the clauses…" if evidence_only else "Reviewing…")
        self.panel.hint.setText("Reviewing: each cell fills in as its item is finished.")
        job.progressed.connect(self.panel.progress.update_progress)
        job.partial.connect(lambda done: self._show_item(checklist, done))
        if evidence_only:
            job.succeeded.connect(lambda _: self._evidence_done(checklist, doc_ids))
        job.failed.connect(lambda error: self.messages.report(error, "reviewing", key="review"))
        job.cancelled.connect(
            lambda: self.messages.info("The review was stopped. Answers finished so far are kept: Review continues.")
        )
        job.finished.connect(self._finished)
        if not evidence_only:
            job.finished.connect(self.model_changed)
        return job

    def _show_item(self, checklist: Checklist, done: ItemDone) -> None:
        """An item of the running review is finished: its cell shows it, with the reviewer's
        correction and the playbook flag for the side now given; the other cells stay."""
        from summarizer.review.playbook import flag_results
        from summarizer.review.store import attach_corrections

        if checklist != self.checklist or done.doc_id not in self.column_ids:
            return  # another checklist was chosen meanwhile, or the contract is not in the grid
        if not 0 <= done.index < len(checklist.items):
            return
        column, side = self.column_ids.index(done.doc_id), self.panel.side_text()
        review = self.panel.columns[column] if column < len(self.panel.columns) else None
        if review is None:  # not reviewed before: the items not finished yet are pending
            try:
                record = self.library.document(done.doc_id)
            except PagewiseError:
                return
            pending = [ItemResult(i.id, i.category, i.question, i.type, "pending") for i in checklist.items]
            review = DocumentReview.of(record, checklist, pending, side)
        if len(review.items) != len(checklist.items):
            return
        if done.result.status in ("evidence", "absent") and review.items[done.index].status not in (
            "evidence",
            "absent",
            "pending",
        ):
            return  # the model's answer stays (shown_review prefers it)
        result = done.result  # the run's copy, this thread's own
        attach_corrections(self.library, dataclasses.replace(review, items=(result,)))
        flag_results([checklist.items[done.index]], [result], side)
        items = list(review.items)
        items[done.index] = result
        self.panel.set_cell(done.index, column, dataclasses.replace(review, items=tuple(items), side=side))

    def cancel(self) -> None:
        self.queued.clear()
        if self.job is not None:
            self.panel.progress.mark_stopping()
            self.job.cancel()

    def _evidence_done(self, checklist: Checklist, doc_ids: list[str]) -> None:
        """Say which contracts keep showing the model's answers over the evidence just found."""
        from summarizer.review.item_answers import stored_review

        answered = []
        for doc_id in doc_ids:
            try:
                if stored_review(self.library, doc_id, checklist) is not None:
                    answered.append(title_of(self.library.document(doc_id)))
            except PagewiseError:
                continue
        if answered:
            self.messages.info(
                f"{', '.join(answered)}: the model's answers stay in the grid (they show the same passages); "
                "the evidence found now is kept for the contracts without them."
            )

    def _finished(self) -> None:
        self.job = None
        self.panel.progress.stop()
        self.panel.set_busy(False)
        self.show_stored()
        self._run_queued()

    def _queued_records(self) -> list[tuple[str, DocumentRecord]]:
        """The queued documents still in the library, with their records (the others leave the queue)."""
        found = []
        for doc_id in list(self.queued):
            try:
                found.append((doc_id, self.library.document(doc_id)))
            except PagewiseError:
                self.queued.remove(doc_id)
        return found

    def _run_queued(self) -> None:
        if self.job is not None or not self.queued:
            return
        ready = [doc_id for doc_id, record in self._queued_records() if reviewable(record)]
        self.queued = [doc_id for doc_id in self.queued if doc_id not in ready]
        if ready:
            self._review(ready)

    # --- contracts added by dropping them on the tab --------------------------------------

    def add_and_review(self, paths: list[Path]) -> IngestJob | None:
        """Add the files to the library; each is reviewed once it is in."""
        self.waiting_files |= {os.path.realpath(p) for p in expand_paths(paths)}
        return self.add_paths(paths)

    def document_added(self, doc_id: str) -> None:
        """A document is in the library: tick and review it if it was dropped on the tab."""
        try:
            record = self.library.document(doc_id)
        except PagewiseError:
            return
        path = os.path.realpath(record.path)
        if path not in self.waiting_files and doc_id not in self.queued:
            return
        self.waiting_files.discard(path)
        self.refresh_documents()
        self.panel.set_checked(doc_id)
        if doc_id not in self.queued:
            self.queued.append(doc_id)
        self._run_queued()

    def ingest_idle(self) -> None:
        """Every ingest ended: a queued contract still not in the library will not be reviewed."""
        self.waiting_files.clear()
        for doc_id, record in self._queued_records():
            if not reviewable(record):
                self.queued.remove(doc_id)
                self.messages.warning(f"{title_of(record)} could not be added completely, so it was not reviewed.")
        self._run_queued()

    # --- the grid -------------------------------------------------------------------------

    def open_cell(self, row: int, column: int) -> None:
        """The contract at the cell's supporting passage, highlighted (as a citation)."""
        result = self.panel.result_at(row, column)
        review = self.panel.columns[column] if 0 <= column < len(self.panel.columns) else None
        if result is None or review is None:
            return
        citation = self.cell_citation(review.doc_id, result)
        if citation is None:
            self.messages.info(f"{result.category}: no passage of the contract was found for this item.")
            return
        self.show_citation(citation)

    def _open_contract_at(self, column: int) -> None:
        """A contract's title clicked in the table: the window shows that contract."""
        if 0 <= column < len(self.column_ids):
            self.open_contract(self.column_ids[column])

    def cell_citation(self, doc_id: str, result: ItemResult) -> CitationView | None:
        """The passage that supports the cell: the evidence passage holding the model's quote,
        else (evidence only, or a quote on no passage) the best evidence passage."""
        if not result.evidence:
            return None
        quoted = flat_text(result.quote)
        best = next((e for e in result.evidence if quoted and quoted in flat_text(e.text)), result.evidence[0])
        pages = [c["page"] for c in result.citations if c.get("valid")]
        page = best.match_first or next((p for p in pages if best.page_start <= p <= best.page_end), best.page_start)
        spans = passage_spans(self.library, best.passage_id)
        last = best.match_last if best.match_first else 0  # a Word passage's paragraphs that matched or hold the quote
        return CitationView(0, doc_id, page, best.passage_id, best.text, True, spans, page_end=last)

    def correct(self, row: int, column: int, value: str, accepted: bool, note: str) -> None:
        from summarizer.review.store import record_correction

        result = self.panel.result_at(row, column)
        review = self.panel.columns[column] if 0 <= column < len(self.panel.columns) else None
        if result is None or review is None:
            return
        try:
            record_correction(self.library, review.doc_id, self.checklist, result.item_id, value=value or None,
                              accepted=accepted, note=note, model_value=result.value)  # fmt: skip
        except PagewiseError as error:
            self.messages.report(error, "saving the correction", key="review")
            return
        self.show_stored()

    def export(self, fmt: str) -> Path | None:
        reviews = [review for review in self.panel.columns if review is not None]
        if not reviews:
            self.messages.info("There is no review to export yet: press Review first.")
            return None
        suggested = "".join(c for c in f"{self.checklist.name} review.{fmt}" if c not in '\\/:*?"<>|')
        path = self.choose_export_path(fmt, suggested)
        if path is None:
            return None
        answered = any(item.status not in ("evidence", "absent", "pending") for r in reviews for item in r.items)
        try:
            if fmt == "docx":
                from summarizer.review.memo_docx import write_docx

                write_docx(reviews, path, model=self.model_name() if answered else "")
            elif fmt == "xlsx":
                from summarizer.review.export_xlsx import write_xlsx

                write_xlsx(reviews, path, model=self.model_name() if answered else "")
            else:
                from summarizer.review.export import to_csv, to_markdown

                path.write_text(to_markdown(reviews) if fmt == "md" else to_csv(reviews), encoding="utf-8")
        except OSError as error:
            self.messages.error(f"Could not write {path}: {error.strerror or error}. Choose another folder.")
            return None
        self.messages.info(f"Saved {path}.")
        return path

    # --- dialogs (tests replace them) -----------------------------------------------------

    def _checklist_dialog(self) -> Path | None:
        path = file_dialogs.open_file(
            self.parent_widget, "checklist", "Choose a checklist", "Checklists (*.csv *.yaml *.yml)"
        )
        return Path(path) if path else None

    def _export_dialog(self, fmt: str, suggested: str) -> Path | None:
        path = file_dialogs.save_file(self.parent_widget, "export", "Export the review", suggested, EXPORT_FILTERS[fmt])
        return Path(path) if path else None

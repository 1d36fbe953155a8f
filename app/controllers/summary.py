"""Summarizing the selected document: progress in the Summary tab and the library row, the
stored summary shown again without calling the model."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from app.controllers.context import JobContext, UsesJobContext
from app.controllers.documents import title_of
from app.jobs.runner import Job
from app.services import answering
from app.services.answering import SummaryView
from app.views.summary_view import SummaryPanel
from app.widgets.job_progress import row_state
from inference.errors import PagewiseError
from inference.progress import Progress
from summarizer.library.reading.page_status import OCR_ADVICE
from summarizer.library.storage.store import DocumentRecord


def why_not_summarized(record: DocumentRecord) -> str:
    """Why ``record`` cannot be summarized ("" when it can), naming its file."""
    if record.passages > 0:
        return ""
    name = Path(record.path).name
    if record.status == "needs_ocr":
        return f"{name} has no text to summarize: its pages are images (a scanned PDF). {OCR_ADVICE}"
    return f"{name} has no text in the library yet: add it again to finish reading it."


class SummaryController(UsesJobContext, QObject):
    documents_changed = Signal()

    def __init__(
        self,
        context: JobContext,
        panel: SummaryPanel,
        set_row_state: Callable[[str, str], None],
        current: Callable[[], DocumentRecord | None],
        model_missing: Callable[[str], str],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.context = context
        self.panel = panel
        self.set_row_state = set_row_state
        self.current = current
        self.model_missing = model_missing
        self.job: Job | None = None
        panel.summarize_requested.connect(self.summarize)
        panel.cancel_requested.connect(self.cancel)

    def show_document(self, record: DocumentRecord | None) -> None:
        """The stored summary for the loaded model, without calling it."""
        if record is None:
            self.panel.set_summary(None, None)
            return
        if reason := why_not_summarized(record):
            self.panel.set_unavailable(title_of(record), reason)
            return
        try:
            cached = answering.cached_summary(self.library, record.doc_id, self.session.engine)
        except PagewiseError:
            cached = None
        self.panel.set_summary(title_of(record), cached)

    def show_if_missing(self, doc_id: str) -> None:
        """After an answer: retrieval mode may have summarized the document first."""
        record = self.current()
        if record is not None and record.doc_id == doc_id and self.panel.summary is None:
            self.show_document(record)

    def summarize(self) -> Job | None:
        record = self.current()
        if record is None or self.job is not None:
            return None
        if reason := why_not_summarized(record):
            self.messages.warning(reason, key="summary")
            return None
        note = self.model_missing("Summarizing")
        if note:
            self.messages.warning(note, key="model")
            return None
        doc_id, title = record.doc_id, title_of(record)
        self.messages.resolve("summary")
        self.panel.progress.start("Summarizing…")
        self.panel.summarize_button.setEnabled(False)

        def run(job: Job) -> SummaryView:
            engine = self.session.ensure_loaded(job.report, job.token)
            return answering.summarize(engine, self.worker_library(), doc_id, job.report, job.token)

        job = self.runner.submit_llm("summarize", run, on_cancel=self.session.cancel)
        self.job = job
        job.progressed.connect(lambda progress: self._progressed(doc_id, progress))
        job.succeeded.connect(lambda view: self._done(doc_id, title, view))
        job.failed.connect(lambda error: self.messages.report(error, "summarizing", key="summary"))
        job.finished.connect(lambda: self._finished(doc_id))
        return job

    def cancel(self) -> None:
        if self.job is not None:
            self.panel.progress.mark_stopping()
            self.job.cancel()

    def _progressed(self, doc_id: str, progress: Progress) -> None:
        self.panel.progress.update_progress(progress)
        state = row_state(progress, every_stage=False)
        if state:
            self.set_row_state(doc_id, state)

    def _done(self, doc_id: str, title: str, view: SummaryView) -> None:
        if self._is_current(doc_id):
            self.panel.set_summary(title, view)

    def _finished(self, doc_id: str) -> None:
        self.job = None
        self.panel.progress.stop()
        self.documents_changed.emit()
        if self._is_current(doc_id) and self.panel.summary is None:
            self.panel.summarize_button.setEnabled(True)

    def _is_current(self, doc_id: str) -> bool:
        record = self.current()
        return record is not None and record.doc_id == doc_id

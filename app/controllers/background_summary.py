"""Summaries made in the background: each document's summary is made on the LLM thread while
nothing else needs the model, so answers can use it; questions never wait for it.

The job yields to any other job (``JobRunner.submit_llm(background=True)``: a question or a
review cancels it at its next micro-batch; the segments finished stay stored) and starts again
when the LLM thread is idle (``JobRunner.llm_idle``), continuing where it stopped. The status bar
says which document is being summarized, how far it is and the time left.

When: after a document is added, after the model settings change, at start, and whenever the
LLM thread becomes idle; not while the setting ``background_summaries`` is "off", nor on battery
power when it is "auto" (``app.services.power.on_battery``), nor without a model configured. One pass
finishes the document a pass started before (one that yielded to a question), else summarizes
the selected document first, then the others, newest first: selecting another document does not
move the work (walk 2026-12-05: the summaries hopped from document to document, so long ones
never finished). A pass that finds every document summarized rests until a document is added or
the model changes.

In a large library (more ready documents than the setting ``background_summaries_all_up_to``,
a data room) a pass summarizes only the documents the user opened or asked about, in the order
they did (``request``), and the status bar counts those still queued; ``summarize_all`` (Library →
Summarize all) lifts the limit. Two cores summarizing every contract of a data room would keep
the model busy for days and the fans loud for nothing.

A pass whose model worker died (killed, out of memory) is tried again with the model loaded
afresh, up to ``CRASHES_IN_A_ROW`` times; a pass that fails otherwise rests, and the status bar
says so.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal

from app.controllers.context import JobContext, UsesJobContext
from app.jobs.runner import Job
from app.services import answering
from app.services.power import on_battery
from app.widgets.job_progress import format_eta
from inference.cancel import Cancelled
from inference.errors import EngineError
from inference.progress import Progress, Stage

if TYPE_CHECKING:
    from app.controllers.answer import AnswerController
    from app.controllers.documents import DocumentsController
    from app.controllers.ingest import IngestController
    from app.controllers.model_setup import ModelSetupController
    from app.controllers.summary import SummaryController

NOTHING_LEFT = ""
CRASHES_IN_A_ROW = 2  # worker deaths retried before the summaries rest (no loop of reloads)
STOPPED_AFTER_ERROR = (
    "background summaries stopped after an error: they start again when a document is added or the settings change"
)


class BackgroundSummaries(UsesJobContext, QObject):
    summarized = Signal(str)  # doc_id: its summary is stored now

    def __init__(
        self,
        context: JobContext,
        setting: Callable[[], str],
        model_missing: Callable[[str], str],
        selected: Callable[[], str | None],
        parent: QObject | None = None,
        all_up_to: Callable[[], int] = lambda: 25,
    ) -> None:
        super().__init__(parent)
        self.context = context
        self.setting = setting
        self.model_missing = model_missing
        self.selected = selected
        self.on_battery: Callable[[], bool | None] = on_battery
        self.job: Job | None = None
        self.resting = False  # the last pass found nothing to summarize, or failed
        self.crashes = 0  # passes in a row whose model worker died
        self.paused_reason = ""
        self.started_doc: str | None = None  # the document being summarized until its summary is stored
        self.all_up_to = all_up_to
        self.wanted: list[str] = []  # in a large library: the documents opened or asked about, in order
        self.summarize_all = False
        context.runner.llm_idle.connect(self.schedule)

    def connect_window(
        self,
        ingest: IngestController,
        documents: DocumentsController,
        answers: AnswerController,
        summaries: SummaryController,
        model_setup: ModelSetupController,
    ) -> None:
        """What wakes a pass (a document added, new settings), what joins the queue of a large
        library, and who hears of a summary stored (the Summary tab, the library's states)."""
        self.summarized.connect(summaries.show_if_missing)
        self.summarized.connect(lambda _doc_id: documents.refresh())
        ingest.added.connect(lambda _doc_id: self.wake())
        # In a large library only what the user opens or asks about is summarized (in that order).
        documents.selected.connect(lambda record: self.request(record and record.doc_id))
        answers.answered.connect(self.request)
        model_setup.settings_applied.connect(self.wake)

    def wake(self) -> None:
        """Something changed (a document added, another model): look again."""
        self.resting = False
        self.crashes = 0
        self.schedule()

    def request(self, doc_id: str | None) -> None:
        """The user opened or asked about ``doc_id``: in a large library it joins the queue."""
        if doc_id and doc_id not in self.wanted and self.limited():
            self.wanted.append(doc_id)
            self.wake()

    def summarize_everything(self) -> None:
        """Summarize every document, however large the library (Library → Summarize all)."""
        self.summarize_all = True
        self.wake()

    def limited(self) -> bool:
        """Whether only the requested documents are summarized (a large library)."""
        if self.summarize_all:
            return False
        row = self.library.db.execute("SELECT COUNT(*) FROM documents WHERE state = 'ready'").fetchone()
        return int(row[0]) > self.all_up_to()

    def queued(self) -> int:
        """Documents waiting for their background summary in a large library (0 otherwise)."""
        return len(self.wanted) if self.limited() else 0

    def why_not(self) -> str:
        """Why no background summary runs now ("" when one may)."""
        if self.runner.stopped:
            return "closing"
        choice = self.setting()
        if choice == "off":
            return "turned off in Settings"
        if choice == "auto" and self.on_battery():
            return "paused on battery power"
        if self.model_missing("Summarizing"):
            return "no model configured"
        return ""

    def schedule(self) -> Job | None:
        """Start a pass unless one runs, the model is busy, or ``why_not`` says no."""
        if self.job is not None or self.resting or self.runner.llm_busy():
            return None
        self.paused_reason = self.why_not()
        if self.paused_reason:
            # Only a pause the user did not choose is said (on battery); "off" is their choice.
            battery = self.paused_reason == "paused on battery power"
            self.status.set_background(f"background summaries {self.paused_reason}" if battery else "")
            return None
        first = self.started_doc or self.selected()
        wanted = list(self.wanted) if self.limited() else None

        def run(job: Job) -> str:
            engine = self.session.ensure_loaded(job.report, job.token)
            library = self.worker_library()
            records = [r for r in reversed(library.documents()) if r.state == "ready" and r.passages > 0]
            records.sort(key=lambda r: r.doc_id != first)  # the one started, else the selected one, first
            if wanted is not None:  # a large library: only those asked for, in the order asked
                by_id = {r.doc_id: r for r in records}
                records = [by_id[d] for d in ([first] if first in wanted else []) + wanted if d in by_id]
            for record in records:
                if answering.cached_summary(library, record.doc_id, engine) is not None:
                    continue
                title = record.title or Path(record.path).name

                def report(progress: Progress, title: str = title) -> None:
                    job.report(BackgroundProgress.of(progress, title))

                self.started_doc = record.doc_id  # (set on the LLM thread, read when the next pass is planned)
                answering.summarize(engine, library, record.doc_id, report, job.token)
                self.started_doc = None
                return record.doc_id
            return NOTHING_LEFT

        job = self.runner.submit_llm("background-summary", run, on_cancel=self.session.cancel, background=True)
        self.job = job
        job.progressed.connect(self._progressed)
        job.succeeded.connect(self._done)
        job.failed.connect(self._failed)
        job.finished.connect(self._finished)
        return job

    def _progressed(self, progress: Progress) -> None:
        if isinstance(progress, BackgroundProgress) and progress.stage == Stage.SUMMARIZE_SEGMENTS:
            inner = progress.inner or progress
            eta = getattr(inner, "eta_s", None)
            eta_text = format_eta(eta if eta is not None else inner.eta_seconds())
            text = f"summarizing {progress.title} in the background, {progress.done}/{progress.total}"
            rate = getattr(inner, "tokens_per_s", None)
            if rate:
                text += f" · {rate:.0f} tok/s"
            if (more := self.queued() - 1) > 0:
                text += f" · {more} more queued"
            self.status.set_background(text + (f" · {eta_text}" if eta_text else ""))
        elif isinstance(progress, BackgroundProgress):
            self.status.set_background(f"summarizing {progress.title} in the background")

    def _done(self, doc_id: str) -> None:
        self.crashes = 0
        if doc_id == NOTHING_LEFT:
            self.resting = True
            self.wanted.clear()  # every document asked for has its summary
            self.status.set_background("")
        else:
            if doc_id in self.wanted:
                self.wanted.remove(doc_id)
            self.summarized.emit(doc_id)

    def _failed(self, error: BaseException) -> None:
        self.messages.report(error, "summarizing in the background", key="background-summary")
        if isinstance(error, EngineError) and self.session.crashed() and self.crashes < CRASHES_IN_A_ROW:
            # The worker died under it (killed, out of memory): the next pass loads the model
            # again and continues where this one stopped (its finished segments are stored).
            self.crashes += 1
            self.status.set_background("background summary: the model stopped; it is loaded again to continue")
            return
        self.resting = True  # not again until something changes: no loop of the same error
        self.status.set_background(STOPPED_AFTER_ERROR)

    def _finished(self) -> None:
        job, self.job = self.job, None
        if job is not None and isinstance(job.stop, Cancelled):
            self.status.set_background("background summary paused: a question or review goes first")
        # The next pass (or this one again, after what it yielded to): now if the model is free
        # (llm_idle came before this job's own end), else at the runner's next llm_idle.
        QTimer.singleShot(0, self, self.schedule)


@dataclass(frozen=True, slots=True)
class BackgroundProgress(Progress):
    """A background summary's progress with the document's title (``inner``: the summarizer's own)."""

    title: str = ""
    inner: Progress | None = None

    @classmethod
    def of(cls, progress: Progress, title: str) -> BackgroundProgress:
        return cls(progress.stage, progress.done, progress.total, progress.message, progress.rate, title, progress)

"""The one job runner: a single worker thread for the LLM, a process for PDF ingest.

Every long operation of the window goes through ``JobRunner``:

* ``submit_llm(name, fn)``: ``fn(job)`` runs in the one LLM worker thread, so inference calls
  never overlap (the model itself lives in its own worker process, see
  ``inference.engines.local``); it reports with ``job.report(progress)`` (sent at a bounded
  rate), ``job.emit_piece(text)`` and ``job.emit_partial(value)`` (a part of the result, each
  one delivered), and checks ``job.token`` to stop early.
* ``submit_side(name, fn)``: the same, in a thread of its own, for work that needs no model and
  must not wait behind an answer (LibreOffice laying out a Word document's pages).
* ``ingest(requests)``: PDF parsing in a spawned process (``app.jobs.ingest_process``); its queue
  is polled by a timer on the GUI thread, never waited on.

Results reach widgets only through the signals of ``Job``/``IngestJob``, and those are only
ever emitted on the GUI thread: the LLM thread puts events in a plain queue that a GUI timer
drains (as Anki's ``aqt`` polls its background operations). Emitting Qt signals from a Python
thread to Python slots crashes PySide6 >= 6.8 now and then ("deallocating None",
https://bugreports.qt.io/browse/PYSIDE-3124), and polling bounds the GUI's update rate too.
Cancellation is cooperative (``CancelToken``); no thread is ever terminated.
"""

from __future__ import annotations

import os
import queue
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from app.jobs.ingest_process import FolderBatch, IngestBatch, IngestProcess, IngestRequest
from app.jobs.process_exit import how_it_ended
from app.jobs.side_lane import SideLane
from inference.cancel import Cancelled, CancelToken
from inference.progress import Progress, Stage

PROGRESS_INTERVAL_S = 0.1  # progress reaches the GUI at most ~10 times a second per job
EVENT_POLL_MS = 20  # the GUI drains the LLM thread's events at this interval
INGEST_POLL_MS = 50
INGEST_KILL_AFTER_S = 5.0  # cancel not honoured by then: end the ingest process


class Job(QObject):
    """A unit of LLM work. Signals arrive on the GUI thread; exactly one of ``succeeded``,
    ``failed``, ``cancelled`` is emitted, then ``finished``."""

    progressed = Signal(object)  # Progress
    piece = Signal(str)
    partial = Signal(object)  # a part of the result, as the job's function finishes it (a review's ItemDone)
    succeeded = Signal(object)
    failed = Signal(object)  # the exception
    cancelled = Signal()
    finished = Signal()

    def __init__(
        self,
        name: str,
        fn: Callable[[Job], Any],
        post: Callable[[Job, str, Any], None],
        on_cancel: Callable[[], None] | None = None,
    ) -> None:
        super().__init__()
        self._post = post
        self.name = name
        self.background = False  # yields to any other job (JobRunner.submit_llm)
        self.fn = fn
        self.token = CancelToken()
        self._on_cancel = on_cancel
        self._last_report = 0.0
        self._last_stage: Stage | None = None
        self.started_at: float | None = None
        self.done = False
        self.stop: Cancelled | None = None
        """How the job's function ended when it was cancelled (it may carry a partial result)."""

    def cancel(self) -> None:
        """Ask the job to stop (any thread). It ends with ``cancelled``."""
        self.token.cancel()
        if self._on_cancel is not None:
            self._on_cancel()

    def report(self, progress: Progress) -> None:
        """Called by the job's function: progress, sent at a bounded rate. A new stage and a
        stage's last step always go through: a dropped first update of the next stage would leave
        the window showing a finished step for as long as that stage runs."""
        now = time.monotonic()
        final = progress.total is not None and progress.done >= progress.total
        new_stage = progress.stage != self._last_stage
        if final or new_stage or now - self._last_report >= PROGRESS_INTERVAL_S:
            self._last_report = now
            self._last_stage = progress.stage
            self._post(self, "progressed", progress)

    def emit_piece(self, text: str) -> None:
        """Called by the job's function: a piece of streamed text."""
        self._post(self, "piece", text)

    def emit_partial(self, value: Any) -> None:
        """Called by the job's function: a part of the result, finished (never dropped)."""
        self._post(self, "partial", value)

    def deliver(self, kind: str, payload: Any) -> None:
        """On the GUI thread: turn one event of the LLM thread into this job's signal."""
        if kind == "progressed":
            self.progressed.emit(payload)
        elif kind == "piece":
            self.piece.emit(payload)
        elif kind == "partial":
            self.partial.emit(payload)
        elif kind == "succeeded":
            self.succeeded.emit(payload)
        elif kind == "failed":
            self.failed.emit(payload)
        elif kind == "cancelled":
            self.stop = payload if isinstance(payload, Cancelled) else None
            self.cancelled.emit()
        elif kind == "finished":
            self.done = True
            self.finished.emit()


class JobRunner(QObject):
    """Owns the LLM worker thread and the ingest processes. ``shutdown()`` before exit."""

    llm_idle = Signal()  # the LLM thread finished its last job: background work may start

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._jobs: queue.Queue[Job | None] = queue.Queue()
        self._current: Job | None = None
        self._lock = threading.Lock()
        self._events: queue.SimpleQueue[tuple[Job, str, Any]] = queue.SimpleQueue()
        self._poll_timer = QTimer(self)
        self._poll_timer.setInterval(EVENT_POLL_MS)
        self._poll_timer.timeout.connect(self.deliver_events)
        self._poll_timer.start()
        self._thread = threading.Thread(target=self._run, name="pagewise-llm-jobs", daemon=True)
        self._thread.start()
        self.ingests: list[IngestJob] = []
        self.idle_ingest_workers: list[IngestProcess] = []  # ingest workers between batches, models loaded
        self._background: list[Job] = []  # background jobs not finished (queued or running)
        self.side = SideLane(self._execute, self._post)  # side jobs running (submit_side)
        self.stopped = False  # shutdown() ran: the window is closing
        self.embed = True  # tests turn embedding off to stay fast
        self.embedding_model: str | None = None

    # LLM lane

    def submit_llm(
        self,
        name: str,
        fn: Callable[[Job], Any],
        on_cancel: Callable[[], None] | None = None,
        *,
        background: bool = False,
    ) -> Job:
        """Queue ``fn`` for the LLM thread. A ``background`` job (a summary made while nothing
        else needs the model) yields to any other job: it is cancelled when one is submitted (it
        stops at its next micro-batch; what it finished stays stored) and is started again by
        its owner after ``llm_idle``."""
        job = Job(name, fn, self._post, on_cancel)
        job.background = background
        job.setParent(self)  # kept alive until finished
        job.finished.connect(lambda: self._finished(job))
        if not background:
            current = self.current_llm_job
            for waiting in self._background:
                if waiting is current:
                    waiting.cancel()  # stops the model mid-generation (on_cancel)
                else:
                    waiting.token.cancel()  # queued: ends at once; the model runs someone else's job
        else:
            self._background.append(job)
        self._jobs.put(job)
        return job

    def llm_busy(self) -> bool:
        """A job is running or queued on the LLM thread."""
        return self.current_llm_job is not None or not self._jobs.empty()

    def _post(self, job: Job, kind: str, payload: Any) -> None:
        self._events.put((job, kind, payload))

    def deliver_events(self, limit: int = 500) -> None:
        """GUI thread: emit the signals for what the LLM thread reported since the last tick.
        Consecutive pieces of one job are joined into one signal."""
        pending_piece: tuple[Job, list[str]] | None = None
        for _ in range(limit):
            try:
                job, kind, payload = self._events.get_nowait()
            except queue.Empty:
                break
            if kind == "piece":
                if pending_piece is not None and pending_piece[0] is job:
                    pending_piece[1].append(payload)
                    continue
                if pending_piece is not None:
                    pending_piece[0].deliver("piece", "".join(pending_piece[1]))
                pending_piece = (job, [payload])
                continue
            if pending_piece is not None:
                pending_piece[0].deliver("piece", "".join(pending_piece[1]))
                pending_piece = None
            job.deliver(kind, payload)
        if pending_piece is not None:
            pending_piece[0].deliver("piece", "".join(pending_piece[1]))

    @property
    def current_llm_job(self) -> Job | None:
        with self._lock:
            return self._current

    def cancel_llm(self) -> bool:
        """Cancel the running LLM job and every queued one; True if there was any."""
        queued: list[Job | None] = []
        while True:
            try:
                queued.append(self._jobs.get_nowait())
            except queue.Empty:
                break
        for job in queued:
            if job is not None:
                job.token.cancel()  # still passes through the thread, which ends it as cancelled
            self._jobs.put(job)
        current = self.current_llm_job
        if current is not None:
            current.cancel()
        return current is not None or any(j is not None for j in queued)

    def _finished(self, job: Job) -> None:
        if job in self._background:
            self._background.remove(job)
        job.deleteLater()
        if not self.stopped and not self.llm_busy():
            self.llm_idle.emit()

    def _run(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            with self._lock:
                self._current = job
            try:
                self._execute(job)
            finally:
                with self._lock:
                    self._current = None
                self._post(job, "finished", None)

    def _execute(self, job: Job) -> None:
        """Run ``job.fn`` in this thread and post how it ended (not ``finished``)."""
        job.started_at = time.monotonic()
        try:
            job.token.raise_if_cancelled()
            result = job.fn(job)
        except Cancelled as stop:
            self._post(job, "cancelled", stop)
        except BaseException as error:  # reported on the GUI thread by app.widgets.messages
            self._post(job, "failed", error)
        else:
            self._post(job, "cancelled" if job.token.cancelled else "succeeded", result)

    # Side lane: work that needs no model and must not wait behind an answer (app.jobs.side_lane)

    def submit_side(self, name: str, fn: Callable[[Job], Any]) -> Job:
        """Run ``fn`` in a thread of its own (LibreOffice laying out a Word document's pages):
        it neither waits for nor holds up the LLM thread. Signals as for ``submit_llm``."""
        job = Job(name, fn, self._post)
        job.setParent(self)
        return self.side.start(job, name)

    # Ingest lane

    def ingest(self, requests: list[IngestRequest], folder: FolderBatch | None = None) -> IngestJob:
        """Add ``requests`` (or the ``folder`` batch) in an idle ingest worker (its embedding model
        still loaded), else a new one."""
        home = os.environ.get("PAGEWISE_HOME")
        worker = next((w for w in self.idle_ingest_workers if w.home == home and w.alive), None)
        if worker is not None:
            self.idle_ingest_workers.remove(worker)
        job = IngestJob(requests, home=home, embed=self.embed, embedding_model=self.embedding_model,
                        worker=worker, folder=folder, parent=self)  # fmt: skip
        self.ingests.append(job)
        job.finished.connect(lambda: self._ingest_finished(job))
        job.start()
        return job

    def _ingest_finished(self, job: IngestJob) -> None:
        if job in self.ingests:
            self.ingests.remove(job)
        worker = job.worker
        if job.batch_over and worker.alive and not self.stopped:
            self.idle_ingest_workers.append(worker)  # kept for the next add
        else:
            worker.kill()

    def busy_with(self) -> list[str]:
        """What is running that closing the window would stop ("adding 2 documents",
        "summarizing"): the jobs a user started, not the search warm-up."""
        running = []
        if self.ingests:
            count = sum(len(job.pending) for job in self.ingests)
            running.append(f"adding {count} document{'s' if count != 1 else ''}")
        current = self.current_llm_job
        if current is not None and current.name in JOB_WORDS:
            running.append(JOB_WORDS[current.name])
        return running

    def shutdown(self, timeout_s: float = 5.0) -> None:
        """Stop everything for good: no job's signal reaches the window after this (its library
        is about to close)."""
        self.stopped = True
        self._poll_timer.stop()
        for job in list(self.ingests):
            job.abandon()
        for worker in self.idle_ingest_workers:
            worker.close()
        self.idle_ingest_workers.clear()
        self.cancel_llm()
        self.side.cancel_all()
        self._jobs.put(None)
        self._thread.join(timeout=timeout_s)


# The LLM thread's jobs a user started, as a question about quitting names them.
JOB_WORDS = {"answer": "answering", "summarize": "summarizing", "review": "reviewing",
             "download": "downloading the model", "reindex": "re-indexing"}  # fmt: skip


class IngestBug(RuntimeError):
    """An unexpected exception in the ingest process, with the child's traceback: a bug."""

    def __init__(self, path: str, summary: str, child_traceback: str) -> None:
        super().__init__(f"{Path(path).name}: {summary}\n--- in the ingest process ---\n{child_traceback}")
        self.path = path


class IngestJob(QObject):
    """One batch of PDFs ingested in a spawned process."""

    file_progress = Signal(str, object)  # path, Progress
    file_done = Signal(str, object)  # path, result dict (IngestResult.to_json() + "path")
    file_failed = Signal(str, str, str)  # path, kind ("password", "document", "other"), message
    bug = Signal(object)  # IngestBug: an unexpected exception in the ingest process
    cancelled = Signal()
    finished = Signal()
    # A folder batch: its id and pending files once found, its progress over the whole set
    # (a BatchProgress), and its summary (BatchSummary.to_json()) at the end.
    batch_planned = Signal(int, list)
    batch_progress = Signal(object)
    batch_finished = Signal(dict)

    def __init__(
        self,
        requests: list[IngestRequest],
        *,
        home: str | None,
        embed: bool,
        embedding_model: str | None,
        worker: IngestProcess | None = None,
        folder: FolderBatch | None = None,
        parent: QObject | None = None,
    ) -> None:
        """``worker``: an idle ingest worker to add the files in (None: a new one is started)."""
        super().__init__(parent)
        self.requests = requests
        self.folder = folder
        self.batch_id: int | None = folder.resume_id if folder is not None else None
        self.paths = [r.path for r in requests]
        self.pending = set(self.paths)
        self.worker = worker or IngestProcess(home=home)
        self._process = self.worker
        self._batch = IngestBatch(requests, embed, embedding_model, folder)
        self.batch_over = False  # the worker said the batch is over: it can take another
        self._timer = QTimer(self)
        self._timer.setInterval(INGEST_POLL_MS)
        self._timer.timeout.connect(self._poll)
        self.was_cancelled = False
        self.done = False
        self._started = threading.Event()
        self._start_error: BaseException | None = None

    def start(self) -> None:
        if self._process.started:  # an idle worker: the batch goes straight to it
            self._process.submit(self._batch)
            self._started.set()
        else:
            # Starting a spawned process forks this (large) process and execs Python: ~50-100 ms
            # measured on the GUI thread, so it happens on a short-lived helper thread instead.
            self._starter = threading.Thread(target=self._start_process, name="pagewise-ingest-start", daemon=True)
            self._starter.start()
        self._timer.start()

    def _start_process(self) -> None:
        try:
            self._process.start()
            self._process.submit(self._batch)
        except BaseException as error:  # reported by _poll on the GUI thread
            self._start_error = error
        finally:
            self._started.set()

    def cancel(self) -> None:
        self.was_cancelled = True
        self._process.cancel()

    def kill(self) -> None:
        self._started.wait(timeout=10)
        self._process.kill()

    def abandon(self) -> None:
        """The window closes: stop the process and send nothing more (the library resumes the
        file on the next ingest)."""
        self.blockSignals(True)
        self._timer.stop()
        self.cancel()
        self.kill()

    def _handle(self, messages: list[tuple[Any, ...]]) -> None:
        for message in messages:
            kind = message[0]
            if kind == "progress":
                _, path, stage, done, total, text, rate = message
                self.file_progress.emit(path, Progress(Stage(stage), done, total, text, rate))
            elif kind == "done":
                self.pending.discard(message[1])
                self.file_done.emit(message[1], message[2])
            elif kind == "error":
                self.pending.discard(message[1])
                self.file_failed.emit(message[1], message[2], message[3])
            elif kind == "bug":
                self.pending.discard(message[1])
                self.bug.emit(IngestBug(message[1], message[2], message[3]))
            elif kind == "batch":
                self.batch_id = int(message[1])
                self.paths = list(message[2])
                self.pending = set(self.paths)
                self.batch_planned.emit(self.batch_id, self.paths)
            elif kind == "batch_progress":
                from summarizer.library.batches.run_batch import BatchProgress

                _, done, total, path, rate, pages, eta = message
                name = Path(path).name if path else ""
                self.batch_progress.emit(BatchProgress(Stage.ADD_FILES, done, total, name, rate, pages, eta, path))
            elif kind == "batch_summary":
                self.batch_finished.emit(message[1])
            elif kind == "cancelled":
                self.was_cancelled = True
            elif kind == "finished":
                self.batch_over = True

    def _batch_stopped_message(self) -> str:
        how = f"The PDF reader {how_it_ended(self._process.exitcode)}"
        if self.batch_id is None:  # it ended before the batch was stored: there is nothing to continue
            names = ", ".join(Path(root).name for root in self.folder.roots) if self.folder else "the folder"
            return f"{how} while it looked for the documents in {names}; nothing was added. Add {names} again."
        return f"{how} with {len(self.pending)} files still to add; the files added so far stay."

    def _poll(self) -> None:
        if self.done or not self._started.is_set():
            return
        if self._start_error is not None:
            self._timer.stop()
            for path in sorted(self.pending):
                self.file_failed.emit(path, "other", f"The PDF reader process could not start: {self._start_error}")
            self.pending.clear()
            self.done = True
            self.finished.emit()
            return
        self._handle(self._process.poll())
        if self.batch_over:
            pass
        elif self._process.alive:
            started = self._process.cancel_requested_at
            if started is not None and time.monotonic() - started > INGEST_KILL_AFTER_S:
                self._process.kill()  # the last resort; the library resumes on the next ingest
            return
        else:  # the process ended during the batch: take what it sent last, then finish
            self._handle(self._process.poll(limit=100_000))
        self._timer.stop()
        if not self.was_cancelled and not self.batch_over and self.folder is not None:
            # A folder batch is kept in the library: one message, and it continues from there.
            self.file_failed.emit("", "stopped", self._batch_stopped_message())
            self.pending.clear()
        if not self.was_cancelled and self.pending and not self.batch_over:
            for path in sorted(self.pending):
                self.file_failed.emit(
                    path, "other", f"{Path(path).name}: the PDF reader {how_it_ended(self._process.exitcode)}. "
                    "Try adding the file again."
                )  # fmt: skip
        if self.was_cancelled:
            self.cancelled.emit()
        self.done = True
        self.finished.emit()

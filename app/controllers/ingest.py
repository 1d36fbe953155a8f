"""Adding PDFs: the ingest process's progress in the library rows and the progress line,
the password asked (again) for an encrypted file, failures as messages, cancel.

A folder or a .zip (a data room) is added as one batch (``summarizer.library.batches``): the
progress line counts files over the whole set with pages per second and the time left; only the
file being added and those that failed get a row until they are in the library; one message at
the end sums it up (added, skipped as duplicates, failed, not documents). The batch is kept in the
library, so a batch stopped by closing the window is offered again at the next start
(``offer_resume``)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from app.controllers.context import JobContext, UsesJobContext
from app.jobs.ingest_process import FolderBatch, IngestRequest, expand_paths
from app.jobs.runner import IngestJob
from app.views.library_panel import LibraryPanel
from app.widgets.job_progress import JobProgress, describe, row_state
from inference.progress import Progress

AskPassword = Callable[[str, bool], str | None]
"""(path, the last password was wrong) → a password, or None when the user cancelled."""

# While a batch runs, the library list is read again at most this often (each read lists every
# document: once per file of a 449-file batch kept the GUI thread busy for nothing).
BATCH_REFRESH_MS = 1500
RESUME_KEY = "ingest-batch"


def is_batch_path(path: Path) -> bool:
    return path.is_dir() or path.suffix.lower() == ".zip"


def describe_summary(summary: dict[str, Any]) -> str:
    """ "448 added, 1 skipped as a duplicate, 2 failed, 3 not added (not documents)"."""
    parts = [f"{summary['added']} added"]
    if summary["duplicates"]:
        parts.append(f"{summary['duplicates']} skipped as duplicate{'s' if summary['duplicates'] != 1 else ''}")
    if summary["failed"]:
        parts.append(f"{len(summary['failed'])} failed (their rows say why)")
    if summary["skipped"]:
        parts.append(f"{len(summary['skipped'])} not added (not documents)")
    if summary["pending"]:
        parts.append(f"{summary['pending']} still to add")
    return ", ".join(parts)


class IngestController(UsesJobContext, QObject):
    added = Signal(str)  # doc_id
    documents_changed = Signal()
    idle = Signal()  # every ingest has ended

    def __init__(
        self,
        context: JobContext,
        library_panel: LibraryPanel,
        progress: JobProgress,
        passwords: dict[str, str],
        ask_password: AskPassword,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.context = context
        self.library_panel = library_panel
        self.progress = progress
        self.passwords = passwords  # shared with the viewer; this session only, never on disk
        self.ask_password = ask_password
        progress.cancel_requested.connect(self.cancel)
        library_panel.files_dropped.connect(self.add_paths)
        library_panel.retry_requested.connect(lambda path: self.add_paths([Path(path)]))
        library_panel.retry_many_requested.connect(lambda paths: self.add_paths([Path(p) for p in paths]))
        self._refresh_timer = QTimer(self)
        self._refresh_timer.setSingleShot(True)
        self._refresh_timer.setInterval(BATCH_REFRESH_MS)
        self._refresh_timer.timeout.connect(self._refresh_due)
        self._refresh_pending = False

    def add_paths(self, paths: list[Path], password: str | None = None) -> IngestJob | None:
        if any(is_batch_path(Path(p)) for p in paths):
            return self.add_batch([Path(p) for p in paths])
        files = expand_paths([Path(p) for p in paths])
        if not files:
            self.messages.warning("No PDF files were found there.")
            return None
        for path in files:
            self.library_panel.set_file(str(path), "waiting…")
        requests = [IngestRequest(str(p), password or self.passwords.get(str(p))) for p in files]
        job = self.runner.ingest(requests)
        total = len(files)
        self.progress.start(f"Adding {total} document{'s' if total > 1 else ''}…")
        job.file_progress.connect(lambda path, p: self._progressed(job, path, p))
        job.file_done.connect(self._done)
        job.file_failed.connect(self._failed)
        job.bug.connect(lambda bug: self.messages.report(bug, "adding documents"))
        job.cancelled.connect(lambda: self._cancelled(job))
        job.finished.connect(self._finished)
        return job

    def add_batch(self, roots: list[Path], resume_id: int | None = None) -> IngestJob:
        """Add folders and zips as one batch (finding their files happens in the ingest process),
        or continue the stored batch ``resume_id``."""
        for key in (RESUME_KEY, f"{RESUME_KEY}-disk", f"{RESUME_KEY}-stopped"):
            self.messages.resolve(key)
        job = self.runner.ingest([], FolderBatch([str(r) for r in roots], resume_id))
        names = ", ".join(r.name for r in roots) or "the documents"
        self.progress.start(f"Finding the documents in {names}…")
        job.batch_progress.connect(self._batch_progressed)
        job.file_progress.connect(lambda path, p: self.library_panel.set_file(path, row_state(p) or ""))
        job.file_done.connect(self._batch_file_done)
        job.file_failed.connect(self._batch_file_failed)
        job.bug.connect(lambda bug: self.messages.report(bug, "adding documents"))
        job.batch_finished.connect(lambda summary: self._batch_finished(job, names, summary))
        job.cancelled.connect(lambda: self._batch_cancelled(job, names))
        job.finished.connect(self._finished)
        return job

    def batch_running(self) -> bool:
        """Whether a folder or zip is being added (its documents are not announced one by one)."""
        return any(job.folder is not None for job in self.runner.ingests)

    def offer_resume(self) -> int | None:
        """At start: a batch the window was closed in the middle of is offered to continue."""
        from summarizer.library.batches.batch_store import batch_summary, unfinished_batch

        batch_id = unfinished_batch(self.library)
        if batch_id is None:
            return None
        summary = batch_summary(self.library, batch_id)
        if not summary.pending:
            return None
        names = ", ".join(Path(r).name for r in summary.roots)
        self.messages.info(
            f"Adding {names} was stopped before it finished: {summary.done} of {summary.total} files done, "
            f"{summary.pending} to add.",
            key=RESUME_KEY,
            action="Continue",
            on_action=lambda: self.add_batch([Path(r) for r in summary.roots], batch_id),
        )
        return batch_id

    def _batch_progressed(self, progress: Progress) -> None:
        rate = f" · {progress.rate:.1f} pages/s" if progress.rate else ""
        # (a BatchProgress: its time left is its own, from the bytes still to read)
        self.progress.update_progress(dataclasses.replace(progress, message=f"{progress.message}{rate}"))
        path = getattr(progress, "path", "")
        if path:
            self.library_panel.set_file(path, "adding…")

    def _batch_file_done(self, path: str, result: dict[str, Any]) -> None:
        self.library_panel.finish_file(path, result["doc_id"])
        if self._refresh_timer.isActive():
            self._refresh_pending = True  # listed when the timer ends
        else:
            self.documents_changed.emit()
            self._refresh_timer.start()
        if result.get("outcome") == "added":
            self.added.emit(result["doc_id"])

    def _refresh_due(self) -> None:
        if self._refresh_pending:
            self._refresh_pending = False
            self.documents_changed.emit()
            self._refresh_timer.start()

    def _batch_file_failed(self, path: str, kind: str, message: str) -> None:
        if kind in ("disk", "stopped"):  # the batch stopped; the files added stay
            job = next((j for j in self.runner.ingests if j.folder is not None), None)
            # The file it was reading has no work going on any more: its row goes (a partial record
            # is listed as interrupted), as after a cancel.
            for file in {path, *(job.pending if job is not None else ())} - {""}:
                self.library_panel.remove_key(f"path:{file}")
            if job is not None and job.batch_id is not None and job.folder is not None:
                roots, batch_id = [Path(r) for r in job.folder.roots], job.batch_id
                # (a full disk's message stays beside the batch's summary, which comes next)
                self.messages.warning(message, key=f"{RESUME_KEY}-{kind}", action="Continue",
                                      on_action=lambda: self.add_batch(roots, batch_id))  # fmt: skip
            else:
                self.messages.error(message, key=f"{RESUME_KEY}-{kind}")
            return
        state = "encrypted · needs its password" if "password" in message.lower() else "error · could not be added"
        self.library_panel.set_file(path, state, message)

    def _batch_finished(self, job: IngestJob, names: str, summary: dict[str, Any]) -> None:
        self._refresh_timer.stop()
        self.documents_changed.emit()
        text = f"Added {names}: {describe_summary(summary)}."
        if summary["pending"]:
            roots = [Path(r) for r in summary["roots"]]
            batch_id = int(summary["batch_id"])
            self.messages.warning(text, key=RESUME_KEY, action="Continue",
                                  on_action=lambda: self.add_batch(roots, batch_id))  # fmt: skip
        elif summary["failed"]:
            self.messages.warning(text, key=RESUME_KEY)
        else:
            self.messages.info(text, key=RESUME_KEY)

    def _batch_cancelled(self, job: IngestJob, names: str) -> None:
        self._refresh_timer.stop()
        for path in job.pending:
            self.library_panel.remove_key(f"path:{path}")
        batch_id = job.batch_id
        roots = [Path(r) for r in job.folder.roots] if job.folder is not None else []
        self.messages.info(
            f"Adding {names} was stopped: the files added so far stay. Continue now or at the next start.",
            key=RESUME_KEY,
            action="Continue",
            on_action=(lambda: self.add_batch(roots, batch_id)) if batch_id is not None else None,
        )

    def cancel(self) -> None:
        for job in list(self.runner.ingests):
            job.cancel()
        self.progress.cancel_button.setEnabled(False)

    def _progressed(self, job: IngestJob, path: str, progress: Progress) -> None:
        done = len(job.paths) - len(job.pending)
        self.progress.update_progress(progress)
        self.progress.label.setText(f"Adding {Path(path).name} ({done + 1} of {len(job.paths)}) — {describe(progress)}")
        self.library_panel.set_file(path, row_state(progress) or "")

    def _done(self, path: str, result: dict[str, Any]) -> None:
        self.library_panel.finish_file(path, result["doc_id"])
        self.messages.resolve(f"ingest:{path}")
        self.documents_changed.emit()
        for warning in result.get("warnings", []):
            self.messages.warning(f"{Path(path).name}: {warning}")
        self.added.emit(result["doc_id"])

    def _failed(self, path: str, kind: str, message: str) -> None:
        if kind == "password":
            password = self.ask_password(path, path in self.passwords)
            if password:
                self.passwords[path] = password
                self.add_paths([Path(path)], password)
                return
            self.library_panel.set_file(path, "encrypted · needs its password", message)
        else:
            self.library_panel.set_file(path, "error · could not be added", message)
        self.messages.error(message, key=f"ingest:{path}")

    def _cancelled(self, job: IngestJob) -> None:
        for path in job.pending:
            self.library_panel.remove_key(f"path:{path}")
        self.messages.info("Adding documents was cancelled. Add them again to finish: finished pages are kept.")

    def _finished(self) -> None:
        self.documents_changed.emit()
        if not self.runner.ingests:
            self.progress.stop()
            self.idle.emit()

"""Adding PDFs: the ingest process's progress in the library rows and the progress line,
the password asked (again) for an encrypted file, failures as messages, cancel."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

from app.controllers.context import JobContext, UsesJobContext
from app.jobs.ingest_process import IngestRequest, expand_paths
from app.jobs.runner import IngestJob
from app.views.library_panel import LibraryPanel
from app.widgets.job_progress import JobProgress, describe, row_state
from inference.progress import Progress

AskPassword = Callable[[str, bool], str | None]
"""(path, the last password was wrong) → a password, or None when the user cancelled."""


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

    def add_paths(self, paths: list[Path], password: str | None = None) -> IngestJob | None:
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

"""The job runner's side lane: work that needs no model and must not wait behind an answer
(LibreOffice laying out a Word document's pages), each job in a thread of its own.

``JobRunner.submit_side`` makes the ``Job`` and hands it here; the lane runs it as the LLM thread
runs its jobs (the runner's ``execute``, events through the runner's queue, so its signals reach
the GUI thread the same way), keeps it until it finished, and cancels what still runs when the
window closes.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.jobs.runner import Job


class SideLane:
    """The side jobs running, each in its own thread."""

    def __init__(self, execute: Callable[[Job], None], post: Callable[[Job, str, Any], None]) -> None:
        self._execute = execute  # runs the job's function and posts how it ended (not ``finished``)
        self._post = post
        self.running: list[Job] = []

    def start(self, job: Job, name: str) -> Job:
        """Run ``job`` in a thread named after ``name``: it neither waits for nor holds up the LLM
        thread."""
        self.running.append(job)
        job.finished.connect(lambda: self._finished(job))

        def run() -> None:
            try:
                self._execute(job)
            finally:
                self._post(job, "finished", None)

        threading.Thread(target=run, name=f"pagewise-{name}", daemon=True).start()
        return job

    def _finished(self, job: Job) -> None:
        if job in self.running:
            self.running.remove(job)
        job.deleteLater()

    def cancel_all(self) -> None:
        """The window closes: every side job still running is asked to stop."""
        for job in self.running:
            job.cancel()

"""What the window's controllers share, built once by ``MainWindow``.

A controller takes one ``JobContext`` (the one job runner, the model session, the library as
the GUI thread's and as the LLM thread's connection, the message center, the status bar) plus
its own view and callbacks. ``UsesJobContext`` gives a controller those parts as read-only
attributes (``self.runner``, ``self.library``...), read from its ``context``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.controllers import WorkerLibrary
    from app.jobs.runner import JobRunner
    from app.services.model_session import ModelSession
    from app.widgets.messages import MessageCenter
    from app.widgets.status_bar import StatusBar
    from summarizer.library.storage.store import Library


@dataclass(frozen=True)
class JobContext:
    runner: JobRunner
    session: ModelSession
    library: Library  # the GUI thread's connection
    worker_library: WorkerLibrary  # the LLM thread's
    messages: MessageCenter
    status: StatusBar


class UsesJobContext:
    """A controller's shared dependencies, read from the ``context`` it was given."""

    context: JobContext

    @property
    def runner(self) -> JobRunner:
        return self.context.runner

    @property
    def session(self) -> ModelSession:
        return self.context.session

    @property
    def library(self) -> Library:
        return self.context.library

    @property
    def worker_library(self) -> WorkerLibrary:
        return self.context.worker_library

    @property
    def messages(self) -> MessageCenter:
        return self.context.messages

    @property
    def status(self) -> StatusBar:
        return self.context.status

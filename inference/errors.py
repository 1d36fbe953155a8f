"""Typed errors whose messages are written for the person using Pagewise.

Each message says what failed, on which file, and what to do next. ``app`` shows
``str(error)`` as is; the CLI prints it as one line. The errors of documents, the library and
settings live a floor up, in ``summarizer.errors``, and share the base ``PagewiseError``.
"""

from __future__ import annotations

from pathlib import Path


class PagewiseError(Exception):
    """Base of every error Pagewise reports to a user."""

    exit_code = 1

    def __init__(self, message: str, *, path: Path | str | None = None, detail: str = "") -> None:
        super().__init__(message)
        self.path = Path(path) if path is not None else None
        self.detail = detail
        """Technical detail kept apart from the message (e.g. llama.cpp's last log line): the
        CLI prints it on a line of its own, the window under the message."""

    @property
    def message(self) -> str:
        return str(self)


class ModelError(PagewiseError):
    """A model file is missing, damaged or unusable."""


class PlanError(PagewiseError):
    """The model cannot be fitted into the memory budget as asked."""


class EngineError(PagewiseError):
    """The inference engine failed (worker crashed, out of memory, server down)."""


class ApiKeyError(EngineError):
    """A server refused a request for its API key (HTTP 401 or 403): ``key_sent`` tells "none
    was sent" (the server needs one) from "the one sent is wrong"."""

    def __init__(self, message: str, *, key_sent: bool, detail: str = "") -> None:
        super().__init__(message, detail=detail)
        self.key_sent = key_sent

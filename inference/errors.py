"""Typed errors whose messages are written for the person using Pagewise.

Each message says what failed, on which file, and what to do next. ``app`` shows
``str(error)`` as is; the CLI prints it as one line. The errors of documents, the library and
settings live a floor up, in ``summarizer.errors``, and share the base ``PagewiseError``.

``shorten_message`` is the one way a text quoted in a message (an exception's words, a server's
reply) is made shorter: at a word boundary, ending in "…", never mid-word.
"""

from __future__ import annotations

import re
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


ELLIPSIS = "…"
_LAST_SPACE = re.compile(r"\s\S*$")
_LAST_SEPARATOR = re.compile(r"[/\\?&=#,;:._-][^/\\?&=#,;:._-]*$")  # inside one long word (a URL, a path)


def shorten_message(text: str, limit: int) -> str:
    """``text`` as is if it has at most ``limit`` characters; otherwise cut before the first word
    that does not fit and ended with "…" (``limit`` characters in all). A single word longer than
    the room (a URL) is cut after a separator in it ("/", "?", "-"...), or, having none, by force."""
    if len(text) <= limit:
        return text
    room = max(limit - len(ELLIPSIS), 0)
    head = text[:room]
    if not text[room].isspace():  # the cut falls inside a word: go back to its start
        space = _LAST_SPACE.search(head)
        if space is not None and space.start() > 0:
            head = head[: space.start()]
        elif (separator := _LAST_SEPARATOR.search(head)) is not None and separator.start() > 0:
            head = head[: separator.start() + 1]
    return head.rstrip(" \t\r\n,;:") + ELLIPSIS


def error_cause(error: BaseException, limit: int = 300) -> str:
    """An exception's words for a message: its first line, without the final full stop (the
    message goes on after it), shortened at a word boundary; its type's name if it has none."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return shorten_message(lines[0].rstrip("."), limit) if lines else type(error).__name__


class ServerUnreachable(EngineError):
    """A model server did not answer (connection refused or reset, the reply cut off): a job
    that keeps what it has done can wait for the server and go on (``url`` says which)."""

    def __init__(self, message: str, *, url: str, detail: str = "") -> None:
        super().__init__(message, detail=detail)
        self.url = url


class ApiKeyError(EngineError):
    """A server refused a request for its API key (HTTP 401 or 403): ``key_sent`` tells "none
    was sent" (the server needs one) from "the one sent is wrong"."""

    def __init__(self, message: str, *, key_sent: bool, detail: str = "") -> None:
        super().__init__(message, detail=detail)
        self.key_sent = key_sent

"""Cooperative cancellation shared by every long operation."""

from __future__ import annotations

import threading


class Cancelled(Exception):
    """The user cancelled the operation. Error reporting ignores it."""

    def __init__(self, message: str = "Cancelled.") -> None:
        super().__init__(message)


class CancelToken:
    """A flag set from any thread (or a signal handler) and checked by the worker.

    Work checks ``raise_if_cancelled()`` between units (a page, a batch, a prefill chunk).
    """

    __slots__ = ("_event",)

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def raise_if_cancelled(self) -> None:
        if self._event.is_set():
            raise Cancelled()

    def wait(self, timeout: float) -> bool:
        """Sleep up to ``timeout`` seconds, waking early on cancel. True if cancelled."""
        return self._event.wait(timeout)


NEVER_CANCELLED = CancelToken()
"""A token nobody cancels, for callers that offer no cancel button."""

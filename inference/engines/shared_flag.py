"""A cancel flag shared with a child process that no process can leave locked.

``multiprocessing.Event`` is a condition over semaphores: a process that ends inside
``Event.wait()`` (a daemon thread waiting when its process exits, or a killed process) leaves
the condition's counts as if a sleeper were still there, and one that dies while ``is_set()``
holds the lock leaves the lock held. The next ``set()`` or ``clear()`` in the parent then
blocks forever: closing the window hung in the ingest job's cancel after its process had
finished with a watcher thread still waiting on the event. A byte of shared memory with no lock
cannot be left held: the parent writes it, the child reads it (and polls where it would wait).
"""

from __future__ import annotations

import ctypes
from multiprocessing.context import BaseContext
from typing import Any


class SharedFlag:
    """A boolean in shared memory, passed to a child process at its start."""

    def __init__(self, context: BaseContext) -> None:
        self._value: Any = context.RawValue(ctypes.c_bool, False)

    def set(self) -> None:
        self._value.value = True

    def clear(self) -> None:
        self._value.value = False

    def is_set(self) -> bool:
        return bool(self._value.value)

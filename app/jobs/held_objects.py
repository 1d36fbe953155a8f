"""Python's full garbage collections kept short while a long job fills the window (issue 57).

A full collection walks every object the collector tracks, holding the GIL, so the GUI thread
waits for it whichever thread runs it: with a data room's reviews held by the Review table (449
contracts x 41 items) one took 76 ms at 100 contracts and grows with them (``scripts/
bench_gui_stall.py`` times each collection). While the job runs, what is already held is moved
out of the collector's walk (``gc.freeze``, every few seconds: O(1), a splice of its lists), so a
collection walks only what came since. Objects whose count drops to zero are freed as ever
meanwhile; only reference cycles that became garbage during the job wait for the thaw.

The thaw (``gc.unfreeze`` and the one full collection it owes) waits, after the last job ends,
until the user has left the window alone for ``IDLE_S`` (no key, click, wheel or mouse move, or
another application in front): handed back at the job's end, that walk came at whatever moment
the collector next chose, often while the user scrolled the freshly filled table. A job that
starts meanwhile keeps everything frozen and the wait begins again at its end.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from typing import ClassVar, Protocol

from PySide6.QtCore import QCoreApplication, QEvent, QObject, QTimer

FREEZE_EVERY_S = 5.0
IDLE_S = 5.0  # the user left the window alone this long: the one long walk is not felt
CHECK_MS = 1000
INPUT = {QEvent.Type.KeyPress, QEvent.Type.MouseButtonPress, QEvent.Type.MouseMove, QEvent.Type.Wheel}


def thaw() -> None:
    """The frozen objects handed back, and walked once now (the full collection they owe)."""
    gc.unfreeze()
    gc.collect()


class Waiting(Protocol):
    def cancel(self) -> None: ...


class WhenIdle(QObject):
    """Calls ``then`` once the user has left the application alone for ``idle_s`` (in another
    application, the same): input is watched, by an event filter on the application, only while
    this waits. Without a Qt application ``then`` is called at once (no window to keep responsive)."""

    def __init__(
        self, then: Callable[[], None], idle_s: float = IDLE_S, clock: Callable[[], float] = time.monotonic
    ) -> None:
        super().__init__()
        self.then, self.idle_s, self.clock = then, idle_s, clock
        self.last_input = clock()
        self.app = QCoreApplication.instance()
        self.timer = QTimer(self)
        self.timer.setInterval(CHECK_MS)
        self.timer.timeout.connect(self.check)
        if self.app is None:
            then()
            return
        self.app.installEventFilter(self)
        self.timer.start()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in INPUT:
            self.last_input = self.clock()
        return False

    def check(self) -> None:
        if self.clock() - self.last_input >= self.idle_s:
            self.cancel()
            self.then()

    def cancel(self) -> None:
        self.timer.stop()
        if self.app is not None:
            self.app.removeEventFilter(self)


class HeldObjects:
    """``hold()`` at a job's start and on its ticks (frozen at most every ``FREEZE_EVERY_S``),
    ``release()`` when it ends. Nested holders share one freeze: after the last release, the thaw
    waits for the user to pause (``when_idle``, which tests replace)."""

    holders = 0  # jobs holding, in this process
    waiting: ClassVar[Waiting | None] = None  # the thaw waiting for the user to pause

    def __init__(self, when_idle: Callable[[Callable[[], None]], Waiting] = WhenIdle) -> None:
        self.holding = False
        self.frozen_at = 0.0
        self.when_idle = when_idle

    def hold(self) -> None:
        if not self.holding:
            self.holding = True
            HeldObjects.holders += 1
            if HeldObjects.waiting is not None:  # still frozen: this job keeps it so
                HeldObjects.waiting.cancel()
                HeldObjects.waiting = None
        now = time.monotonic()
        if now - self.frozen_at >= FREEZE_EVERY_S:
            self.frozen_at = now
            gc.freeze()

    def release(self) -> None:
        if self.holding:
            self.holding = False
            HeldObjects.holders -= 1
            if HeldObjects.holders == 0 and HeldObjects.waiting is None:
                HeldObjects.waiting = self.when_idle(HeldObjects._thaw)

    @staticmethod
    def _thaw() -> None:
        HeldObjects.waiting = None
        if HeldObjects.holders == 0:
            thaw()

"""Python's full garbage collections kept short while a long job fills the window (issue 57).

A full collection walks every object the collector tracks, holding the GIL, so the GUI thread
waits for it whichever thread runs it: with a data room's reviews held by the Review table (449
contracts x 41 items) one took 76 ms at 100 contracts and grows with them (``scripts/
bench_gui_stall.py`` times each collection). While the job runs, what is already held is moved
out of the collector's walk (``gc.freeze``, every few seconds: O(1), a splice of its lists), so a
collection walks only what came since; when the job ends it is handed back (``gc.unfreeze``) and
the next full collection, once, walks it all again. Objects whose count drops to zero are freed as
ever meanwhile; only reference cycles that became garbage during the job wait for its end.
"""

from __future__ import annotations

import gc
import time

FREEZE_EVERY_S = 5.0


class HeldObjects:
    """``hold()`` at a job's start and on its ticks (frozen at most every ``FREEZE_EVERY_S``),
    ``release()`` when it ends. Nested holders share one freeze: the last release thaws."""

    holders = 0  # jobs holding, in this process

    def __init__(self) -> None:
        self.holding = False
        self.frozen_at = 0.0

    def hold(self) -> None:
        if not self.holding:
            self.holding = True
            HeldObjects.holders += 1
        now = time.monotonic()
        if now - self.frozen_at >= FREEZE_EVERY_S:
            self.frozen_at = now
            gc.freeze()

    def release(self) -> None:
        if self.holding:
            self.holding = False
            HeldObjects.holders -= 1
            if HeldObjects.holders == 0:
                gc.unfreeze()

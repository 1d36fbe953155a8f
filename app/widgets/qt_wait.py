"""Wait for a condition while the Qt event loop runs (selftest and benchmark scripts).

Runs a nested ``QEventLoop`` checked by a timer, rather than the usual
``while not done: app.processEvents()``: in PySide6 6.12 every ``processEvents()`` call
drops one reference to ``None`` too many, and a few thousand calls abort the interpreter
("Fatal Python error: none_dealloc"). Reproduce with
``for _ in range(6000): QCoreApplication.processEvents()``.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import QEventLoop, QTimer

CHECK_MS = 10


def wait_until(done: Callable[[], bool], timeout_s: float) -> bool:
    """Run the event loop until ``done()`` is true (True) or ``timeout_s`` passed (False)."""
    if done():
        return True
    deadline = time.monotonic() + timeout_s
    loop = QEventLoop()
    result = [False]

    def check() -> None:
        if done():
            result[0] = True
            loop.quit()
        elif time.monotonic() > deadline:
            loop.quit()

    timer = QTimer()
    timer.setInterval(CHECK_MS)
    timer.timeout.connect(check)
    timer.start()
    loop.exec()
    timer.stop()
    return result[0]

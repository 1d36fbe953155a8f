"""The cancel flag shared with the ingest and llama.cpp processes cannot be left locked."""

from __future__ import annotations

import multiprocessing
import threading
import time
from typing import Any

from inference.engines.shared_flag import SharedFlag


def _child_waits_then_exits(flag: Any) -> None:
    # A daemon thread still waiting when its process ends: what the ingest child did.
    def watch() -> None:
        if hasattr(flag, "wait"):
            flag.wait()
        else:
            while not flag.is_set():
                time.sleep(0.01)

    threading.Thread(target=watch, daemon=True).start()
    time.sleep(0.3)


def _set_returns(flag: Any, within_s: float) -> bool:
    """Whether ``flag.set()`` returns within ``within_s`` after the child ended."""
    context = multiprocessing.get_context("spawn")
    child = context.Process(target=_child_waits_then_exits, args=(flag,))
    child.start()
    child.join(30)
    assert child.exitcode == 0
    setter = threading.Thread(target=flag.set, daemon=True)
    setter.start()
    setter.join(within_s)
    return not setter.is_alive()


def test_set_returns_after_a_child_ended_while_watching() -> None:
    flag = SharedFlag(multiprocessing.get_context("spawn"))
    assert _set_returns(flag, 10)
    assert flag.is_set()
    flag.clear()
    assert not flag.is_set()


def test_a_multiprocessing_event_hangs_there() -> None:
    """Why SharedFlag exists: the same with multiprocessing.Event never returns."""
    assert not _set_returns(multiprocessing.get_context("spawn").Event(), 3)

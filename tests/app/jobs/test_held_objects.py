"""What a long job holds is kept out of Python's full garbage collections while it runs
(``gc.freeze``); after the last holder ends it is handed back, and walked once, only when the user
has left the window alone (the room review's end no longer hands a walk of everything to whatever
moment the collector picks next); the room review holds its rows so."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent

from app.jobs.held_objects import HeldObjects, WhenIdle
from tests.app.controllers.room_tab import room_window, slow_fake, wait_done


class Pending:
    """The thaw asked for, not run until the test says the user paused (``then``)."""

    def __init__(self, then: Callable[[], None]) -> None:
        self.then, self.cancelled = then, False

    def cancel(self) -> None:
        self.cancelled = True


@pytest.fixture
def waits() -> Iterator[list[Pending]]:
    asked: list[Pending] = []
    yield asked
    HeldObjects.waiting = None
    gc.unfreeze()


@pytest.fixture
def full_collections() -> Iterator[list[int]]:
    """The generation of each collection run meanwhile (2: a full one)."""
    seen: list[int] = []

    def record(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            seen.append(info["generation"])

    gc.callbacks.append(record)
    yield seen
    gc.callbacks.remove(record)


def holder(waits: list[Pending]) -> HeldObjects:
    def when_idle(then: Callable[[], None]) -> Pending:
        waits.append(Pending(then))
        return waits[-1]

    return HeldObjects(when_idle=when_idle)


def test_the_last_holder_to_release_thaws_only_once_the_user_pauses(
    waits: list[Pending], full_collections: list[int]
) -> None:
    first, second = holder(waits), holder(waits)
    first.hold()
    assert gc.get_freeze_count() > 0
    second.hold()
    first.release()
    first.release()  # twice: counted once
    assert not waits  # the second still holds
    second.release()
    assert len(waits) == 1 and gc.get_freeze_count() > 0  # the job's end walks nothing
    assert 2 not in full_collections
    waits[0].then()  # the user left the window alone
    assert gc.get_freeze_count() == 0 and 2 in full_collections  # handed back, and walked once then
    assert HeldObjects.waiting is None


def test_a_job_that_starts_before_the_pause_keeps_everything_frozen(
    waits: list[Pending], full_collections: list[int]
) -> None:
    first, second = holder(waits), holder(waits)
    first.hold()
    first.release()
    second.hold()  # another job, before the user paused
    assert waits[0].cancelled and gc.get_freeze_count() > 0
    second.release()
    assert len(waits) == 2 and not waits[1].cancelled
    assert 2 not in full_collections
    waits[1].then()
    assert gc.get_freeze_count() == 0


def key(which: Qt.Key) -> QKeyEvent:
    return QKeyEvent(QEvent.Type.KeyPress, which, Qt.KeyboardModifier.NoModifier)


def test_the_wait_ends_when_no_key_click_or_move_came_for_idle_s(qapp: Any) -> None:
    now, called = [100.0], []
    waiting = WhenIdle(lambda: called.append(now[0]), idle_s=5.0, clock=lambda: now[0])
    target = QObject()
    try:
        now[0] = 103.0
        QCoreApplication.sendEvent(target, key(Qt.Key.Key_Down))
        now[0] = 106.0  # 6 s after the start, 3 s after the key
        waiting.check()
        assert not called
        now[0] = 108.0
        waiting.check()
        assert called == [108.0] and not waiting.timer.isActive()
        QCoreApplication.sendEvent(target, key(Qt.Key.Key_Up))
        assert waiting.last_input == 103.0  # the application is no longer watched
    finally:
        waiting.cancel()


def test_a_room_review_holds_its_rows_while_it_runs_and_thaws_them_at_the_pause(
    qtbot: Any, make_window: Any, tmp_path: Path, waits: list[Pending]
) -> None:
    engine = slow_fake()
    window, _ids = room_window(make_window, tmp_path, n=3, engine=engine)
    room = window.reviews.room
    room.held = holder(waits)
    room.start()
    qtbot.waitUntil(lambda: room.held.holding and gc.get_freeze_count() > 0, timeout=30_000)
    wait_done(qtbot, window)
    assert not room.held.holding and len(waits) == 1 and gc.get_freeze_count() > 0
    waits[0].then()
    assert gc.get_freeze_count() == 0

"""What a long job holds is kept out of Python's full garbage collections while it runs
(``gc.freeze``), handed back when the last holder ends; the room review holds its rows so."""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

from app.jobs.held_objects import HeldObjects
from tests.app.controllers.room_tab import room_window, slow_fake, wait_done


def test_the_last_holder_to_release_hands_the_objects_back() -> None:
    first, second = HeldObjects(), HeldObjects()
    try:
        first.hold()
        assert gc.get_freeze_count() > 0
        second.hold()
        first.release()
        first.release()  # twice: counted once
        assert gc.get_freeze_count() > 0  # the second still holds
        second.release()
        assert gc.get_freeze_count() == 0
    finally:
        first.release()
        second.release()
        gc.unfreeze()


def test_a_room_review_holds_its_rows_while_it_runs(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    engine = slow_fake()
    window, _ids = room_window(make_window, tmp_path, n=3, engine=engine)
    room = window.reviews.room
    room.start()
    qtbot.waitUntil(lambda: room.held.holding and gc.get_freeze_count() > 0, timeout=30_000)
    wait_done(qtbot, window)
    assert not room.held.holding and gc.get_freeze_count() == 0

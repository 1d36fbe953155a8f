"""Pause, resume and stop of a data room's review: through the job's feed while it runs, else
its own flag (a paused job wakes up to stop)."""

from __future__ import annotations

from inference.engines.prompt_feed import PromptFeed
from summarizer.review.room_control import RoomControl


def test_pause_and_resume_before_the_feed_and_through_it() -> None:
    control = RoomControl()
    assert not control.paused
    control.pause()
    assert control.paused and not control.running.is_set()
    control.resume()
    assert not control.paused
    control.feed = PromptFeed(2, running=control.running)
    control.pause()
    assert control.feed.paused and control.paused
    control.resume()
    assert not control.feed.paused and not control.paused


def test_stop_cancels_and_wakes_a_paused_job() -> None:
    control = RoomControl()
    control.pause()
    control.stop()
    assert control.cancel.cancelled and not control.paused

"""Pause, resume and stop a data room's review (``summarizer.review.room_review``) from another
thread: the window's buttons."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from inference.cancel import CancelToken
from inference.engines.prompt_feed import PromptFeed


@dataclass
class RoomControl:
    """Pause, resume and stop a data room's review from another thread (the window's buttons).
    ``wait_for_server``: when the server stops answering, pause and wait for ``resume`` instead
    of raising ``RoomPaused``."""

    cancel: CancelToken = field(default_factory=CancelToken)
    wait_for_server: bool = False
    running: threading.Event = field(default_factory=threading.Event)
    feed: PromptFeed | None = field(default=None, repr=False)  # the job's, while it runs

    def __post_init__(self) -> None:
        self.running.set()

    def pause(self) -> None:
        """No new reading starts; the ones in flight finish and are stored. (Through the feed,
        so the time paused does not count against the slots' busy share.)"""
        feed = self.feed
        if feed is not None:
            feed.pause()
        else:
            self.running.clear()

    def resume(self) -> None:
        feed = self.feed
        if feed is not None:
            feed.resume()
        else:
            self.running.set()

    def stop(self) -> None:
        self.cancel.cancel()
        self.running.set()  # a paused job wakes up to stop

    @property
    def paused(self) -> bool:
        return not self.running.is_set()

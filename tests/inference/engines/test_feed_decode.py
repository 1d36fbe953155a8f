"""The live feed's worker side without a model: the beginning a slot keeps, the busy meter."""

from __future__ import annotations

import pytest

from inference.engines import feed_decode
from inference.engines.feed_decode import BusyMeter, common_prefix


def test_a_slot_keeps_the_beginning_its_next_prompt_shares() -> None:
    unit = list(range(100))
    assert common_prefix([*unit, 1, 2, 3], [*unit, 7, 8]) == 100
    assert common_prefix(unit, unit) == 99  # the prompt keeps one token to read
    assert common_prefix(list(range(40)), [*range(40), 5]) == 0  # too short to be worth it
    assert common_prefix([], unit) == 0


def test_the_meter_weighs_sequences_in_use_by_time(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = iter([0.0, 1.0, 3.0, 4.0, 10.0])
    monkeypatch.setattr(feed_decode.time, "perf_counter", lambda: next(clock))
    meter = BusyMeter()
    assert meter.reading() == (0.0, 0.0)
    meter.change(+1)  # t=0: one sequence
    meter.change(+1)  # t=1: two
    meter.change(-1)  # t=3: one
    meter.change(-1)  # t=4: none
    assert meter.reading() == (1.0 + 4.0 + 1.0, 4.0)
    meter.change(+1)  # t=10: a new prompt after a gap: the span runs to the last reply's end only
    assert meter.reading() == (6.0, 4.0)


def test_the_feed_takes_the_engines_meter_over_its_own() -> None:
    """The prompts taken include those waiting in the worker: with the worker's meter, the feed's
    busy share is the sequences' (busy sequence-seconds over slots x span)."""
    from inference.engines.prompt_feed import PromptFeed

    feed = PromptFeed(4)
    for i in range(3):
        feed.put(i, f"p{i}", i)
    feed.exhaust()
    taken = feed.take_now(3)
    assert len(taken) == 3
    for _ in taken:
        feed.release()
        feed.settle()
    feed.meter_engine(6.0, 2.0)
    assert feed.busy_share == pytest.approx(6.0 / (4 * 2.0))
    assert feed.busy_seconds == pytest.approx(2.0)

"""The prompt feed's order: lowest key first; with groups and readers (contract affinity) a reader
keeps to its group, a new or dry reader takes a group nobody reads, and steals the lowest prompt
of all only when every group with prompts is read by another; ``groups_ahead`` refills."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from inference.cancel import CancelToken
from inference.engines.engine import Completion, GenerationStats, Prompt
from inference.engines.prompt_feed import FeedReader, PromptFeed, run_fed_threads


def put_groups(feed: PromptFeed, groups: dict[str, int]) -> None:
    """``count`` prompts of each group, keyed (group's place, n) in the dict's order."""
    for place, (group, count) in enumerate(groups.items()):
        for n in range(count):
            feed.put(f"{group}{n}", f"prompt {group}{n}", (place, n), group=group)


def tags(feed: PromptFeed, reader: FeedReader | None, n: int) -> list[Any]:
    taken = [feed.take(wait_s=0.0, reader=reader) for _ in range(n)]
    return [fed.tag for fed in taken if fed is not None]


def test_without_readers_the_lowest_key_goes_first() -> None:
    feed = PromptFeed(2)
    feed.put("c", "p", 3)
    feed.put("a", "p", 1, group="x")
    feed.put("b", "p", 2, group="y")
    feed.put("a2", "p", 1)  # the same key: put first, taken first
    assert tags(feed, None, 4) == ["a", "a2", "b", "c"]
    feed.put("e", "p", 5, group="x")
    feed.put("d", "p", 4, group="y")
    assert [fed.tag for fed in feed.take_now(5)] == ["d", "e"]  # a batch engine ignores groups


def test_a_reader_without_groups_takes_the_lowest_key() -> None:
    feed = PromptFeed(2)
    for order in (2, 0, 1):
        feed.put(order, "p", order)
    assert tags(feed, FeedReader(), 3) == [0, 1, 2]


def test_a_reader_keeps_to_its_group_while_it_has_prompts() -> None:
    feed = PromptFeed(2)
    put_groups(feed, {"a": 3, "b": 3})
    one, two = FeedReader(), FeedReader()
    assert tags(feed, one, 1) == ["a0"]
    assert tags(feed, two, 1) == ["b0"]  # a is read by one: two takes a group of its own
    feed.put("a-late", "p", (0, -1), group="a")  # a follow-up of a, lower than all: still one's
    assert tags(feed, two, 2) == ["b1", "b2"]
    assert tags(feed, one, 3) == ["a-late", "a1", "a2"]
    assert one.group == "a" and two.group == "b"


def test_a_dry_reader_takes_a_group_nobody_reads_before_stealing() -> None:
    feed = PromptFeed(3)
    put_groups(feed, {"a": 1, "b": 3, "c": 2})
    one, two = FeedReader(), FeedReader()
    assert tags(feed, one, 1) == ["a0"]
    assert tags(feed, two, 1) == ["b0"]
    assert tags(feed, one, 1) == ["c0"]  # a is dry; b is two's: c, though b1's key is lower
    assert tags(feed, one, 1) == ["c1"]
    # every group with prompts (b) is read by another: one steals its lowest (the job's tail)
    assert tags(feed, one, 1) == ["b1"]
    assert one.group == "b"
    assert tags(feed, two, 1) == ["b2"]
    assert feed.ready == 0


def test_a_group_left_by_its_reader_is_free_again() -> None:
    feed = PromptFeed(2)
    put_groups(feed, {"a": 1, "b": 1, "c": 1})
    one, two, three = FeedReader(), FeedReader(), FeedReader()
    assert tags(feed, one, 1) == ["a0"]
    assert tags(feed, two, 1) == ["b0"]
    assert tags(feed, one, 1) == ["c0"]  # one leaves a for c
    feed.put("a-late", "p", (0, 5), group="a")
    feed.put("c-late", "p", (2, 5), group="c")
    assert tags(feed, three, 1) == ["a-late"]  # nobody reads a now; c is one's
    assert tags(feed, one, 1) == ["c-late"]


def test_readers_start_on_groups_of_their_own() -> None:
    feed = PromptFeed(3)
    put_groups(feed, {"a": 4, "b": 4, "c": 4})
    readers = [FeedReader() for _ in range(3)]
    firsts = [tags(feed, reader, 1)[0] for reader in readers]
    assert firsts == ["a0", "b0", "c0"]
    assert [tags(feed, reader, 3) for reader in readers] == [["a1", "a2", "a3"], ["b1", "b2", "b3"], ["c1", "c2", "c3"]]


def test_groups_ahead_refills_one_group_a_call() -> None:
    made: list[int] = []

    def refill() -> bool:
        if len(made) == 5:
            feed.exhaust()
            return False
        made.append(len(made))
        put_groups(feed, {f"g{made[-1]}": 2})
        return True

    feed = PromptFeed(2, refill, low_water=1, groups_ahead=4)
    feed.refill()
    assert len(made) == 1  # low water (one group): no reader has taken yet
    assert feed.take_now(1)[0].tag == "g00"  # a batch engine (no reader): still low water only
    feed.refill()
    assert len(made) == 1
    assert tags(feed, FeedReader(), 1) == ["g01"]  # a reader has taken: groups ahead, one a refill
    feed.refill()
    assert len(made) == 3 and feed.groups_ready == 2  # low water's group, then one more
    feed.refill()
    assert len(made) == 4 and feed.groups_ready == 3
    feed.refill()
    assert len(made) == 5 and feed.groups_ready == 4
    feed.refill()
    assert len(made) == 5  # enough groups ready


def test_threads_keep_to_their_groups_while_groups_remain() -> None:
    feed = PromptFeed(3)
    put_groups(feed, {g: 6 for g in "abcdef"})
    feed.exhaust()
    started = threading.Barrier(3)
    seen: dict[str, list[str]] = {}
    lock = threading.Lock()

    def one(prompt: Prompt, cancel: CancelToken) -> Completion:
        name = threading.current_thread().name
        with lock:
            first = name not in seen
            seen.setdefault(name, []).append(str(prompt).split()[1][0])
        if first:
            started.wait(5)  # every thread has taken its first prompt before any takes a second
        return Completion("", GenerationStats())

    done: list[str] = []
    on_result: Callable[[object, Completion], None] = lambda tag, _: done.append(str(tag))  # noqa: E731
    run_fed_threads(feed, 3, one, on_result, CancelToken())
    assert sorted(done) == sorted(f"{g}{n}" for g in "abcdef" for n in range(6))
    for groups in seen.values():
        runs = [g for n, g in enumerate(groups) if n == 0 or groups[n - 1] != g]
        assert len(runs) == len(set(runs)), groups  # each group read in one run of a thread
    assert sorted(groups[0] for groups in seen.values()) == ["a", "b", "c"]  # a group of its own each

"""Prompts fed to an engine's slots as the slots free up, for a job whose next prompts depend on
the replies to the last ones (a data room's review, issue 57: the next contract's first readings
start while the last one's stragglers finish).

The job (the producer) ``put``s prompts with a tag and an order key; the engine's slots ``take``
the lowest key first. The producer's ``refill`` is called in the caller's thread whenever the
feed runs low: it may add prompts (the next contract's), and returns False when it added nothing
and can add nothing now; when it has nothing left to add it calls ``exhaust``. The feed is
``finished`` once it is exhausted, nothing is ready and every prompt taken has been settled (its
reply handed to the job, which may have put a follow-up).

Contract affinity: a prompt may belong to a ``group`` (the prompts that share a long prefix: one
contract's readings). A slot that takes through a ``FeedReader`` keeps to the group it read last
while that group has prompts ready, else takes a group no other reader reads now, else (the job's
tail) the lowest-keyed prompt of any group, so no slot idles while prompts are ready. A server
with a prompt cache per slot (llama.cpp's llama-server, which routes a request to the idle slot
holding the most similar prompt) then reads each contract's text in about one slot, not in all of
them. ``groups_ahead``: with readers (``affine``: set by ``run_fed_threads``, or at a reader's
first take), ``refill`` also adds (one call of the producer's per ``refill``) while fewer groups
than that have prompts ready, so that each slot can have a group of its own (an engine that takes
without readers, the local one, is fed as before). Without
groups or readers a feed is a plain priority queue (lowest key first).

Pausing (``pause``/``resume``) holds back new prompts; the ones in flight finish. The feed also
measures how busy the engine's ``slots`` were: the time-weighted number of prompts in flight
(at most ``slots``) divided by ``slots``, between the first prompt taken and the last reply,
leaving out the time the feed was paused with nothing in flight (``busy_share``).
"""

from __future__ import annotations

import heapq
import itertools
import queue
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from inference.cancel import NEVER_CANCELLED, Cancelled, CancelToken

if TYPE_CHECKING:  # engine.Engine.generate_fed runs this module's batches: types only, no circle
    from inference.engines.engine import Completion, Prompt

FedResultCallback = Callable[[Any, "Completion"], None]
"""``generate_fed``'s ``on_result``: a prompt's tag and its finished reply (in the caller's thread)."""


def no_refill() -> bool:
    """The default ``refill``: the producer puts everything up front."""
    return False


@dataclass(frozen=True, slots=True)
class FedPrompt:
    tag: Any
    prompt: Prompt
    group: Any = None


@dataclass(slots=True)
class FeedReader:
    """One slot's side of the feed (a client thread): the group it read last, which it prefers."""

    group: Any = None


_Entry = tuple[Any, int, FedPrompt]


class PromptFeed:
    """A priority queue of prompts between a job and an engine's slots (see the module's note)."""

    def __init__(
        self,
        slots: int,
        refill: Callable[[], bool] = no_refill,
        *,
        low_water: int | None = None,
        groups_ahead: int = 0,
        running: threading.Event | None = None,
    ) -> None:
        self.slots = max(1, slots)
        self.low_water = low_water if low_water is not None else 2 * self.slots
        self.groups_ahead = groups_ahead
        self._refill = refill
        self._ready: dict[Any, list[_Entry]] = {}  # each group's heap (None: the prompts of no group)
        self._n_ready = 0
        self._readers: dict[Any, int] = {}  # group -> readers whose last group it is
        self.affine = False  # readers take (contract affinity): groups_ahead applies
        self._counter = itertools.count()
        self._cond = threading.Condition()
        self._exhausted = False
        self._unsettled = 0  # taken, the reply not yet handed to the job
        self._running = running or threading.Event()
        if running is None:
            self._running.set()
        # the busy meter
        self._in_flight = 0
        self._first_at: float | None = None
        self._last_at: float | None = None
        self._busy_area = 0.0  # slot-seconds
        self._paused_idle_s = 0.0  # paused with nothing in flight: not the engine's idle time
        self._mark_at = 0.0
        self._engine_meter: tuple[float, float] | None = None  # the engine's own (busy slot-s, span s)
        self.taken = 0

    # the producer's side (the caller's thread)

    def put(self, tag: Any, prompt: Prompt, order: Any = 0, group: Any = None) -> None:
        """``order``: lower keys are taken first; ``group``: see the module's note (hashable)."""
        with self._cond:
            heap = self._ready.setdefault(group, [])
            heapq.heappush(heap, (order, next(self._counter), FedPrompt(tag, prompt, group)))
            self._n_ready += 1
            self._cond.notify_all()

    def exhaust(self) -> None:
        """The producer has nothing more to add than the follow-ups of replies still to come."""
        with self._cond:
            self._exhausted = True
            self._cond.notify_all()

    def refill(self) -> None:
        """Let the producer add prompts when fewer than ``low_water`` are ready, and once more
        when fewer than ``groups_ahead`` groups have prompts ready."""
        while not self._exhausted and self.ready < self.low_water:
            if not self._refill():
                return  # nothing to add now (the producer's prompts wait on replies)
        if self.affine and not self._exhausted and self.groups_ready < self.groups_ahead:
            self._refill()  # one a call: the replies meanwhile are handed to the job

    def settle(self) -> None:
        """A taken prompt's reply was handed to the job (which has put any follow-up)."""
        with self._cond:
            self._unsettled -= 1
            self._cond.notify_all()

    def pause(self) -> None:
        with self._cond:
            self._meter(0)
            self._running.clear()

    def resume(self) -> None:
        with self._cond:
            self._meter(0)
            self._running.set()
            self._cond.notify_all()

    @property
    def paused(self) -> bool:
        return not self._running.is_set()

    @property
    def ready(self) -> int:
        with self._cond:
            return self._n_ready

    @property
    def groups_ready(self) -> int:
        """Groups (other than None) with prompts ready."""
        with self._cond:
            return len(self._ready) - (None in self._ready)

    @property
    def in_flight(self) -> int:
        """Prompts taken whose replies are not finished yet."""
        with self._cond:
            return self._in_flight

    @property
    def finished(self) -> bool:
        with self._cond:
            return self._finished()

    def _finished(self) -> bool:
        return self._exhausted and not self._n_ready and self._unsettled == 0

    # the engine's side (its slots: any thread)

    def take(
        self, cancel: CancelToken = NEVER_CANCELLED, wait_s: float | None = None, reader: FeedReader | None = None
    ) -> FedPrompt | None:
        """The next prompt, waiting while the feed is paused or empty; None when the feed is
        finished (or nothing came within ``wait_s``). Raises ``Cancelled``. ``reader``: the
        taking slot's, for contract affinity (see the module's note); without it the lowest key."""
        deadline = None if wait_s is None else time.perf_counter() + wait_s
        with self._cond:
            while True:
                cancel.raise_if_cancelled()
                if self._finished():
                    return None
                if self._n_ready and self._running.is_set():
                    fed = self._pop(reader)
                    self._unsettled += 1
                    self._meter(+1)
                    self.taken += 1
                    return fed
                if deadline is not None and time.perf_counter() >= deadline:
                    return None
                self._cond.wait(0.05)

    def _pop(self, reader: FeedReader | None) -> FedPrompt:
        """The prompt ``reader`` takes (some prompt is ready): its own group's lowest, else the
        lowest of a group no other reader reads (or of no group), else the lowest of all."""
        heaps = self._ready
        group: Any
        if reader is None:
            group = min(heaps, key=lambda g: heaps[g][0][:2])
        elif reader.group is not None and reader.group in heaps:
            group = reader.group
        else:
            free = [g for g in heaps if g is None or not self._readers.get(g)]
            group = min(free or heaps, key=lambda g: heaps[g][0][:2])
        _, _, fed = heapq.heappop(heaps[group])
        if not heaps[group]:
            del self._ready[group]
        self._n_ready -= 1
        self.affine = self.affine or reader is not None
        if reader is not None and reader.group != fed.group:
            if reader.group is not None:
                self._readers[reader.group] -= 1
            if fed.group is not None:
                self._readers[fed.group] = self._readers.get(fed.group, 0) + 1
            reader.group = fed.group
        return fed

    def take_now(self, limit: int) -> list[FedPrompt]:
        """Up to ``limit`` ready prompts at once (an engine that runs a batch per call); none
        while paused."""
        taken: list[FedPrompt] = []
        while len(taken) < limit:
            fed = self.take(wait_s=0.0)
            if fed is None:
                break
            taken.append(fed)
        return taken

    def wait_running(self, cancel: CancelToken) -> None:
        """Wait while the feed is paused (``Cancelled`` when cancelled meanwhile)."""
        while not self._running.wait(0.05):
            cancel.raise_if_cancelled()

    def release(self) -> None:
        """A prompt's reply is finished (its slot is free)."""
        with self._cond:
            self._meter(-1)

    def _meter(self, change: int) -> None:
        now = time.perf_counter()
        if self._first_at is not None:
            span = now - self._mark_at
            if self._in_flight:
                self._busy_area += min(self._in_flight, self.slots) * span
            elif not self._running.is_set():
                self._paused_idle_s += span
        elif change > 0:
            self._first_at = now
        self._mark_at = now
        self._in_flight += change
        if change < 0:
            self._last_at = now

    def meter_engine(self, busy_slot_s: float, span_s: float) -> None:
        """The engine measured its slots itself (the local engine's sequences, from a prompt's
        start in a sequence to its reply's end, between the first start and the last end): the
        busy share is then that, not the time from ``take`` to ``release`` (which counts the
        prompts waiting in the engine too)."""
        with self._cond:
            self._engine_meter = (busy_slot_s, span_s)

    def _busy(self) -> tuple[float, float] | None:
        """(busy slot-seconds, seconds) between the first prompt started and the last reply, less
        the time paused with nothing in flight."""
        if self._first_at is None or self._last_at is None:
            return None
        if self._engine_meter is not None:
            area, span = self._engine_meter
            return area, max(0.0, span - self._paused_idle_s)
        return self._busy_area, self._last_at - self._first_at - self._paused_idle_s

    @property
    def busy_share(self) -> float | None:
        """The engine's slots' busy share between the first prompt taken and the last reply
        (None before any reply)."""
        with self._cond:
            busy = self._busy()
            if busy is None:
                return None
            area, span = busy
            return min(1.0, area / (self.slots * span)) if span > 0 else 1.0

    @property
    def busy_seconds(self) -> float:
        with self._cond:
            busy = self._busy()
            return 0.0 if busy is None else busy[1]


def run_fed_threads(
    feed: PromptFeed,
    n_threads: int,
    one: Callable[[Prompt, CancelToken], Completion],
    on_result: FedResultCallback,
    cancel: CancelToken,
) -> None:
    """Up to ``n_threads`` prompts of ``feed`` in flight at once, each through ``one`` (a blocking
    call, run in a thread of its own); ``on_result`` and the feed's ``refill`` run in this thread.
    The first error of any call stops the others (their replies are lost) and is raised here."""
    stop_all = CancelToken()  # the caller's cancel, or an error: stops every call in flight
    replies: queue.Queue[tuple[FedPrompt, Completion | BaseException]] = queue.Queue()

    def slot() -> None:
        reader = FeedReader()  # this thread keeps to the group it read last (contract affinity)
        while not stop_all.cancelled:
            try:
                fed = feed.take(stop_all, reader=reader)
            except Cancelled:
                return
            if fed is None:
                return
            try:
                outcome: Completion | BaseException = one(fed.prompt, stop_all)
            except BaseException as error:  # handed to the caller's thread, which raises it
                outcome = error
            feed.release()
            replies.put((fed, outcome))

    threads = [threading.Thread(target=slot, name=f"pagewise-fed-{n}", daemon=True) for n in range(n_threads)]
    feed.affine = True  # each slot's reader: a group of its own for each (see the module's note)
    try:
        feed.refill()
        for thread in threads:
            thread.start()
        while True:
            if cancel.cancelled:
                raise Cancelled()
            try:
                fed, outcome = replies.get(timeout=0.05)
            except queue.Empty:
                feed.refill()
                if not any(thread.is_alive() for thread in threads) and replies.empty():
                    return
                continue
            if isinstance(outcome, BaseException):
                raise outcome
            try:
                on_result(fed.tag, outcome)
            finally:
                feed.settle()
            feed.refill()
    finally:
        stop_all.cancel()
        for thread in threads:
            if thread.ident is not None:  # started
                thread.join()


def run_fed_batches(
    feed: PromptFeed,
    chunk: int,
    batch: Callable[[Sequence[Prompt], Callable[[int, Completion], None]], None],
    on_result: FedResultCallback,
    cancel: CancelToken,
) -> None:
    """``feed`` through an engine that takes a batch per call (``batch(prompts, on_result)``):
    each call takes up to ``chunk`` ready prompts, the next contract's among them when one runs
    out (the engine's free slots take the next prompt of the batch at once); the producer refills
    between calls, when the engine may be called, up to a whole call's worth."""
    feed.low_water = max(feed.low_water, chunk)
    while True:
        cancel.raise_if_cancelled()
        feed.refill()
        feed.wait_running(cancel)
        taken = feed.take_now(chunk)
        if not taken:
            if feed.finished:
                return
            raise RuntimeError("the prompt feed has prompts in flight but none to take")  # a producer's bug

        def handed(index: int, completion: Completion, taken: list[FedPrompt] = taken) -> None:
            feed.release()
            try:
                on_result(taken[index].tag, completion)
            finally:
                feed.settle()

        batch([fed.prompt for fed in taken], handed)

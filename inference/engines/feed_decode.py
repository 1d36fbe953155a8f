"""Prompts fed to the batch context while it decodes: ``generate_fed`` on the local engine (issue 57).

Runs in the worker process. ``inference.engines.batch_decode.run_batch`` decodes a batch whose
prompts are all known at its start: at the end of each batch its sequences drain while the last
replies finish. Here the prompts keep coming while the sequences decode (the parent sends them as
its feed produces them, ``inference.engines.local_feed``): between two steps the loop reads what
arrived (``poll``), and a slot whose reply ended takes the next prompt at once, whichever contract
it reads. The steps themselves are ``batch_decode``'s (prefill first, whole micro-batches; mixed
steps with ``plan.batch_mixed``); a slot keeps the cells of the beginning its next prompt shares
with its last one (the same contract's pages read for another question).

The batch context's layout (cells per sequence, sequences at once) is ``run_batch``'s for the
next prompt, at least the plan's ``batch_n_ctx`` per sequence. A prompt longer than a sequence's
cells waits until the live sequences are done, and so does one that fits twice as many sequences
as the context has; the context is then made again for it. Only then do the slots idle (a data
room's readings come in runs of one contract's unit, so this is rare).

The busy meter: the time-weighted number of sequences in use (from a prompt's admission to its
reply's end) between the first admission and the last reply's end; the engine divides it by its
``parallel`` (``inference.engines.prompt_feed.PromptFeed.busy_share``).
"""

from __future__ import annotations

import sys
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from inference.engines.batch_context import BatchContextError, batch_layout, open_batch_context
from inference.engines.batch_decode import MIN_SHARED_PREFIX, SlotLoop, SlotSequence
from inference.planning.plan import Plan


@dataclass(frozen=True, slots=True)
class FeedRequest:
    """Prompts sent while the batch decodes (``inference.engines.feed_decode``)."""

    max_tokens: int
    temperature: float
    stop: tuple[str, ...]
    json_schema: str | None = None
    seed: int = 0


FEED_LEFTOVERS = frozenset({"feed_prompt", "feed_end"})
"""Sent for a feed that ended early (cancelled, failed): nothing to answer."""


FeedResultCallback = Callable[[int, str, dict[str, Any], tuple[float, float]], None]
"""``on_result(key, text, stats, (busy sequence-seconds, span seconds))`` as each reply ends."""


@dataclass
class Inbox:
    """What the parent has sent: prompts (key, tokens) waiting for a slot, and whether it said
    that no more will come (``ended``)."""

    pending: deque[tuple[int, list[int]]] = field(default_factory=deque)
    ended: bool = False


class BusyMeter:
    """Sequence-seconds in use between the first admission and the last reply's end."""

    def __init__(self) -> None:
        self.live = 0
        self.area = 0.0
        self.first_at: float | None = None
        self.last_at: float | None = None
        self._mark = 0.0

    def change(self, delta: int) -> None:
        now = time.perf_counter()
        if self.first_at is None:
            self.first_at = now
        else:
            self.area += self.live * (now - self._mark)
        self._mark = now
        self.live += delta
        if delta < 0:
            self.last_at = now

    def reading(self) -> tuple[float, float]:
        """(busy sequence-seconds, span seconds) up to the last reply's end."""
        if self.first_at is None or self.last_at is None:
            return 0.0, 0.0
        return self.area, self.last_at - self.first_at


def common_prefix(last: Sequence[int], new: Sequence[int]) -> int:
    """Cells of ``last``'s prompt that ``new`` can keep: their common beginning, leaving ``new``
    at least one token to read (its logits give the first reply token); 0 below
    ``MIN_SHARED_PREFIX``."""
    n = 0
    for a, b in zip(last, new, strict=False):
        if a != b:
            break
        n += 1
    n = min(n, len(new) - 1)
    return n if n >= MIN_SHARED_PREFIX else 0


class _Context:
    """One layout of the batch context and its slots."""

    def __init__(self, llama_cpp: Any, llm: Any, plan: Plan, need: int, make_loop: Callable[..., SlotLoop]) -> None:
        self.llama_cpp = llama_cpp
        floor = plan.batch_n_ctx or plan.n_ctx
        self.cells, self.n_slots, n_ubatch = batch_layout(llama_cpp, plan, max(need, floor), max(1, plan.n_seq_max))
        sys.stderr.write(
            f"[pagewise] feed: {self.n_slots} sequence{'s' if self.n_slots > 1 else ''} at a time, "
            f"{self.cells} cells each, KV {plan.batch_kv}, micro-batch {n_ubatch}"
            f"{', mixed steps' if plan.batch_mixed else ''}\n"
        )
        self.ctx, self.batch = open_batch_context(llama_cpp, llm, plan, self.cells, self.n_slots, n_ubatch)
        self.loop = make_loop(self.ctx, self.batch, n_ubatch, self.n_slots)
        self.slots: list[SlotSequence | None] = [None] * self.n_slots
        self.last_prompt: list[list[int]] = [[] for _ in range(self.n_slots)]

    @property
    def live(self) -> int:
        return sum(slot is not None for slot in self.slots)

    def close(self) -> None:
        for slot in self.slots:
            if slot is not None:
                self.loop.free_sampler(slot)
        self.llama_cpp.llama_batch_free(self.batch)
        self.llama_cpp.llama_free(self.ctx)


def run_feed(
    llm: Any,
    plan: Plan,
    inbox: Inbox,
    poll: Callable[[float], None],
    *,
    max_tokens: int,
    temperature: float,
    stop: Sequence[str],
    seed: int,
    check_cancel: Callable[[], None],
    on_result: FeedResultCallback,
    abort_callback: Any = None,
    grammar: Any = None,
) -> tuple[float, float]:
    """Reply to every prompt ``poll`` puts in ``inbox`` until it is ``ended`` and every reply is
    handed over; returns the busy meter's reading. ``poll(wait_s)`` reads what the parent sent
    (waiting up to ``wait_s`` when there is nothing to do); ``check_cancel`` raises when
    cancelled."""
    import llama_cpp

    def make_loop(ctx: Any, batch: Any, n_ubatch: int, n_slots: int) -> SlotLoop:
        loop = SlotLoop(
            llama_cpp, llm, ctx, batch, n_ubatch, n_slots, check_cancel, abort_callback, mixed=plan.batch_mixed
        )
        loop.configure(temperature, grammar)
        return loop

    def need(tokens: list[int]) -> int:
        return len(tokens) + max_tokens

    meter = BusyMeter()
    context: _Context | None = None
    sampling = (temperature, seed, grammar)
    replies = 0
    try:
        while True:
            poll(0.0)
            while (context is None or not context.live) and not inbox.pending:
                if inbox.ended:
                    if context is not None:
                        sys.stderr.write(f"[pagewise] feed done: {replies} replies, {context.loop.summary()}\n")
                    return meter.reading()
                check_cancel()
                poll(0.05)
            pending = inbox.pending
            if pending and (context is None or not context.live):
                wanted = need(pending[0][1])
                if context is None or _relayout(llama_cpp, plan, context, wanted):
                    if context is not None:
                        sys.stderr.write(f"[pagewise] feed relayout: {context.loop.summary()}\n")
                        context.close()
                        context = None
                    context = _Context(llama_cpp, llm, plan, wanted, make_loop)
            assert context is not None
            # the next prompt waits for the live ones to end when it needs another layout
            for seq_id in range(context.n_slots):
                if context.slots[seq_id] is not None or not pending:
                    continue
                if _relayout(llama_cpp, plan, context, need(pending[0][1])):
                    break
                key, tokens = pending.popleft()
                keep = common_prefix(context.last_prompt[seq_id], tokens)
                context.slots[seq_id] = context.loop.start(key, seq_id, tokens, keep, stop, sampling)
                context.last_prompt[seq_id] = tokens
                meter.change(+1)
                sys.stderr.write(f"[pagewise] feed: prompt {key} in sequence {seq_id}, {meter.live} live\n")
            if not context.live:
                continue
            for done in context.loop.step(context.slots, max_tokens):
                meter.change(-1)
                replies += 1
                text, stats = context.loop.reply(done)
                on_result(done.index, text, stats, meter.reading())
    finally:
        if context is not None:
            context.close()


def _relayout(llama_cpp: Any, plan: Plan, context: _Context, head: int) -> bool:
    """Make the context again for the next prompt (needing ``head`` cells): it does not fit the
    cells, or it fits a layout of at least twice the sequences."""
    if head > context.cells:
        return True
    floor = plan.batch_n_ctx or plan.n_ctx
    _, n_slots, _ = batch_layout(llama_cpp, plan, max(head, floor), max(1, plan.n_seq_max))
    return n_slots >= 2 * context.n_slots  # worth the live sequences' drain


def check_fits(tokens: list[int], max_tokens: int, n_ctx: int) -> None:
    """A prompt that cannot run even alone in the context: ``BatchContextError``."""
    if len(tokens) + max_tokens > n_ctx:
        raise BatchContextError(
            f"A prompt needs {len(tokens) + max_tokens} tokens with its reply but the model's context holds "
            f"{n_ctx}. Shorten it or lower max_tokens."
        )

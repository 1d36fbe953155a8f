"""Several independent prompts at once: llama.cpp multi-sequence decoding.

Runs in the worker process. llama-cpp-python's ``Llama`` has no ``n_seq_max`` (it sets it
only for embeddings), so this builds a second context on the same model through the
low-level API, with one KV stream per slot, and runs its own loop over the slots:

* A free slot takes the next prompt at once, so a reply that ends early (end of text, a stop
  string) never leaves its slot idle until the slowest reply of a group is done.
* Each step is either prefill or decode. Prefill steps pack the prompt tokens of the slots
  still reading their prompts, in prompt order, into one ``llama_decode`` call of one whole
  micro-batch (a smaller call costs as much when layers live in CPU memory, and leaves the GPU
  idle otherwise). Decode steps take one token of every other slot in one call. Prefill
  goes first: decoding waits while a refilled slot reads its prompt, so the decode calls keep
  every slot, and llama.cpp's per-stream micro-batches stay whole (with one stream per
  sequence, a micro-batch holds only consecutive sequence ids: a slot missing from the middle
  of a decode call would split it into two passes over the weights).
* With ``plan.batch_mixed`` the sequences share one unified KV cache instead, and every step
  carries the decoding slots' next tokens together with the next prompt tokens (continuous
  batching, as llama.cpp's server does): decoding rides along with prefill instead of taking
  passes over the weights of its own, at the price of attention over the shared cells.
* Each reply is handed to ``on_result`` as soon as it is finished.
* Prompts that begin alike (a contract review asks every question after the same contract)
  read the common beginning once per slot, not once per prompt: a slot keeps those cells when
  it takes its next prompt and reads only the rest (``_shared_prefix``).

Memory: the batch context holds at most the cells of ``plan.n_seq_max`` sequences of
``plan.batch_n_ctx`` tokens (``n_ctx`` when unset), with the plan's batch KV type
(``plan.batch_kv``) and micro-batch (``plan.batch_n_ubatch``), on top of the main context,
and exists only during the call. Each sequence has its own KV stream (``kv_unified`` off),
so a token attends only over its own sequence's cells, not over every sequence's. Prompts
longer than ``batch_n_ctx`` run in fewer slots within the same cells.
"""

from __future__ import annotations

import codecs
import sys
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

from inference.engines.batch_context import BatchContextError, batch_layout, decode, open_batch_context
from inference.engines.decode_utils import GrammarCheck, GreedySampler, NanCheck, TokenBytes
from inference.engines.engine import StopReason, StopScanner
from inference.planning.plan import Plan

BatchResultCallback = Callable[[int, str, dict[str, Any]], None]


class SlotSequence:
    __slots__ = (
        "cached",
        "decoder",
        "ended_at",
        "first_token_at",
        "generated",
        "index",
        "last_token",
        "n_past",
        "prompt",
        "reason",
        "sampler",
        "scanner",
        "seq_id",
        "started_at",
        "texts",
    )

    def __init__(self, index: int, seq_id: int, prompt: list[int], stop: Sequence[str], *, loops: bool) -> None:
        self.index = index
        self.seq_id = seq_id
        self.prompt = prompt
        self.n_past = 0  # tokens in this sequence's KV cells (prompt, then generated)
        self.cached = 0  # prompt tokens found in the slot's cells (a shared beginning)
        self.generated = 0
        self.texts: list[str] = []
        self.scanner = StopScanner(stop, loops=loops)
        self.decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.reason: StopReason | None = None
        self.started_at = time.perf_counter()
        self.first_token_at = 0.0
        self.ended_at = 0.0
        self.last_token = -1
        self.sampler: Any = None

    @property
    def reading(self) -> bool:
        """Still in its prompt (prefill)."""
        return self.n_past < len(self.prompt)


class _Clock:
    """Seconds and tokens of the batch's prefill and decode steps."""

    def __init__(self) -> None:
        self.prefill_s = 0.0
        self.prefill_tokens = 0
        self.decode_s = 0.0
        self.decode_tokens = 0
        self.decode_steps = 0
        self.ridden_tokens = 0  # decode tokens carried in prefill steps (mixed batches)

    @property
    def prefill_rate(self) -> float:
        return self.prefill_tokens / self.prefill_s if self.prefill_s > 0 else 0.0

    def summary(self) -> str:
        decode_rate = self.decode_tokens / self.decode_s if self.decode_s > 0 else 0.0
        per_step = self.decode_tokens / self.decode_steps if self.decode_steps else 0.0
        return (
            f"prefill {self.prefill_tokens} tokens in {self.prefill_s:.2f} s ({self.prefill_rate:.0f} tok/s), "
            f"decode {self.decode_tokens} tokens in {self.decode_s:.2f} s ({decode_rate:.0f} tok/s, "
            f"{self.decode_steps} steps of {per_step:.1f} sequences), "
            f"{self.ridden_tokens} tokens decoded inside prefill steps"
        )


def _new_sampler(llama_cpp: Any, temperature: float, seed: int, grammar: Any = None, vocab: Any = None) -> Any:
    """A llama.cpp sampler chain for sampling with ``temperature``, or for any decoding held to
    a ``grammar`` (a ``LlamaGrammar``; ``vocab`` then needed); plain greedy decoding uses
    ``GreedySampler`` instead: None here."""
    if temperature <= 0 and grammar is None:
        return None
    chain = llama_cpp.llama_sampler_chain_init(llama_cpp.llama_sampler_chain_default_params())
    if grammar is not None:
        llama_cpp.llama_sampler_chain_add(
            chain,
            llama_cpp.llama_sampler_init_grammar(
                vocab, grammar._grammar.encode("utf-8"), grammar._root.encode("utf-8")
            ),
        )
        if temperature <= 0:
            llama_cpp.llama_sampler_chain_add(chain, llama_cpp.llama_sampler_init_greedy())
            return chain
    llama_cpp.llama_sampler_chain_add(chain, llama_cpp.llama_sampler_init_top_k(40))
    llama_cpp.llama_sampler_chain_add(chain, llama_cpp.llama_sampler_init_top_p(0.95, 1))
    llama_cpp.llama_sampler_chain_add(chain, llama_cpp.llama_sampler_init_min_p(0.05, 1))
    llama_cpp.llama_sampler_chain_add(chain, llama_cpp.llama_sampler_init_temp(temperature))
    llama_cpp.llama_sampler_chain_add(chain, llama_cpp.llama_sampler_init_dist(seed))
    return chain


def run_batch(
    llm: Any,
    plan: Plan,
    prompts: list[list[int]],
    *,
    max_tokens: int,
    temperature: float,
    stop: Sequence[str],
    seed: int,
    check_cancel: Callable[[], None],
    on_result: BatchResultCallback,
    abort_callback: Any = None,
    grammar: Any = None,
) -> None:
    """Generate for each tokenized prompt; ``on_result(index, text, stats)`` as each finishes.
    ``grammar`` (a ``LlamaGrammar``) holds every reply to it.

    ``abort_callback`` (a ``ggml_abort_callback``) lets a cancel interrupt a prefill decode
    call from inside on the CPU backend; ``check_cancel`` raises when cancelled.
    """
    import llama_cpp

    needs = [len(tokens) + max_tokens for tokens in prompts]
    for index, need in enumerate(needs):
        if need > plan.n_ctx:
            raise BatchContextError(
                f"Prompt {index + 1} needs {need} tokens with its reply but the model's context holds "
                f"{plan.n_ctx}. Shorten it or lower max_tokens."
            )
    cells, n_slots, n_ubatch = batch_layout(llama_cpp, plan, max(needs), len(prompts))
    sys.stderr.write(
        f"[pagewise] batch: {len(prompts)} prompts, {n_slots} sequence{'s' if n_slots > 1 else ''} at a time, "
        f"{cells} cells each, KV {plan.batch_kv}, micro-batch {n_ubatch}"
        f"{', mixed steps' if plan.batch_mixed else ''}\n"
    )
    ctx, batch = open_batch_context(llama_cpp, llm, plan, cells, n_slots, n_ubatch)
    try:
        loop = SlotLoop(
            llama_cpp, llm, ctx, batch, n_ubatch, n_slots, check_cancel, abort_callback, mixed=plan.batch_mixed
        )
        loop.run(prompts, max_tokens, temperature, stop, seed, on_result, grammar)
        sys.stderr.write(f"[pagewise] batch done: {loop.summary()}\n")
    finally:
        llama_cpp.llama_batch_free(batch)
        llama_cpp.llama_free(ctx)


class SlotLoop:
    """The scheduling loop of ``run_batch`` over one batch context."""

    def __init__(
        self,
        llama_cpp: Any,
        llm: Any,
        ctx: Any,
        batch: Any,
        n_batch: int,
        n_slots: int,
        check_cancel: Callable[[], None],
        abort_callback: Any,
        *,
        mixed: bool = False,
    ) -> None:
        self.llama_cpp = llama_cpp
        self.mixed = mixed
        self.ctx = ctx
        self.batch = batch
        self.n_batch = n_batch
        self.n_slots = n_slots
        self.check_cancel = check_cancel
        self.abort_callback = abort_callback
        self.vocab = llm._model.vocab
        self.token_bytes = TokenBytes(llama_cpp, self.vocab)
        self.greedy = GreedySampler(llama_cpp, llm.n_vocab())
        self.has_nan = NanCheck(llama_cpp, llm.n_vocab())
        self.held_to_grammar = False  # set by run: only a grammar sampler needs the NaN check
        self.grammar_check: GrammarCheck | None = None  # set by run: greedy decoding held to a grammar
        self.memory = llama_cpp.llama_get_memory(ctx)
        self.clock = _Clock()
        self._abort_set = False

    def configure(self, temperature: float, grammar: Any) -> None:
        """How every reply of this loop is sampled (a ``grammar``: each held to it)."""
        self.held_to_grammar = grammar is not None
        self.grammar_check = GrammarCheck(self.llama_cpp) if grammar is not None and temperature <= 0 else None

    def start(
        self,
        index: int,
        seq_id: int,
        prompt: list[int],
        keep: int,
        stop: Sequence[str],
        sampling: tuple[float, int, Any],
    ) -> SlotSequence:
        """A new sequence for ``prompt`` in slot ``seq_id``, keeping the first ``keep`` cells the
        slot holds (a beginning it shares with the slot's last prompt); ``sampling``: the
        temperature, the seed and the grammar (or None)."""
        llama_cpp = self.llama_cpp
        temperature, seed, grammar = sampling
        new = SlotSequence(index, seq_id, prompt, stop, loops=grammar is None)
        # A model whose cache cannot drop a tail (e.g. a recurrent one) reads the whole prompt again.
        if keep and llama_cpp.llama_memory_seq_rm(self.memory, seq_id, keep, -1):
            new.n_past = new.cached = keep
        else:
            llama_cpp.llama_memory_seq_rm(self.memory, seq_id, -1, -1)
        new.sampler = _new_sampler(llama_cpp, temperature, seed + index, grammar, self.vocab)
        return new

    def step(self, slots: list[SlotSequence | None], max_tokens: int) -> list[SlotSequence]:
        """One prefill or decode step over the live slots; returns the sequences it finished
        (their slots freed)."""
        live = [slot for slot in slots if slot is not None]
        self.check_cancel()
        reading = sorted((s for s in live if s.reading), key=lambda s: s.index)
        if reading:
            riding = [s for s in live if not s.reading] if self.mixed else []
            self._prefill_step(reading, riding, max_tokens)
        else:
            self._decode_step(live, max_tokens)
        finished: list[SlotSequence] = []
        for seq_id, slot in enumerate(slots):
            if slot is not None and slot.reason is not None:
                slots[seq_id] = None
                self.free_sampler(slot)
                finished.append(slot)
        return finished

    def reply(self, sequence: SlotSequence) -> tuple[str, dict[str, Any]]:
        """A finished sequence's text and stats."""
        return "".join(sequence.texts), self._stats(sequence)

    def summary(self) -> str:
        check = self.grammar_check
        held = f", grammar refused {check.refused} of {check.checked} argmax tokens" if check else ""
        return f"{self.clock.summary()}{held}"

    def run(
        self,
        prompts: list[list[int]],
        max_tokens: int,
        temperature: float,
        stop: Sequence[str],
        seed: int,
        on_result: BatchResultCallback,
        grammar: Any = None,
    ) -> None:
        pending = deque(range(len(prompts)))
        slots: list[SlotSequence | None] = [None] * self.n_slots
        self.configure(temperature, grammar)
        shared = _shared_prefix(prompts) if len(prompts) > self.n_slots else 0
        kept = [0] * self.n_slots  # cells of the shared beginning each slot holds
        try:
            while True:
                for seq_id in range(self.n_slots):
                    if slots[seq_id] is None and pending:
                        index = pending.popleft()
                        sampling = (temperature, seed, grammar)
                        slots[seq_id] = self.start(index, seq_id, prompts[index], kept[seq_id], stop, sampling)
                        kept[seq_id] = shared
                if not any(slot is not None for slot in slots):
                    return
                for done in self.step(slots, max_tokens):
                    on_result(done.index, *self.reply(done))
        finally:
            for slot in slots:
                if slot is not None:
                    self.free_sampler(slot)

    def free_sampler(self, sequence: SlotSequence) -> None:
        if sequence.sampler is not None:
            self.llama_cpp.llama_sampler_free(sequence.sampler)
            sequence.sampler = None

    def _set_abort(self, enabled: bool) -> None:
        """The abort callback during prefill only (see llama_worker._Worker._set_abort)."""
        if self.abort_callback is None or enabled == self._abort_set:
            return
        callback = self.abort_callback if enabled else self.llama_cpp.ggml_abort_callback()
        self.llama_cpp.llama_set_abort_callback(self.ctx, callback, None)
        self._abort_set = enabled

    def _prefill_step(self, reading: list[SlotSequence], riding: list[SlotSequence], max_tokens: int) -> None:
        """One call of one whole micro-batch: the next token of each ``riding`` slot (mixed
        batches only), then the next prompt tokens of the reading slots, in prompt order; a slot
        whose last prompt token is in it samples its first token."""
        batch = self.batch
        for row, sequence in enumerate(riding):
            self._put(row, sequence.last_token, sequence.n_past, sequence.seq_id, True)
        row = len(riding)
        room = self.n_batch
        finishing: list[tuple[SlotSequence, int]] = []
        for sequence in reading:
            take = min(room - row, len(sequence.prompt) - sequence.n_past)
            last = len(sequence.prompt) - 1
            for pos in range(sequence.n_past, sequence.n_past + take):
                self._put(row, sequence.prompt[pos], pos, sequence.seq_id, pos == last)
                row += 1
            sequence.n_past += take
            if not sequence.reading:
                finishing.append((sequence, row - 1))
            if row >= room:
                break
        batch.n_tokens = row
        self._set_abort(True)
        started = time.perf_counter()
        decode(self.llama_cpp, self.ctx, batch, self.check_cancel)
        for row, sequence in enumerate(riding):
            sequence.n_past += 1
            self._accept(sequence, row, max_tokens)
        for sequence, last_row in finishing:
            self._accept(sequence, last_row, max_tokens)
        # On a GPU llama_decode returns before the computation ends; reading the logits (in
        # _accept) waits for it. Every run of prefill steps ends with a step that finishes a
        # prompt, so with the accepts inside the clock, the run's GPU time is all counted here.
        self.clock.prefill_s += time.perf_counter() - started
        self.clock.prefill_tokens += row - len(riding)
        self.clock.ridden_tokens += len(riding)

    def _put(self, row: int, token: int, pos: int, seq_id: int, logits: bool) -> None:
        batch = self.batch
        batch.token[row] = token
        batch.pos[row] = pos
        batch.n_seq_id[row] = 1
        batch.seq_id[row][0] = seq_id
        batch.logits[row] = logits

    def _decode_step(self, active: list[SlotSequence], max_tokens: int) -> None:
        """One call with one token of every slot (in slot order: consecutive sequence ids)."""
        batch = self.batch
        batch.n_tokens = len(active)
        for row, sequence in enumerate(active):
            self._put(row, sequence.last_token, sequence.n_past, sequence.seq_id, True)
        self._set_abort(False)
        started = time.perf_counter()
        decode(self.llama_cpp, self.ctx, batch, self.check_cancel)
        for row, sequence in enumerate(active):
            sequence.n_past += 1
            self._accept(sequence, row, max_tokens)
        self.clock.decode_s += time.perf_counter() - started
        self.clock.decode_tokens += len(active)
        self.clock.decode_steps += 1

    def _accept(self, sequence: SlotSequence, row: int, max_tokens: int) -> None:
        """Sample the sequence's next token from batch row ``row`` and record it."""
        llama_cpp = self.llama_cpp
        if sequence.sampler is None:
            token = self.greedy.sample(self.ctx, row)
        elif self.held_to_grammar and self.has_nan(self.ctx, row):
            self._end(sequence, "invalid")
            return
        elif self.grammar_check is not None:
            token = self.grammar_check.sample(sequence.sampler, self.greedy, self.ctx, row)
        else:
            token = int(llama_cpp.llama_sampler_sample(sequence.sampler, self.ctx, row))
        if sequence.generated == 0 and not sequence.first_token_at:
            sequence.first_token_at = time.perf_counter()
        if llama_cpp.llama_vocab_is_eog(self.vocab, token):
            self._end(sequence, "eos")
            return
        sequence.generated += 1
        sequence.texts.append(sequence.scanner.feed(sequence.decoder.decode(self.token_bytes(token))))
        if sequence.scanner.stopped:
            self._end(sequence, "loop" if sequence.scanner.looped else "stop", flush=False)
            return
        if sequence.generated >= max_tokens:
            self._end(sequence, "length")
            return
        sequence.last_token = token

    @staticmethod
    def _end(sequence: SlotSequence, reason: StopReason, *, flush: bool = True) -> None:
        sequence.reason = reason
        sequence.ended_at = time.perf_counter()
        if flush:
            sequence.texts.append(sequence.scanner.flush() + sequence.decoder.decode(b"", final=True))

    def _stats(self, sequence: SlotSequence) -> dict[str, Any]:
        """A finished sequence's stats. Its prefill rate is the batch's so far (its prompt shares
        calls with others'); its decode rate counts the time it waited for others' prefill."""
        decode_s = sequence.ended_at - sequence.first_token_at
        return {
            "prompt_tokens": len(sequence.prompt),
            "cached_tokens": sequence.cached,
            "completion_tokens": sequence.generated,
            "ttft_s": sequence.first_token_at - sequence.started_at,
            "prefill_tok_s": self.clock.prefill_rate,
            "decode_tok_s": (sequence.generated - 1) / decode_s if sequence.generated > 1 and decode_s > 0 else 0.0,
            "total_s": sequence.ended_at - sequence.started_at,
            "stop_reason": sequence.reason or "length",
        }


MIN_SHARED_PREFIX = 64
"""A shorter common beginning (a chat template's header) is read again by every prompt."""


def _shared_prefix(prompts: list[list[int]]) -> int:
    """Tokens every prompt begins with, leaving each at least one token to read (its logits
    give the first reply token); 0 when fewer than ``MIN_SHARED_PREFIX``."""
    low, high = min(prompts), max(prompts)  # every prompt's common beginning is theirs
    common = next((i for i, (a, b) in enumerate(zip(low, high, strict=False)) if a != b), len(low))
    n = min(common, min(len(p) for p in prompts) - 1)
    return n if n >= MIN_SHARED_PREFIX else 0

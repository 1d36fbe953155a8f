"""Several independent prompts at once: llama.cpp multi-sequence decoding.

Runs in the worker process. llama-cpp-python's ``Llama`` has no ``n_seq_max`` (it sets it
only for embeddings), so this builds a second context on the same model through the
low-level API, with one sequence per prompt and a unified KV cache, and runs its own
decode loop: every step decodes one token for each unfinished sequence in one
``llama_decode`` call, then samples each sequence with its own sampler.

Memory: the batch context holds at most the cells of ``plan.n_seq_max`` sequences of
``plan.batch_n_ctx`` tokens (``n_ctx`` when unset), with the plan's batch KV type
(``plan.batch_kv``), on top of the main context,
and exists only during the call. Each sequence has its own KV stream (``kv_unified`` off),
so a token attends only over its own sequence's cells, not over every sequence's. Prompts
beyond ``n_seq_max`` run in waves.
"""

from __future__ import annotations

import codecs
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from inference.decode_utils import ChunkSizer, GreedySampler, TokenBytes
from inference.engine import StopReason, StopScanner
from inference.plan import GGML_TYPE_IDS, Plan

_KV_ROUND = 256


class BatchContextError(Exception):
    """The batch context could not be created or a prompt does not fit."""


class _Sequence:
    __slots__ = (
        "decoder",
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
        "texts",
    )

    def __init__(self, index: int, seq_id: int, prompt: list[int], stop: Sequence[str]) -> None:
        self.index = index
        self.seq_id = seq_id
        self.prompt = prompt
        self.n_past = 0
        self.generated = 0
        self.texts: list[str] = []
        self.scanner = StopScanner(stop)
        self.decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.reason: StopReason | None = None
        self.first_token_at = 0.0
        self.last_token = -1
        self.sampler: Any = None


def _new_sampler(llama_cpp: Any, temperature: float, seed: int) -> Any:
    """A llama.cpp sampler chain for sampling with ``temperature`` (greedy decoding uses
    ``GreedySampler`` instead: None here)."""
    if temperature <= 0:
        return None
    chain = llama_cpp.llama_sampler_chain_init(llama_cpp.llama_sampler_chain_default_params())
    llama_cpp.llama_sampler_chain_add(chain, llama_cpp.llama_sampler_init_top_k(40))
    llama_cpp.llama_sampler_chain_add(chain, llama_cpp.llama_sampler_init_top_p(0.95, 1))
    llama_cpp.llama_sampler_chain_add(chain, llama_cpp.llama_sampler_init_min_p(0.05, 1))
    llama_cpp.llama_sampler_chain_add(chain, llama_cpp.llama_sampler_init_temp(temperature))
    llama_cpp.llama_sampler_chain_add(chain, llama_cpp.llama_sampler_init_dist(seed))
    return chain


def _waves(n_prompts: int, max_parallel: int) -> list[list[int]]:
    """Prompt indices in groups of at most ``max_parallel``, in order."""
    return [list(range(start, min(n_prompts, start + max_parallel))) for start in range(0, n_prompts, max_parallel)]


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
    progress: Callable[[int, int], None],
    abort_callback: Any = None,
) -> list[tuple[str, dict[str, Any]]]:
    """Generate for each tokenized prompt; returns (text, stats dict) per prompt, in order.

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
    # One KV stream per sequence, each as long as the longest prompt and its reply needs. The
    # plan sized the batch for n_seq_max sequences of batch_n_ctx tokens: longer prompts (a
    # reduction's) run in smaller waves within the same number of cells.
    cells = -(-max(needs) // _KV_ROUND) * _KV_ROUND
    planned_cells = max(1, plan.n_seq_max) * (plan.batch_n_ctx or plan.n_ctx)
    max_parallel = min(
        len(prompts),
        max(1, plan.n_seq_max),
        max(1, planned_cells // cells),
        max(1, int(llama_cpp.llama_max_parallel_sequences())),
    )
    waves = _waves(len(prompts), max_parallel)
    n_parallel = max(len(wave) for wave in waves)
    sys.stderr.write(
        f"[pagewise] batch: {len(prompts)} prompts in {len(waves)} waves of up to {n_parallel} sequences, "
        f"{cells} cells each, KV {plan.batch_kv}\n"
    )

    params = llama_cpp.llama_context_default_params()
    params.n_ctx = cells * n_parallel
    params.n_batch = max(plan.n_batch, n_parallel)
    params.n_ubatch = max(min(plan.n_ubatch, params.n_batch), min(n_parallel, params.n_batch))
    params.n_seq_max = n_parallel
    params.kv_unified = False
    params.n_threads = llm.n_threads
    params.n_threads_batch = llm.n_threads_batch
    params.type_k = GGML_TYPE_IDS[plan.batch_kv]
    params.type_v = GGML_TYPE_IDS[plan.batch_kv]
    enabled, disabled = llama_cpp.LLAMA_FLASH_ATTN_TYPE_ENABLED, llama_cpp.LLAMA_FLASH_ATTN_TYPE_DISABLED
    params.flash_attn_type = enabled if plan.flash_attn else disabled
    params.swa_full = plan.swa_full
    ctx = llama_cpp.llama_init_from_model(llm._model.model, params)
    if not ctx:
        raise BatchContextError(
            f"Could not create a context for {n_parallel} sequences ({cells} tokens of KV cache each): "
            "not enough memory. Send fewer prompts at once, or lower max_tokens."
        )
    n_batch = int(params.n_batch)
    batch = llama_cpp.llama_batch_init(n_batch, 0, 1)
    results: list[tuple[str, dict[str, Any]] | None] = [None] * len(prompts)
    finished = 0
    try:
        memory = llama_cpp.llama_get_memory(ctx)
        vocab = llm._model.vocab
        token_bytes = TokenBytes(llama_cpp, vocab)
        greedy = GreedySampler(llama_cpp, llm.n_vocab())
        for wave in waves:
            llama_cpp.llama_memory_clear(memory, True)
            sequences = [_Sequence(index, seq_id, prompts[index], stop) for seq_id, index in enumerate(wave)]
            for sequence in sequences:
                sequence.sampler = _new_sampler(llama_cpp, temperature, seed + sequence.index)
            try:
                for done_index, text, stats in _run_wave(
                    llama_cpp,
                    ctx,
                    batch,
                    n_batch,
                    vocab,
                    token_bytes,
                    greedy,
                    sequences,
                    max_tokens,
                    check_cancel,
                    abort_callback,
                ):
                    results[done_index] = (text, stats)
                    finished += 1
                    progress(finished, len(prompts))
            finally:
                for sequence in sequences:
                    if sequence.sampler is not None:
                        llama_cpp.llama_sampler_free(sequence.sampler)
    finally:
        llama_cpp.llama_batch_free(batch)
        llama_cpp.llama_free(ctx)
    return [result for result in results if result is not None]


def _run_wave(
    llama_cpp: Any,
    ctx: Any,
    batch: Any,
    n_batch: int,
    vocab: Any,
    token_bytes: TokenBytes,
    greedy: GreedySampler,
    sequences: list[_Sequence],
    max_tokens: int,
    check_cancel: Callable[[], None],
    abort_callback: Any,
) -> list[tuple[int, str, dict[str, Any]]]:
    started = time.perf_counter()
    # Prefill: all prompts' tokens packed into decode calls sized by measured time. A
    # sequence's first token is sampled right after the call holding its last prompt token.
    flat = [(sequence, pos) for sequence in sequences for pos in range(len(sequence.prompt))]
    sizer = ChunkSizer(maximum=n_batch, initial=32)
    offset = 0
    if abort_callback is not None:  # prefill only: see llama_worker._Worker._set_abort
        llama_cpp.llama_set_abort_callback(ctx, abort_callback, None)
    while offset < len(flat):
        check_cancel()
        part = flat[offset : offset + sizer.next(len(flat) - offset)]
        batch.n_tokens = len(part)
        last_rows: list[tuple[_Sequence, int]] = []
        for row, (sequence, pos) in enumerate(part):
            batch.token[row] = sequence.prompt[pos]
            batch.pos[row] = pos
            batch.n_seq_id[row] = 1
            batch.seq_id[row][0] = sequence.seq_id
            is_last = pos == len(sequence.prompt) - 1
            batch.logits[row] = is_last
            if is_last:
                last_rows.append((sequence, row))
        chunk_started = time.perf_counter()
        _decode(llama_cpp, ctx, batch, check_cancel)
        sizer.record(len(part), time.perf_counter() - chunk_started)
        for sequence, row in last_rows:
            sequence.n_past = len(sequence.prompt)
            _accept(llama_cpp, ctx, vocab, token_bytes, greedy, sequence, row, max_tokens)
        offset += len(part)
    if abort_callback is not None:
        llama_cpp.llama_set_abort_callback(ctx, llama_cpp.ggml_abort_callback(), None)
    prefill_s = time.perf_counter() - started
    n_prefill = len(flat)

    # Decode: one token per unfinished sequence per llama_decode call.
    while True:
        active = [sequence for sequence in sequences if sequence.reason is None]
        if not active:
            break
        check_cancel()
        batch.n_tokens = len(active)
        for row, sequence in enumerate(active):
            batch.token[row] = sequence.last_token
            batch.pos[row] = sequence.n_past
            batch.n_seq_id[row] = 1
            batch.seq_id[row][0] = sequence.seq_id
            batch.logits[row] = True
        _decode(llama_cpp, ctx, batch, check_cancel)
        for row, sequence in enumerate(active):
            sequence.n_past += 1
            _accept(llama_cpp, ctx, vocab, token_bytes, greedy, sequence, row, max_tokens)

    ended = time.perf_counter()
    out: list[tuple[int, str, dict[str, Any]]] = []
    for sequence in sequences:
        decode_s = ended - sequence.first_token_at
        text = "".join(sequence.texts)
        stats = {
            "prompt_tokens": len(sequence.prompt),
            "cached_tokens": 0,
            "completion_tokens": sequence.generated,
            "ttft_s": sequence.first_token_at - started,
            "prefill_tok_s": n_prefill / prefill_s if prefill_s > 0 else 0.0,
            "decode_tok_s": (sequence.generated - 1) / decode_s if sequence.generated > 1 and decode_s > 0 else 0.0,
            "total_s": ended - started,
            "stop_reason": sequence.reason or "length",
        }
        out.append((sequence.index, text, stats))
    return out


def _decode(llama_cpp: Any, ctx: Any, batch: Any, check_cancel: Callable[[], None]) -> None:
    code = llama_cpp.llama_decode(ctx, batch)
    if code == 2:  # aborted by the abort callback
        check_cancel()
    if code != 0:
        raise BatchContextError(
            f"llama_decode failed with code {code} (KV cache full or out of memory). "
            "Send fewer prompts at once, or lower max_tokens."
        )


def _accept(
    llama_cpp: Any,
    ctx: Any,
    vocab: Any,
    token_bytes: TokenBytes,
    greedy: GreedySampler,
    sequence: _Sequence,
    row: int,
    max_tokens: int,
) -> None:
    """Sample the sequence's next token from batch row ``row`` and record it."""
    if sequence.sampler is None:
        token = greedy.sample(ctx, row)
    else:
        token = int(llama_cpp.llama_sampler_sample(sequence.sampler, ctx, row))
    if sequence.generated == 0 and not sequence.first_token_at:
        sequence.first_token_at = time.perf_counter()
    if llama_cpp.llama_vocab_is_eog(vocab, token):
        sequence.reason = "eos"
        sequence.texts.append(sequence.scanner.flush() + sequence.decoder.decode(b"", final=True))
        return
    sequence.generated += 1
    sequence.texts.append(sequence.scanner.feed(sequence.decoder.decode(token_bytes(token))))
    if sequence.scanner.stopped:
        sequence.reason = "stop"
        return
    if sequence.generated >= max_tokens:
        sequence.reason = "length"
        sequence.texts.append(sequence.scanner.flush() + sequence.decoder.decode(b"", final=True))
        return
    sequence.last_token = token

"""One prompt at a time on the model's own context: prefill, then sampling, plain or with drafts.

Runs in the worker process: ``inference.engines.llama_worker`` receives the request, loads the model and
tokenizes the prompt; ``inference.engines.batch_decode`` is the several-prompts sibling. The KV cache of
the longest prefix shared with the previous prompt is kept (``reuse_prefix``).

Prefill goes in whole micro-batches (``decode_utils.prefill_step``): with layers in CPU memory
each call costs the same whatever its size (their weights cross to the GPU once per
micro-batch), so smaller calls only multiply that cost. ``check_cancel`` is called between
prefill calls and between generated tokens; during prefill the worker's abort callback is on
(``set_abort``), so on the CPU backend a cancel lands within a graph node.
"""

from __future__ import annotations

import codecs
import os
import sys
import time
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from typing import Any

from inference.engines.decode_utils import GreedySampler, NanCheck, TokenBytes, prefill_step
from inference.engines.engine import StopReason, StopScanner

TRACE_CHUNKS = bool(os.environ.get("PAGEWISE_TRACE_CHUNKS"))

DRAFT_MAX_TOKENS = 10
"""Longest prompt-lookup draft checked in one decode call."""
DRAFT_WINDOW = 20
DRAFT_MIN_ACCEPTANCE = 0.4
DRAFT_PAUSE_TOKENS = 32

STREAM_INTERVAL_S = 0.05
INVALID = -1  # handed out by _plain_tokens instead of a token when the logits hold a NaN
"""Coalesce streamed pieces over this long (20 updates a second at most)."""

PieceCallback = Callable[[str, int | None], None]
"""Streamed text; the first piece also carries how many prompt tokens came from the cache."""


@dataclass(slots=True)
class _Drafts:
    """Prompt-lookup draft tokens checked and accepted in one generation."""

    drafted: int = 0
    accepted: int = 0


def generate(
    llm: Any,
    llama_cpp: Any,
    tokens: list[int],
    *,
    max_tokens: int,
    temperature: float,
    stop: Sequence[str],
    prompt_lookup: bool,
    json_schema: str | None,
    n_ubatch: int,
    started: float,
    check_cancel: Callable[[], None],
    set_abort: Callable[[bool], None],
    grammar: Callable[[str], Any],
    on_piece: PieceCallback,
) -> dict[str, Any]:
    """Generate a reply to ``tokens`` (the prompt, already checked to fit), streaming it to
    ``on_piece``; returns the statistics of the ``done`` message. ``started``: when the request
    arrived (time to first token counts from there)."""
    cached = reuse_prefix(llm, tokens)
    suffix = tokens[cached:]
    prefill_started = time.perf_counter()
    step = prefill_step(int(llm.n_batch), n_ubatch)
    done = 0
    set_abort(True)
    try:
        while done < len(suffix):
            check_cancel()
            part = suffix[done : done + step]
            chunk_started = time.perf_counter()
            try:
                llm.eval(part)
            except RuntimeError:  # "llama_decode returned 2": aborted
                check_cancel()
                raise
            if TRACE_CHUNKS:
                sys.stderr.write(
                    f"[chunk] n={len(part)} s={time.perf_counter() - chunk_started:.3f} "
                    f"pos={llm.n_tokens} t={time.time():.3f}\n"
                )
            done += len(part)
    finally:
        set_abort(False)
    prefill_s = time.perf_counter() - prefill_started

    if json_schema is not None:
        sampler: Any = llm._init_sampler(temp=max(0.0, temperature), repeat_penalty=1.0, grammar=grammar(json_schema))
    elif temperature <= 0:
        sampler = GreedySampler(llama_cpp, llm.n_vocab())
    else:
        sampler = llm._init_sampler(temp=temperature, repeat_penalty=1.0)
    vocab = llm._model.vocab
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    scanner = StopScanner(stop, loops=json_schema is None)
    reason: StopReason = "length"
    generated = 0
    first_token_at = 0.0
    is_eog = llama_cpp.llama_vocab_is_eog
    detokenize = TokenBytes(llama_cpp, vocab)
    drafts = _Drafts()
    if prompt_lookup and temperature <= 0:
        source = _lookup_tokens(llm, sampler, max_tokens, tokens, check_cancel, drafts)
    else:
        has_nan = NanCheck(llama_cpp, llm.n_vocab()) if json_schema is not None else None
        source = _plain_tokens(llm, sampler, max_tokens, check_cancel, has_nan)
    # Pieces are sent at most every STREAM_INTERVAL_S (the first at once): one message per
    # token would wake the parent per token and, on a small CPU, slow the decode itself.
    pending: list[str] = []
    last_send = 0.0
    for index, token in enumerate(source):
        if index == 0:
            first_token_at = time.perf_counter()
        if token == INVALID:
            reason = "invalid"
            if index == 0:
                on_piece("", cached)
            break
        if is_eog(vocab, token):
            reason = "eos"
            if index == 0:
                on_piece("", cached)
            break
        generated += 1
        text = scanner.feed(decoder.decode(detokenize(token)))
        if text:
            pending.append(text)
        now = time.perf_counter()
        if index == 0 or (pending and now - last_send >= STREAM_INTERVAL_S):
            # The first piece also says how much of the prompt came from the cache.
            on_piece("".join(pending), cached if index == 0 else None)
            pending.clear()
            last_send = now
        if scanner.stopped:
            reason = "loop" if scanner.looped else "stop"
            break
    source.close()
    pending.append(scanner.flush() + ("" if scanner.stopped else decoder.decode(b"", final=True)))
    tail = "".join(pending)
    if tail:
        on_piece(tail, None)
    ended = time.perf_counter()
    decode_s = ended - first_token_at if first_token_at else 0.0
    return {
        "prompt_tokens": len(tokens),
        "cached_tokens": cached,
        "completion_tokens": generated,
        "ttft_s": (first_token_at or ended) - started,
        "prefill_tok_s": len(suffix) / prefill_s if prefill_s > 0 else 0.0,
        "decode_tok_s": (generated - 1) / decode_s if generated > 1 and decode_s > 0 else 0.0,
        "total_s": ended - started,
        "stop_reason": reason,
        "drafted_tokens": drafts.drafted,
        "accepted_tokens": drafts.accepted,
    }


def reuse_prefix(llm: Any, tokens: list[int]) -> int:
    """Keep the KV cache of the longest prefix shared with what was evaluated before.

    At least one prompt token is always evaluated again, so that the logits used for the
    first sample are those of this prompt. Returns the number of reused tokens.
    """
    previous = llm._input_ids  # tokens whose KV is in the cache (llm.n_tokens of them)
    common = 0
    limit = min(len(previous), len(tokens) - 1)
    while common < limit and int(previous[common]) == tokens[common]:
        common += 1
    sys.stderr.write(
        f"[pagewise] prompt of {len(tokens)} tokens: {common} shared with the {len(previous)} in the cache "
        f"(first tokens {tokens[:4]} vs {[int(t) for t in previous[:4]]})\n"
    )
    if common > 0 and llm._ctx.kv_cache_seq_rm(-1, common, -1):
        llm.n_tokens = common
        return common
    llm.reset()
    llm._ctx.kv_cache_clear()
    return 0


def _plain_tokens(
    llm: Any,
    sampler: Any,
    max_tokens: int,
    check_cancel: Callable[[], None],
    has_nan: Callable[[Any, int], bool] | None = None,
) -> Generator[int, None, None]:
    """Sample a token, hand it out, evaluate it; ``max_tokens`` times. With ``has_nan`` (a
    grammar sampler), logits holding a NaN end the reply: -1 is handed out instead of a token."""
    for index in range(max_tokens):
        check_cancel()
        if has_nan is not None and has_nan(llm._ctx, -1):
            yield INVALID
            return
        token = int(sampler.sample(llm._ctx, -1))
        yield token
        if index + 1 < max_tokens:
            llm.eval([token])


def _lookup_tokens(
    llm: Any, sampler: Any, max_tokens: int, prompt: list[int], check_cancel: Callable[[], None], drafts: _Drafts
) -> Generator[int, None, None]:
    """Greedy decoding with prompt-lookup drafts (``inference.engines.prompt_lookup``).

    Each step evaluates the last token plus a draft in one call with logits for every
    position, keeps the draft tokens the model agrees with, then trims the KV cache to
    them. Same tokens as plain greedy decoding; fewer decode calls when drafts hit.
    """
    from inference.engines.prompt_lookup import NgramIndex

    index = NgramIndex(prompt, max_n=3, min_n=2)
    n_ctx = int(llm.n_ctx())
    produced = 0
    # Drafting pays only while drafts are accepted: below DRAFT_MIN_ACCEPTANCE over the
    # recent drafts, decode plainly for a while (free text rarely repeats the prompt).
    recent_drafted = recent_accepted = 0
    pause = 0
    token = int(sampler.sample(llm._ctx, -1))
    while True:
        check_cancel()
        yield token
        produced += 1
        index.add(token)
        if produced >= max_tokens:
            return
        n_past = int(llm.n_tokens)
        room = min(max_tokens - produced, n_ctx - n_past - 1, DRAFT_MAX_TOKENS)
        draft = index.draft(room) if pause == 0 else []
        pause = max(0, pause - 1)
        if not draft:
            llm.eval([token])
            token = int(sampler.sample(llm._ctx, -1))
            continue
        batch_tokens = [token, *draft]
        llm._ctx.kv_cache_seq_rm(-1, n_past, -1)
        llm._batch.set_batch(batch=batch_tokens, n_past=n_past, logits_all=True)
        llm._ctx.decode(llm._batch)
        llm.input_ids[n_past : n_past + len(batch_tokens)] = batch_tokens
        accepted: list[int] = []
        for position in range(len(batch_tokens)):
            predicted = int(sampler.sample(llm._ctx, position))
            if position < len(draft) and predicted == draft[position]:
                accepted.append(predicted)
                continue
            token = predicted  # the model's own next token after the accepted ones
            break
        kept = n_past + 1 + len(accepted)
        llm._ctx.kv_cache_seq_rm(-1, kept, -1)
        llm.n_tokens = kept
        recent_drafted += len(draft)
        recent_accepted += len(accepted)
        drafts.drafted += len(draft)
        drafts.accepted += len(accepted)
        if recent_drafted >= DRAFT_WINDOW:
            if recent_accepted < DRAFT_MIN_ACCEPTANCE * recent_drafted:
                pause = DRAFT_PAUSE_TOKENS
            recent_drafted = recent_accepted = 0
        for draft_token in accepted:
            check_cancel()
            yield draft_token
            produced += 1
            index.add(draft_token)
            if produced >= max_tokens:
                return

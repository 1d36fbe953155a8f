"""Planning ``generate_batch``'s context: how many sequences run at once, and what they cost.

The main context is planned first (``inference.planning.job_time.plan_for_job``). The batch context is a
second llama.cpp context beside it for summarizing several segments at once, each sequence of
``per_sequence`` tokens. On the GPU it runs the largest of 16, 8, 4, 2 sequences whose KV cache
and compute buffer still fit the budget, or 1; f16 KV unless f16 cannot run two sequences (then
q8_0, then q4_0); for the same number of sequences the larger micro-batch when it fits.

With layers in CPU memory, width can be bought with layers: the CPU-resident layers' weights are
read once per decode step whatever the width. But their attention runs on the CPU too, over a
cache as deep as the segment, once per sequence, and fewer layers slow the prompt. Measured for
the 32B at 12 GiB on the H200, 8K deep (docs/benchmarks.md): one sequence with 36
GPU layers decodes 2.6 tok/s, four with 31 layers 3.6 tok/s in all, eight with 27 layers 3.1;
per 256-token summary that is 112, 95 and 110 s. ``plan_batched`` weighs 2, 4 and 8 sequences
against layers with that cost in ``job_time.decode_step_seconds``; it trades when the predicted
time per segment falls by ``MIN_TRADE_GAIN``, and among trades within ``CLOSE_CALL`` of the
fastest keeps the most layers (the 32B: 4 sequences with 31 layers):

    seconds per segment = prompt tokens / prefill rate + generated tokens x step(width) / width

Measured on an H200 at 12 GiB (docs/benchmarks.md): Llama-3.1-8B, 125 segments of 8K tokens,
165 s with 4 f16 sequences and 2,048-token micro-batches against 199 s with 8 q8_0 sequences
and 512 (the CUDA flash-attention kernels decode a q8_0 cache more slowly).
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass

from inference.errors import PlanError
from inference.planning.gguf_info import GgufInfo
from inference.planning.job_time import Job, JobPlan, decode_step_seconds, plan_for_job, predict_rates
from inference.planning.memory_model import Config, PlannerOptions, estimate
from inference.planning.plan import KvType, Plan
from inference.planning.policy import Overrides, plan

PARALLEL_CHOICES = (16, 8, 4, 2)
BATCH_UBATCH_CHOICES = (2048, 1024, 512)
"""4,096 is not tried: with it, Qwen2.5-7B's 8 batched sequences took 151.3 s per 1M prompt tokens
against 152.6 s at 2,048 (H200, 12 GiB, docs/data/gpu-offload/width-vs-layers/) for 1.2 GiB more GPU memory,
although a single 8K prompt runs 37% faster at 4,096. 1,024 is what an offloaded
model's single sequence often fits best (the 32B at 12 GiB: 36 layers with 1,024)."""
CPU_MAX_PARALLEL = 1
"""On the CPU, batching does not pay: prefill is compute-bound and the batch context's unified KV
cache makes every token attend over all sequences' cells. Measured with SmolLM2-135M, 1 thread,
three 2K-token segments of a contract: 53 s one by one, 130 s as one batch of 3. Callers may
still ask for more (``max_parallel``)."""
OFFLOAD_WIDTHS = (2, 4, 8)
"""Widths tried against GPU layers when layers stay in CPU memory."""
MAX_LAYERS_TRADED = 24
MIN_TRADE_GAIN = 0.10
"""Layers given up for width must save this share of the predicted time per segment: the model
is within ~10% of the measured rows, and a plan that keeps its layers also answers faster."""
CLOSE_CALL = 0.05
"""Trades predicted within this share of the fastest count as equal: the most layers wins."""


@dataclass(frozen=True, slots=True)
class BatchChoice:
    """What ``generate_batch`` may run next to the main context."""

    parallel: int
    kv: KvType
    gpu_bytes: int = 0  # the batch context's KV cache and compute buffer on the GPU
    n_ubatch: int = 0  # the batch context's micro-batch (0: the main context's)


def _free_ram() -> int | None:
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return None


def _batch_kv_types(single: Plan) -> tuple[KvType, ...]:
    """KV types for the batch context, in order: f16, then (each only when the one before cannot
    run two sequences) q8_0 and q4_0, which need flash attention. A main context quantized to
    hold a long context does not make the batch's segment-sized sequences quantized too."""
    if not single.flash_attn:  # a quantized V cache needs flash attention
        return (single.type_k,)
    return ("f16", "q8_0", "q4_0")


def choose_batch(
    single: Plan,
    info: GgufInfo,
    budget: int | None,
    limit: int,
    per_sequence: int | None = None,
    ubatches: tuple[int, ...] = BATCH_UBATCH_CHOICES,
    widths: tuple[int, ...] = PARALLEL_CHOICES,
) -> BatchChoice:
    """How many sequences ``generate_batch`` can run next to the ``single`` plan's context, each
    of ``per_sequence`` tokens (default: the plan's n_ctx), with which KV type and micro-batch
    (on the GPU: f16 KV unless it cannot run two sequences, then the most sequences, then the
    larger micro-batch)."""
    seq_ctx = per_sequence or single.n_ctx
    gpu = bool(budget) and single.n_gpu_layers != 0
    if not gpu:
        ram = _free_ram()
        for n in widths:
            if n > limit:
                continue
            batch = estimate(info, Config(0, n * seq_ctx, single.type_k, single.flash_attn, n))
            if ram is None or single.predicted_host_bytes + batch.kv_cpu <= ram // 2:
                return BatchChoice(n, single.type_k)
        return BatchChoice(1, single.type_k)
    assert budget is not None
    for kv in _batch_kv_types(single):
        for n in widths:
            if n > limit:
                continue
            for n_ubatch in ubatches:
                options = PlannerOptions(n_batch=n_ubatch, n_ubatch=n_ubatch)
                config = Config(single.n_gpu_layers, n * seq_ctx, kv, single.flash_attn, n, single.n_cpu_moe)
                batch = estimate(info, config, options)
                extra = batch.breakdown.kv_cache + batch.breakdown.compute_buffers
                if single.predicted.total + extra <= budget:
                    return BatchChoice(n, kv, extra, n_ubatch)
    return BatchChoice(1, single.type_k)


def with_batch_context(
    single: Plan,
    info: GgufInfo,
    budget: int | None,
    per_sequence: int,
    max_parallel: int | None = None,
    widths: tuple[int, ...] = PARALLEL_CHOICES,
) -> tuple[Plan, int]:
    """``single`` with ``generate_batch``'s context planned next to it (``choose_batch``), and
    the number of sequences it runs (1: no batching)."""
    gpu = bool(budget) and single.n_gpu_layers != 0
    limit = max_parallel if max_parallel is not None else (PARALLEL_CHOICES[0] if gpu else CPU_MAX_PARALLEL)
    choice = choose_batch(single, info, budget, limit, per_sequence, widths=widths)
    if choice.parallel == 1:
        return dataclasses.replace(single, n_seq_max=1), 1
    chosen = dataclasses.replace(
        single,
        n_seq_max=choice.parallel,
        batch_kv_type=choice.kv if choice.kv != single.type_k else None,
        predicted_batch_bytes=choice.gpu_bytes,
        batch_n_ctx=per_sequence,
        batch_n_ubatch=choice.n_ubatch if choice.n_ubatch != single.n_ubatch else 0,
    )
    return chosen, choice.parallel


@dataclass(frozen=True, slots=True)
class BatchedPlan:
    """The main context's plan with its batch context, and why."""

    plan: Plan
    parallel: int
    seconds_per_job: float  # predicted, for one job of the batch (a segment), width counted
    job_plan: JobPlan
    others: tuple[tuple[int, int, float], ...] = ()  # (width, GPU layers, seconds per job) tried

    def explain(self) -> str:
        text = (
            f"{self.parallel} sequence{'s' if self.parallel != 1 else ''} at once with "
            f"{self.plan.n_gpu_layers} GPU layers: {self.seconds_per_job:.1f} s per {self.job_plan.job.name} predicted"
        )
        if self.others:
            text += "; against " + ", ".join(f"{w} with {g} layers {s:.1f} s" for w, g, s in self.others)
        return text


def _per_job(info: GgufInfo, p: Plan, job_plan: JobPlan, width: int) -> float:
    """Seconds per job in the batch context (its own micro-batch for prompts), ``width`` at once."""
    batch = dataclasses.replace(p, n_ubatch=p.batch_n_ubatch or p.n_ubatch, type_k=p.batch_kv)
    prefill = predict_rates(info, batch, job_plan.speeds).prefill_tok_s
    step = decode_step_seconds(info, batch, job_plan.speeds, width, depth=job_plan.job.prompt_tokens)
    return job_plan.job.prompt_tokens / prefill + job_plan.job.generated_tokens * step / width


def plan_batched(
    info: GgufInfo,
    budget: int | None,
    want_ctx: int | None,
    overrides: Overrides,
    job: Job,
    speeds_job_plan: JobPlan | None = None,
    *,
    per_sequence: int,
    max_parallel: int | None = None,
    options: PlannerOptions | None = None,
    trade_layers: bool = False,
) -> BatchedPlan:
    """The main plan for ``job`` (``plan_for_job``, or ``speeds_job_plan`` when already made)
    with the batch context beside it. ``trade_layers`` (a command that only summarizes) and
    layers in CPU memory: also the plans that give up layers for 2, 4 or 8 sequences, keeping
    the least predicted time per job."""
    job_plan = speeds_job_plan or plan_for_job(info, budget, want_ctx, overrides, job, options=options)
    base, width = with_batch_context(job_plan.plan, info, budget, per_sequence, max_parallel)
    seconds = _per_job(info, base, job_plan, width)
    full = info.n_layers + 1
    offloaded = bool(budget) and 0 < base.n_gpu_layers < full
    if not trade_layers or not offloaded or max_parallel == 1 or overrides.n_gpu_layers is not None:
        return BatchedPlan(base, width, seconds, job_plan)
    best = (seconds, base, width)
    traded: list[tuple[float, Plan, int]] = []
    options = options or PlannerOptions()
    main = job_plan.plan
    main_options = dataclasses.replace(options, n_batch=main.n_batch, n_ubatch=main.n_ubatch)
    for want in OFFLOAD_WIDTHS:
        if want <= width or (max_parallel is not None and want > max_parallel):
            continue
        for layers in range(main.n_gpu_layers - 1, max(0, main.n_gpu_layers - MAX_LAYERS_TRADED), -1):
            fixed = dataclasses.replace(overrides, n_gpu_layers=layers, kv_type=overrides.kv_type or main.type_k)
            try:
                single = plan(info, budget, want_ctx, fixed, main_options)
            except PlanError:
                continue
            single = dataclasses.replace(single, n_threads=main.n_threads)
            candidate, got = with_batch_context(single, info, budget, per_sequence, want, widths=(want,))
            if got == want:
                t = _per_job(info, candidate, job_plan, want)
                traded.append((t, candidate, want))
                break
    # Trade only for a clear gain, and among the trades within CLOSE_CALL of the fastest, keep
    # the most layers (fewer sequences): the model ranks near-ties less surely than it ranks
    # layers, and layers also serve the answers.
    fastest = min((c[0] for c in traded), default=seconds)
    if fastest <= seconds * (1 - MIN_TRADE_GAIN):
        close = [c for c in traded if c[0] <= fastest * (1 + CLOSE_CALL)]
        best = max(close, key=lambda c: (c[1].n_gpu_layers, -c[0]))
    t, chosen, chosen_width = best
    candidates = [(width, base.n_gpu_layers, seconds), *((w, p.n_gpu_layers, s) for s, p, w in traded)]
    others = tuple(c for c in candidates if (c[0], c[1]) != (chosen_width, chosen.n_gpu_layers))
    result = BatchedPlan(chosen, chosen_width, t, job_plan, others)
    if chosen is not base:
        result = dataclasses.replace(result, plan=dataclasses.replace(chosen, notes=(*chosen.notes, result.explain())))
    return result

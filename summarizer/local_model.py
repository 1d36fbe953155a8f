"""Loading a local GGUF model for summaries and answers: plan, engine, identity, parallelism.

    with open_local_model(library, path, n_ctx=8192) as model:
        compress(library, model.engine, doc_id, model_sha256=model.sha256, parallel=model.parallel)

The plan comes from ``inference.planner`` (a CPU plan when there is no GPU budget). The
number of segments summarized at once (``parallel``) is, on the GPU, the largest of 16, 8, 4, 2
whose batch context (KV cache for ``parallel`` sequences of a segment summary's tokens, at most
``n_ctx``, plus a compute buffer, created by ``generate_batch`` next to the main context) still
fits the budget, or 1. For the same number of sequences it takes prefill micro-batches of
2,048 tokens rather than 512 when their larger compute buffer fits. The batch context has an
f16 KV cache; it quantizes (q8_0, then q4_0) only when f16 cannot run two sequences.

Measured on an H200 at 12 GiB (docs/benchmarks.md), 125 segments of 8K tokens: Llama-3.1-8B
took 165 s with 4 f16 sequences and 2,048-token micro-batches against 199 s with 8 q8_0
sequences and 512 (the CUDA flash-attention kernels decode a q8_0 cache more slowly: 588 against
440 tok/s in all; prefill and setup took 104 against 118 s); Qwen2.5-7B 153 s with 8 f16
against 162 s with 16 q8_0. On the CPU it is 1 unless asked (see ``CPU_MAX_PARALLEL``).
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from inference.cancel import NEVER_CANCELLED, CancelToken
from inference.gguf_info import GgufInfo, read_gguf_info
from inference.job_time import ANSWER, Job, local_speeds, plan_for_job
from inference.local_engine import LocalEngine, check_model_file
from inference.plan import KvType, Plan
from inference.planner import Config, PlannerOptions, auto_budget, estimate
from inference.progress import ProgressCallback, no_progress
from summarizer.library import Library
from summarizer.model_files import model_sha256

PARALLEL_CHOICES = (16, 8, 4, 2)
BATCH_UBATCH_CHOICES = (2048, 512)
CPU_MAX_PARALLEL = 1
"""On the CPU, batching does not pay: prefill is compute-bound and the batch context's unified KV
cache makes every token attend over all sequences' cells. Measured with SmolLM2-135M, 1 thread,
three 2K-token segments of a contract: 53 s one by one, 130 s as one batch of 3. Callers may
still ask for more (``max_parallel``)."""


@dataclass(slots=True)
class LocalModel:
    engine: LocalEngine
    plan: Plan
    sha256: str
    parallel: int

    def close(self) -> None:
        self.engine.close()

    def __enter__(self) -> LocalModel:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def _free_ram() -> int | None:
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return None


@dataclass(frozen=True, slots=True)
class BatchChoice:
    """What ``generate_batch`` may run next to the main context."""

    parallel: int
    kv: KvType
    gpu_bytes: int = 0  # the batch context's KV cache and compute buffer on the GPU
    n_ubatch: int = 0  # the batch context's micro-batch (0: the main context's)


def _batch_kv_types(single: Plan) -> tuple[KvType, ...]:
    """KV types for the batch context, in order: f16, then (each only when the one before cannot
    run two sequences) q8_0 and q4_0, which need flash attention. A main context quantized to
    hold a long context does not make the batch's segment-sized sequences quantized too."""
    if not single.flash_attn:  # a quantized V cache needs flash attention
        return (single.type_k,)
    return ("f16", "q8_0", "q4_0")


def batch_sequence_tokens(n_ctx: int) -> int:
    """Tokens per ``generate_batch`` sequence: what a default segment summary needs (the
    segment, its prompt and its summary), or the whole context when that is smaller."""
    from summarizer.compress import DEFAULT_SEGMENT_TOKENS, PROMPT_MARGIN, SummaryParams

    need = DEFAULT_SEGMENT_TOKENS + SummaryParams.for_context(n_ctx).summary_tokens + PROMPT_MARGIN
    return min(n_ctx, -(-need // 256) * 256)


def choose_batch(
    single: Plan,
    info: GgufInfo,
    budget: int | None,
    limit: int,
    per_sequence: int | None = None,
    ubatches: tuple[int, ...] = BATCH_UBATCH_CHOICES,
) -> BatchChoice:
    """How many sequences ``generate_batch`` can run next to the ``single`` plan's context, each
    of ``per_sequence`` tokens (default: the plan's n_ctx), with which KV type and micro-batch
    (on the GPU: f16 KV unless it cannot run two sequences, then the most sequences, then the
    larger micro-batch)."""
    seq_ctx = per_sequence or single.n_ctx
    gpu = bool(budget) and single.n_gpu_layers != 0
    if not gpu:
        ram = _free_ram()
        for n in PARALLEL_CHOICES:
            if n > limit:
                continue
            batch = estimate(info, Config(0, n * seq_ctx, single.type_k, single.flash_attn, n))
            if ram is None or single.predicted_host_bytes + batch.kv_cpu <= ram // 2:
                return BatchChoice(n, single.type_k)
        return BatchChoice(1, single.type_k)
    assert budget is not None
    for kv in _batch_kv_types(single):
        for n in PARALLEL_CHOICES:
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


def plan_local_model(
    model_path: Path | str,
    *,
    n_ctx: int | None = None,
    n_threads: int | None = None,
    budget: int | None = None,
    max_parallel: int | None = None,
    job: Job = ANSWER,
) -> tuple[Plan, int]:
    """The plan for ``model_path`` for ``job`` and the parallelism it leaves room for.

    ``budget`` is GPU bytes; None means the free VRAM minus the planner's reserve (0 on a
    machine without an NVIDIA GPU: a CPU plan). ``max_parallel=1`` never batches.
    """
    path = check_model_file(model_path)
    info = read_gguf_info(path)
    if budget is None:
        budget = auto_budget()
    single = plan_for_job(info, budget, n_ctx, job=job, speeds=local_speeds()).plan
    if n_threads is not None:
        single = dataclasses.replace(single, n_threads=n_threads)
    return with_batch_context(single, info, budget, max_parallel)


def with_batch_context(
    single: Plan, info: GgufInfo, budget: int | None, max_parallel: int | None = None
) -> tuple[Plan, int]:
    """``single`` with ``generate_batch``'s context planned next to it (``choose_batch``), and
    the number of sequences it runs (1: no batching)."""
    gpu = bool(budget) and single.n_gpu_layers != 0
    limit = max_parallel if max_parallel is not None else (PARALLEL_CHOICES[0] if gpu else CPU_MAX_PARALLEL)
    per_sequence = batch_sequence_tokens(single.n_ctx)
    choice = choose_batch(single, info, budget, limit, per_sequence)
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


def summary_context_tokens(segment_tokens: int | None = None, summary_tokens: int = 256) -> int:
    """The main context for summarizing alone: a segment, its summary, the prompts, and room for
    the reduction's groups. Smaller than the default answer context, so that more memory is
    left to the batch context (Llama-3.1-8B at 12 GiB: 4 sequences with 2,048-token micro-batches
    at 9,984 tokens, against 512-token ones at 16K)."""
    from summarizer.compress import DEFAULT_SEGMENT_TOKENS

    return (segment_tokens or DEFAULT_SEGMENT_TOKENS) + summary_tokens + 512 + 1024


def open_local_model(
    library: Library,
    model_path: Path | str,
    *,
    n_ctx: int | None = None,
    n_threads: int | None = None,
    budget: int | None = None,
    max_parallel: int | None = None,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken = NEVER_CANCELLED,
    job: Job = ANSWER,
) -> LocalModel:
    """Hash (cached), plan and load ``model_path`` in a worker process."""
    chosen, parallel = plan_local_model(
        model_path, n_ctx=n_ctx, n_threads=n_threads, budget=budget, max_parallel=max_parallel, job=job
    )
    sha = model_sha256(library, model_path, progress, cancel)
    engine = LocalEngine()
    try:
        engine.load(chosen, progress, cancel)
    except BaseException:
        engine.close()
        raise
    return LocalModel(engine, chosen, sha, parallel)

"""Loading a local GGUF model for summaries and answers: plan, engine, identity, parallelism.

    with open_local_model(library, path, n_ctx=8192) as model:
        compress(library, model.engine, doc_id, model_sha256=model.sha256, parallel=model.parallel)

The plan comes from ``inference.planning.job_time.plan_for_job`` (a CPU plan when there is no GPU
budget) and the number of segments summarized at once (``parallel``) from
``inference.planning.batch_plan``, with sequences of a segment summary's tokens
(``batch_sequence_tokens``). A command that only summarizes lets the batch plan trade GPU
layers for sequences when layers stay in CPU memory.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from inference.cancel import NEVER_CANCELLED, CancelToken
from inference.engines.local import LocalEngine, check_model_file
from inference.planning.batch_plan import BatchedPlan, plan_batched
from inference.planning.gguf_info import GgufInfo, read_gguf_info
from inference.planning.gpu_budget import default_budget
from inference.planning.job_time import ANSWER, SUMMARY, Job, local_speeds, plan_for_job
from inference.planning.memory_model import PlannerOptions
from inference.planning.plan import Plan
from inference.planning.policy import Overrides
from inference.progress import ProgressCallback, no_progress
from summarizer.library.storage.store import Library
from summarizer.llm.model_identity import model_sha256


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


def batch_sequence_tokens(n_ctx: int) -> int:
    """Tokens per ``generate_batch`` sequence: what a default segment summary needs (the
    segment, its prompt and its summary), or the whole context when that is smaller."""
    from summarizer.summaries.tree import DEFAULT_SEGMENT_TOKENS, PROMPT_MARGIN, SummaryParams

    need = DEFAULT_SEGMENT_TOKENS + SummaryParams.for_context(n_ctx).summary_tokens + PROMPT_MARGIN
    return min(n_ctx, -(-need // 256) * 256)


def plan_model(
    info: GgufInfo,
    budget: int | None,
    n_ctx: int | None = None,
    *,
    job: Job = ANSWER,
    overrides: Overrides | None = None,
    options: PlannerOptions | None = None,
    max_parallel: int | None = None,
    n_threads: int | None = None,
) -> BatchedPlan:
    """The one planning path of the window and every command: the plan for ``job`` within
    ``budget`` bytes of GPU memory (0 or None: the CPU), the batch context beside it, and the
    number of sequences it runs. ``max_parallel=1`` never batches."""
    overrides = overrides or Overrides()
    job_plan = plan_for_job(info, budget, n_ctx, overrides, job, local_speeds(), options)
    if n_threads is not None:
        job_plan = dataclasses.replace(job_plan, plan=dataclasses.replace(job_plan.plan, n_threads=n_threads))
    return plan_batched(
        info,
        budget,
        n_ctx,
        overrides,
        job,
        job_plan,
        per_sequence=batch_sequence_tokens(job_plan.plan.n_ctx),
        max_parallel=max_parallel,
        options=options,
        trade_layers=job.name == SUMMARY.name,
    )


def plan_local_model(
    model_path: Path | str,
    *,
    n_ctx: int | None = None,
    n_threads: int | None = None,
    budget: int | None = None,
    max_parallel: int | None = None,
    job: Job = ANSWER,
    overrides: Overrides | None = None,
) -> tuple[Plan, int]:
    """The plan for ``model_path`` for ``job`` and the parallelism it leaves room for.

    ``budget`` is GPU bytes; None means the free VRAM minus the planner's reserve (0 on a
    machine without an NVIDIA GPU, or with a llama.cpp built without GPU support: a CPU plan).
    """
    path = check_model_file(model_path)
    info = read_gguf_info(path)
    if budget is None:
        budget, _ = default_budget()
    chosen = plan_model(
        info, budget, n_ctx, job=job, overrides=overrides, max_parallel=max_parallel, n_threads=n_threads
    )
    return chosen.plan, chosen.parallel


def summary_context_tokens(segment_tokens: int | None = None, summary_tokens: int = 256) -> int:
    """The main context for summarizing alone: a segment, its summary, the prompts, and room for
    the reduction's groups. Smaller than the default answer context, so that more memory is
    left to the batch context (Llama-3.1-8B at 12 GiB: 4 sequences with 2,048-token micro-batches
    at 9,984 tokens, against 512-token ones at 16K)."""
    from summarizer.summaries.tree import DEFAULT_SEGMENT_TOKENS

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

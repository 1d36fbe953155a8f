"""The batch context's plan: width against GPU layers when layers stay in CPU memory."""

from __future__ import annotations

from inference.batch_plan import plan_batched, with_batch_context
from inference.job_time import ANSWER, H200, SUMMARY, decode_step_seconds, plan_for_job
from inference.plan_policy import Overrides
from scripts.random_gguf import shape_info

GIB = 1024**3
SEGMENT = 8192 + 512


def test_offloaded_summaries_trade_layers_for_sequences() -> None:
    info = shape_info("qwen2.5-32b")
    job_plan = plan_for_job(info, 12 * GIB, 9984, Overrides(), SUMMARY, H200)
    kept = plan_batched(info, 12 * GIB, 9984, Overrides(), SUMMARY, job_plan, per_sequence=SEGMENT)
    assert kept.parallel == 1 and kept.plan.n_gpu_layers == job_plan.plan.n_gpu_layers
    traded = plan_batched(info, 12 * GIB, 9984, Overrides(), SUMMARY, job_plan, per_sequence=SEGMENT, trade_layers=True)
    assert traded.parallel > 1
    assert traded.plan.n_gpu_layers < job_plan.plan.n_gpu_layers
    assert traded.seconds_per_job < kept.seconds_per_job
    assert traded.plan.predicted.total + traded.plan.predicted_batch_bytes <= 12 * GIB
    assert (1, job_plan.plan.n_gpu_layers) in {(w, g) for w, g, _ in traded.others}
    assert "sequences at once" in traded.plan.notes[-1]
    capped = plan_batched(
        info, 12 * GIB, 9984, Overrides(), SUMMARY, job_plan, per_sequence=SEGMENT, max_parallel=2, trade_layers=True
    )
    assert capped.parallel == 2


def test_all_on_the_gpu_keeps_its_layers() -> None:
    info = shape_info("llama-3.1-8b")
    job_plan = plan_for_job(info, 12 * GIB, 9984, Overrides(), SUMMARY, H200)
    batched = plan_batched(
        info, 12 * GIB, 9984, Overrides(), SUMMARY, job_plan, per_sequence=SEGMENT, trade_layers=True
    )
    assert batched.plan.n_gpu_layers == info.n_layers + 1
    assert batched.parallel == with_batch_context(job_plan.plan, info, 12 * GIB, SEGMENT)[1] > 1
    assert batched.others == ()


def test_a_decode_step_of_a_few_sequences_costs_about_one() -> None:
    info = shape_info("qwen2.5-32b")
    p = plan_for_job(info, 12 * GIB, 8192, Overrides(), ANSWER, H200).plan
    one, four, sixteen = (decode_step_seconds(info, p, H200, w) for w in (1, 4, 16))
    assert one <= four < 2 * one  # the CPU layers' weights are read once per step
    assert sixteen > four  # until their matrix products outgrow the memory reads

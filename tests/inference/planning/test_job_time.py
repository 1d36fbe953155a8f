"""Job-time planning: predicted prefill/decode rates and the micro-batch chosen by job time."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from inference.planning import job_time
from inference.planning.gguf_info import GgufInfo, read_gguf_info
from inference.planning.gpu_budget import parse_budget
from inference.planning.job_time import ANSWER, CONSUMER_12GB, H200, SUMMARY, Job, plan_for_job, predict_rates
from inference.planning.plan import Plan
from scripts.random_gguf import write_random_gguf

BUDGET = parse_budget("12GiB")


@pytest.fixture(scope="module")
def q32(tmp_path_factory: pytest.TempPathFactory) -> GgufInfo:
    path = write_random_gguf("qwen2.5-32b", tmp_path_factory.mktemp("m") / "q32.gguf", sparse=True)
    return read_gguf_info(str(path))


@pytest.fixture(scope="module")
def l8b(tmp_path_factory: pytest.TempPathFactory) -> GgufInfo:
    path = write_random_gguf("llama-3.1-8b", tmp_path_factory.mktemp("m") / "l8b.gguf", sparse=True)
    return read_gguf_info(str(path))


def _plan(layers: int, ubatch: int, kv: str = "q4_0") -> Plan:
    return Plan(model_path="m.gguf", n_gpu_layers=layers, n_ctx=8192, type_k=kv, type_v=kv,  # type: ignore[arg-type]
                flash_attn=True, n_batch=ubatch, n_ubatch=ubatch)  # fmt: skip


def test_rates_follow_the_placement(q32: GgufInfo) -> None:
    few, many = predict_rates(q32, _plan(30, 512), H200), predict_rates(q32, _plan(38, 512), H200)
    assert many.decode_tok_s > few.decode_tok_s  # every layer moved to the GPU speeds each token
    small, large = predict_rates(q32, _plan(36, 512), H200), predict_rates(q32, _plan(36, 2048), H200)
    assert large.prefill_tok_s > 2 * small.prefill_tok_s  # the weights cross once per micro-batch
    assert large.decode_tok_s == small.decode_tok_s


def test_rates_match_the_h200_sweep(q32: GgufInfo) -> None:
    """Within 10% of the measured prefill of docs/data/gpu-offload/layers-offloaded-sweep.jsonl (38 layers at 512:
    352 tok/s; 34 at 2,048: 858; 36 at 1,024: 566)."""
    for layers, ubatch, measured in ((38, 512, 352.4), (34, 2048, 858.3), (36, 1024, 566.0)):
        predicted = predict_rates(q32, _plan(layers, ubatch), H200).prefill_tok_s
        assert abs(predicted - measured) / measured < 0.10, (layers, ubatch, predicted)


def test_summaries_of_an_offloaded_32b_take_larger_micro_batches(q32: GgufInfo) -> None:
    answer = plan_for_job(q32, BUDGET, 8192, job=ANSWER, speeds=CONSUMER_12GB)
    summary = plan_for_job(q32, BUDGET, 8192, job=SUMMARY, speeds=CONSUMER_12GB)
    assert summary.plan.n_ubatch == 2048
    assert summary.plan.n_gpu_layers < 65
    assert summary.seconds <= min(seconds for _, _, seconds in summary.others)
    assert answer.plan.n_ubatch < summary.plan.n_ubatch  # decode weighs more in an answer
    assert any("predicts prefill" in note for note in summary.plan.notes)
    assert summary.plan.predicted.total <= BUDGET


def test_all_layers_on_the_gpu_keep_the_default_micro_batch(l8b: GgufInfo) -> None:
    chosen = plan_for_job(l8b, BUDGET, 16384, job=SUMMARY, speeds=H200)
    assert chosen.plan.n_gpu_layers == l8b.n_layers + 1
    assert chosen.plan.n_ubatch == 512
    assert chosen.others == ()


def test_cpu_plans_are_left_alone(l8b: GgufInfo) -> None:
    chosen = plan_for_job(l8b, None, 4096, job=Job("x", 4000, 10))
    assert chosen.plan.n_gpu_layers == 0
    assert chosen.plan.n_ubatch == 512


def test_a_less_precise_kv_cache_needs_a_clear_gain(monkeypatch: pytest.MonkeyPatch, q32: GgufInfo) -> None:
    """A micro-batch that needs q4_0 where 512 keeps q8_0 is taken only for a 10% gain."""
    plans = {512: _plan(36, 512, "q8_0"), 2048: _plan(36, 2048, "q4_0")}

    def fake_plan(info: Any, budget: Any, ctx: Any, overrides: Any, options: Any) -> Plan:
        if options.n_ubatch not in plans:
            raise job_time.PlanError("does not fit")
        return plans[options.n_ubatch]

    monkeypatch.setattr(job_time, "plan", fake_plan)
    slow_decode = dataclasses.replace(H200, host_memory_rate=1e9)  # decode dominates: prefill gains are small
    assert plan_for_job(q32, BUDGET, 8192, job=ANSWER, speeds=slow_decode).plan.type_k == "q8_0"
    prefill_bound = Job("long prompt", 100_000, 1)
    assert plan_for_job(q32, BUDGET, 8192, job=prefill_bound, speeds=H200).plan.type_k == "q4_0"

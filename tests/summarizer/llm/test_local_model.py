from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from inference.errors import ModelError
from inference.planning.batch_plan import BatchChoice, choose_batch
from inference.planning.batch_plan import choose_batch as choose_batch_any_ubatch
from inference.planning.gguf_info import read_gguf_info
from summarizer.llm.local_model import plan_local_model


def test_cpu_plan_runs_one_sequence_unless_asked(smollm2_path: Path) -> None:
    plan, parallel = plan_local_model(smollm2_path, n_ctx=4096, n_threads=1, budget=0)
    assert plan.n_gpu_layers == 0 and plan.n_ctx == 4096 and plan.n_threads == 1
    assert parallel == 1 and plan.n_seq_max == 1
    batched, four = plan_local_model(smollm2_path, n_ctx=4096, n_threads=1, budget=0, max_parallel=4)
    assert four == 4 and batched.n_seq_max == 4


def test_gpu_parallel_is_bounded_by_the_budget(smollm2_path: Path) -> None:
    info = read_gguf_info(smollm2_path)
    plan, _ = plan_local_model(smollm2_path, n_ctx=8192, budget=2 * 1024**3, max_parallel=1)
    assert plan.n_gpu_layers > 0
    roomy = choose_batch(plan, info, 64 * 1024**3, 16).parallel
    tight = choose_batch(plan, info, plan.predicted.total + 1, 16).parallel
    assert roomy == 16 and tight == 1


def test_missing_model_file(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="not found"):
        plan_local_model(tmp_path / "missing.gguf")


def test_batch_context_keeps_kv_precision_over_sequences(smollm2_path: Path) -> None:
    """Measured on an H200: f16 sequences decode faster than q8_0 ones (docs/benchmarks.md), so the
    batch context quantizes its cache only when f16 cannot run two sequences."""
    from dataclasses import replace

    from inference.planning.memory_model import Config, PlannerOptions, estimate

    info = read_gguf_info(smollm2_path)
    plan, _ = plan_local_model(smollm2_path, n_ctx=8192, budget=8 * 1024**3, max_parallel=1)
    single = replace(plan, type_k="f16", type_v="f16", flash_attn=True)

    def choose_batch(*args: Any) -> BatchChoice:  # the KV choice alone: one micro-batch size
        return choose_batch_any_ubatch(*args, ubatches=(512,))

    roomy = choose_batch(single, info, 64 * 1024**3, 16)
    assert (roomy.parallel, roomy.kv) == (16, "f16")
    assert roomy.gpu_bytes > 0
    # One byte short of 16 f16 sequences: 8 f16 ones, although 16 q8_0 ones would fit.
    budget = single.predicted.total + roomy.gpu_bytes - 1
    fewer = choose_batch(single, info, budget, 16)
    assert (fewer.parallel, fewer.kv) == (8, "f16")
    assert single.predicted.total + fewer.gpu_bytes <= budget
    # Without flash attention the V cache cannot be quantized: f16 in any case.
    no_fa = choose_batch(replace(single, flash_attn=False), info, budget, 16)
    assert (no_fa.parallel, no_fa.kv) == (8, "f16")
    # q8_0 only when f16 cannot run two sequences, q4_0 only when q8_0 cannot.
    two_f16 = choose_batch(single, info, 64 * 1024**3, 2).gpu_bytes
    two_q8 = choose_batch(single, info, single.predicted.total + two_f16 - 1, 16)
    assert two_q8.kv == "q8_0" and two_q8.parallel >= 2
    two_q8 = estimate(info, Config(single.n_gpu_layers, 2 * single.n_ctx, "q8_0", True, 2), PlannerOptions())
    two_q8_bytes = two_q8.breakdown.kv_cache + two_q8.breakdown.compute_buffers
    squeezed = choose_batch(single, info, single.predicted.total + two_q8_bytes - 1, 16)
    assert squeezed.kv == "q4_0" and squeezed.parallel >= 2
    # A main context quantized for a long context still gets f16 batch sequences when they fit.
    quantized_main = replace(single, type_k="q4_0", type_v="q4_0")
    assert choose_batch(quantized_main, info, 64 * 1024**3, 16).kv == "f16"


def test_batch_context_takes_larger_micro_batches_only_when_sequences_are_not_lost(smollm2_path: Path) -> None:
    from dataclasses import replace

    info = read_gguf_info(smollm2_path)
    plan, _ = plan_local_model(smollm2_path, n_ctx=8192, budget=8 * 1024**3, max_parallel=1)
    single = replace(plan, type_k="f16", type_v="f16", flash_attn=True)
    roomy = choose_batch(single, info, 64 * 1024**3, 16)
    assert (roomy.parallel, roomy.n_ubatch, roomy.kv) == (16, 2048, "f16")
    # Room for 16 sequences with 512-token micro-batches but not with 2048: 16 sequences.
    small = choose_batch(single, info, 64 * 1024**3, 16, ubatches=(512,))
    chosen = choose_batch(single, info, single.predicted.total + small.gpu_bytes, 16)
    assert (chosen.parallel, chosen.n_ubatch, chosen.kv) == (16, 512, "f16")
    # The 2048-token compute buffer is larger, and the estimate says so.
    assert roomy.gpu_bytes > small.gpu_bytes


def test_plan_local_model_records_the_batch_context(smollm2_path: Path) -> None:
    from inference.planning.plan import summary_line

    plan, parallel = plan_local_model(smollm2_path, n_ctx=8192, budget=64 * 1024**3)
    assert parallel == 16 and plan.n_seq_max == 16
    assert plan.predicted_batch_bytes > 0
    assert plan.batch_n_ctx == 8192  # a segment summary's need, capped by the context
    assert plan.batch_n_ubatch == 2048
    assert "batches of 16" in summary_line(plan) and "while batching" in summary_line(plan)


def test_batch_context_is_planned_for_segments_not_the_whole_context() -> None:
    from inference.planning.gpu_budget import parse_budget
    from inference.planning.policy import plan
    from scripts.random_gguf import shape_info
    from summarizer.llm.local_model import batch_sequence_tokens

    assert batch_sequence_tokens(4096) == 4096  # a small context: the whole of it
    assert batch_sequence_tokens(32768) == 8192 + 256 + 256  # a segment, its prompt and its summary
    info = shape_info("qwen2.5-7b")
    budget = parse_budget("12GiB")
    single = plan(info, budget, 32768)
    assert single.n_ctx == 32768
    whole = choose_batch(single, info, budget, 16)  # sequences as long as the 32K context
    segments = choose_batch(single, info, budget, 16, batch_sequence_tokens(single.n_ctx))
    assert segments.parallel == 8 and whole.parallel <= 2
    assert single.predicted.total + segments.gpu_bytes <= budget

from __future__ import annotations

from pathlib import Path

import pytest

from inference.errors import ModelError
from inference.gguf_info import read_gguf_info
from summarizer.local_model import choose_batch, plan_local_model


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


def test_batch_context_gives_up_kv_precision_before_sequences(smollm2_path: Path) -> None:
    from dataclasses import replace

    info = read_gguf_info(smollm2_path)
    plan, _ = plan_local_model(smollm2_path, n_ctx=8192, budget=8 * 1024**3, max_parallel=1)
    single = replace(plan, type_k="f16", type_v="f16", flash_attn=True)
    roomy = choose_batch(single, info, 64 * 1024**3, 16)
    assert (roomy.parallel, roomy.kv) == (16, "f16")
    assert roomy.gpu_bytes > 0
    # Room for 16 sequences only with a q8_0 cache: q8_0 is chosen over fewer f16 sequences.
    budget = single.predicted.total + roomy.gpu_bytes - 1
    q8 = choose_batch(single, info, budget, 16)
    assert q8.parallel == 16 and q8.kv == "q8_0"
    assert single.predicted.total + q8.gpu_bytes <= budget
    # Without flash attention the V cache cannot be quantized: fewer f16 sequences.
    no_fa = choose_batch(replace(single, flash_attn=False), info, budget, 16)
    assert no_fa.kv == "f16" and no_fa.parallel == 8
    # q4_0 only when nothing more precise runs two sequences.
    two_f16 = choose_batch(single, info, 64 * 1024**3, 2).gpu_bytes
    two_q8 = choose_batch(single, info, single.predicted.total + two_f16 - 1, 2)
    assert (two_q8.parallel, two_q8.kv) == (2, "q8_0")
    squeezed = choose_batch(single, info, single.predicted.total + two_q8.gpu_bytes - 1, 16)
    assert squeezed.kv == "q4_0" and squeezed.parallel >= 2


def test_plan_local_model_records_the_batch_context(smollm2_path: Path) -> None:
    from inference.planner import summary_line

    plan, parallel = plan_local_model(smollm2_path, n_ctx=8192, budget=64 * 1024**3)
    assert parallel == 16 and plan.n_seq_max == 16
    assert plan.predicted_batch_bytes > 0
    assert plan.batch_n_ctx == 8192  # a segment summary's need, capped by the context
    assert "batches of 16" in summary_line(plan) and "while batching" in summary_line(plan)


def test_batch_context_is_planned_for_segments_not_the_whole_context() -> None:
    from inference.planner import parse_budget, plan
    from inference.random_gguf import shape_info
    from summarizer.local_model import batch_sequence_tokens

    assert batch_sequence_tokens(4096) == 4096  # a small context: the whole of it
    assert batch_sequence_tokens(32768) == 8192 + 256 + 256  # a segment, its prompt and its summary
    info = shape_info("qwen2.5-7b")
    budget = parse_budget("12GiB")
    single = plan(info, budget, 32768)
    assert single.n_ctx == 32768
    whole = choose_batch(single, info, budget, 16)  # sequences as long as the 32K context
    segments = choose_batch(single, info, budget, 16, batch_sequence_tokens(single.n_ctx))
    assert segments.parallel == 16 and whole.parallel <= 4
    assert single.predicted.total + segments.gpu_bytes <= budget

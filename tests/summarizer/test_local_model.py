from __future__ import annotations

from pathlib import Path

import pytest

from inference.errors import ModelError
from inference.gguf_info import read_gguf_info
from summarizer.local_model import choose_parallel, plan_local_model


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
    roomy = choose_parallel(plan, info, 64 * 1024**3, 16)
    tight = choose_parallel(plan, info, plan.predicted.total + 1, 16)
    assert roomy == 16 and tight == 1


def test_missing_model_file(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="not found"):
        plan_local_model(tmp_path / "missing.gguf")

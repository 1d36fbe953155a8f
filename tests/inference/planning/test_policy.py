"""The planner's policy on real models' shapes (no file, no llama.cpp needed)."""

from __future__ import annotations

import dataclasses
import json

import pytest

from inference.errors import PlanError
from inference.planning.memory_model import Config, PlannerOptions, estimate
from inference.planning.plan import GIB, MIB, model_label, summary_line
from inference.planning.policy import Overrides, plan
from scripts.random_gguf import GPU_SHAPES, shape_info

BUDGET = 12 * GIB
RAM = 64 * GIB  # the tests must not depend on this machine's free memory
OPTS = PlannerOptions(ram_bytes=RAM)


# -- policy --------------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", GPU_SHAPES)
@pytest.mark.parametrize("ctx", [8192, 32768, 131072])
@pytest.mark.parametrize("budget_gib", [6, 8, 12, 16, 24])
def test_never_exceeds_the_budget(shape: str, ctx: int, budget_gib: int) -> None:
    info = shape_info(shape)
    budget = budget_gib * GIB
    p = plan(info, budget, ctx, options=dataclasses.replace(OPTS, cpu_moe=True))
    assert p.predicted.total <= budget
    assert p.type_k == p.type_v
    assert p.type_k == "f16" or p.flash_attn
    assert p.swa_full is False


@pytest.mark.parametrize("shape", GPU_SHAPES)
@pytest.mark.parametrize("ctx", [8192, 32768, 131072])
def test_partial_plans_fill_the_budget(shape: str, ctx: int) -> None:
    info = shape_info(shape)
    p = plan(info, BUDGET, ctx, options=dataclasses.replace(OPTS, cpu_moe=True))
    if p.n_gpu_layers < info.n_layers + 1 or p.n_cpu_moe:
        # One more layer (or one expert layer fewer on the CPU) would not fit.
        assert p.predicted.total >= 0.9 * BUDGET


def test_fit_order_precision_before_layers() -> None:
    info = shape_info("qwen2.5-14b")
    assert plan(info, BUDGET, 8192, options=OPTS).type_k == "f16"
    p32 = plan(info, BUDGET, 32768, options=OPTS)
    assert p32.n_gpu_layers == 49 and p32.type_k == "q4_0" and p32.flash_attn
    assert any("q4_0" in n for n in p32.notes)
    # q8_0 at 32K does not fit with all layers: confirmed by the arithmetic.
    assert estimate(info, Config(49, 32768, "q8_0", True), OPTS).total > BUDGET


def test_layers_before_context() -> None:
    info = shape_info("qwen2.5-32b")
    p = plan(info, BUDGET, 32768, options=OPTS)
    assert p.n_ctx == 32768  # the context is kept...
    assert 0 < p.n_gpu_layers < 65  # ...and layers are given up
    assert any("stay on the CPU" in n for n in p.notes)


def test_context_shrinks_last_and_says_so() -> None:
    info = shape_info("qwen2.5-7b")
    tight = 3 * GIB // 2  # not even the output layer fits at 128K (compute buffers), it does at 64K
    p = plan(info, tight, 131072, options=OPTS)
    assert p.predicted.total <= tight
    assert p.n_ctx < 131072
    assert any("context shrunk" in n for n in p.notes)


def test_nothing_fits_is_a_plan_error() -> None:
    info = shape_info("qwen2.5-14b")
    with pytest.raises(PlanError) as caught:
        plan(info, 300 * MIB, 8192, options=OPTS)
    assert "300 MiB" in str(caught.value) and "--budget" in str(caught.value)


def test_context_capped_at_trained_length() -> None:
    info = shape_info("qwen3-30b-a3b")  # 40960
    p = plan(info, BUDGET, 131072, options=dataclasses.replace(OPTS, cpu_moe=True))
    assert p.n_ctx == 40960
    assert any("trained length" in n for n in p.notes)


def test_moe_experts_on_cpu_before_dropping_layers() -> None:
    info = shape_info("qwen3-30b-a3b")
    with_overrides = plan(info, BUDGET, 8192, options=dataclasses.replace(OPTS, cpu_moe=True))
    assert with_overrides.n_gpu_layers == 49 and with_overrides.n_cpu_moe > 0
    without = plan(info, BUDGET, 8192, options=dataclasses.replace(OPTS, cpu_moe=False))
    assert without.n_cpu_moe == 0 and without.n_gpu_layers < 49


def test_swa_model_fits_long_context() -> None:
    info = shape_info("gemma-3-12b")
    p = plan(info, BUDGET, 131072, options=OPTS)
    assert p.n_gpu_layers == 49 and p.n_ctx == 131072
    assert any("sliding-window" in n for n in p.notes)
    # The same model with full-length caches on every layer would not fit at all layers.
    dense = dataclasses.replace(info, swa_layers=(False,) * 48, sliding_window=0)
    assert plan(dense, BUDGET, 131072, options=OPTS).n_gpu_layers < 49


def test_several_sequences_are_planned_for() -> None:
    info = shape_info("qwen2.5-7b")
    one = plan(info, BUDGET, 8192, options=OPTS)
    four = plan(info, BUDGET, 4 * 8192, Overrides(n_seq_max=4), options=OPTS)
    assert four.n_seq_max == 4
    assert four.predicted.kv_cache >= 4 * one.predicted.kv_cache * (1 if four.type_k == one.type_k else 0.25)


# -- overrides ----------------------------------------------------------------------------------


def test_overrides_win_when_they_fit() -> None:
    info = shape_info("qwen2.5-7b")
    p = plan(info, BUDGET, 8192, Overrides(n_gpu_layers=10, kv_type="q8_0"), OPTS)
    assert p.n_gpu_layers == 10 and p.type_k == "q8_0"
    p2 = plan(info, BUDGET, None, Overrides(n_ctx=4096, flash_attn=False), OPTS)
    assert p2.n_ctx == 4096 and not p2.flash_attn and p2.type_k == "f16"


def test_overrides_are_checked_against_the_budget() -> None:
    info = shape_info("qwen2.5-14b")
    with pytest.raises(PlanError) as caught:
        plan(info, BUDGET, None, Overrides(n_gpu_layers=49, kv_type="f16", n_ctx=32768), OPTS)  # 6 GiB of KV
    message = str(caught.value)
    assert "49 GPU layers, KV f16, 32768 tokens" in message and "12.0 GiB" in message and "--kv q4_0" in message
    # A wanted (not fixed) context is shrunk instead, and the plan says so.
    shrunk = plan(info, BUDGET, 32768, Overrides(n_gpu_layers=49, kv_type="f16"), OPTS)
    assert shrunk.n_ctx < 32768 and any("context shrunk" in n for n in shrunk.notes)
    # With only the KV type fixed, the planner gives up layers instead.
    p = plan(info, BUDGET, 32768, Overrides(kv_type="f16"), OPTS)
    assert p.type_k == "f16" and p.n_gpu_layers < 49 and p.predicted.total <= BUDGET
    with pytest.raises(PlanError, match="at most 49"):
        plan(info, BUDGET, 8192, Overrides(n_gpu_layers=80), OPTS)


def test_quantized_kv_needs_flash_attention() -> None:
    with pytest.raises(PlanError, match="flash attention"):
        plan(shape_info("qwen2.5-7b"), BUDGET, 8192, Overrides(kv_type="q8_0", flash_attn=False), OPTS)


def test_gpu_layers_without_gpu() -> None:
    with pytest.raises(PlanError, match="no GPU budget"):
        plan(shape_info("qwen2.5-7b"), None, 8192, Overrides(n_gpu_layers=5), OPTS)


# -- CPU ----------------------------------------------------------------------------------------


def test_cpu_plan_keeps_f16_kv() -> None:
    p = plan(shape_info("qwen2.5-7b"), None, 32768, options=OPTS)
    assert p.n_gpu_layers == 0 and p.type_k == "f16"
    assert p.predicted.total == 0
    assert p.predicted_host_bytes > 4 * GIB
    assert summary_line(p).count("CPU only") == 1


def test_cpu_plan_quantizes_kv_only_when_ram_demands() -> None:
    info = shape_info("qwen2.5-7b")
    need_f16 = estimate(info, Config(0, 131072, "f16", True), OPTS)
    ram = need_f16.weights_cpu + need_f16.kv_cpu  # just too little for f16 plus compute buffers
    p = plan(info, None, 131072, options=dataclasses.replace(OPTS, ram_bytes=ram))
    assert p.type_k in ("q8_0", "q4_0")
    assert any("RAM" in n for n in p.notes)


def test_model_larger_than_ram() -> None:
    with pytest.raises(PlanError, match="does not fit in memory"):
        plan(shape_info("qwen2.5-32b"), None, 8192, options=dataclasses.replace(OPTS, ram_bytes=8 * GIB))


# -- output -------------------------------------------------------------------------------------


def test_summary_line_and_json() -> None:
    info = shape_info("qwen2.5-14b")
    p = plan(info, BUDGET, 16384, options=OPTS)
    line = summary_line(p)
    assert line.startswith("qwen2.5-14b-Q4_K_M · 49/49 layers GPU · KV ")  # the file, not "(random weights)"
    assert "16K ctx" in line and "est. " in line and "of 12.0" in line
    data = json.loads(json.dumps(p.to_json()))
    assert data["predicted"]["total"] == p.predicted.total <= BUDGET
    assert data["n_layers_total"] == 49 and data["type_k"] == data["type_v"]
    assert isinstance(data["notes"], list)


@pytest.mark.parametrize(
    ("file", "quant", "gguf_name", "label"),
    [
        # Finding: the plan named SmolLM2 by its training run, not by the file the user chose.
        ("SmolLM2-135M-Instruct-Q8_0.gguf", "Q8_0", "Smollm2 135M 8k Lc100K Mix1 Ep2", "SmolLM2-135M-Instruct-Q8_0"),
        ("qwen2.5-7b-instruct.gguf", "Q4_K_M", "Qwen2.5 7B Instruct", "qwen2.5-7b-instruct Q4_K_M"),
        ("ggml-model-q4_k_m.gguf", "Q4_K_M", "Qwen2.5 7B Instruct", "ggml-model-q4_k_m (Qwen2.5 7B Instruct)"),
        ("model.gguf", "Q4_K_M", "", "model Q4_K_M"),
    ],
)
def test_the_plan_names_the_model_by_its_file(file: str, quant: str, gguf_name: str, label: str) -> None:
    info = dataclasses.replace(shape_info("qwen2.5-14b", quant, f"/models/{file}"), name=gguf_name)
    p = plan(info, BUDGET, 4096, options=OPTS)
    assert model_label(p) == label and summary_line(p).startswith(label + " · ")


def test_zero_gpu_layers_on_a_gpu_still_counts_the_compute_buffer() -> None:
    """A GPU build runs the prompt's big operations on the GPU even with 0 layers offloaded
    (H200: Qwen2.5-14B and -32B at 128K without flash attention used 11759 MiB)."""
    info = shape_info("qwen2.5-14b")
    p = plan(info, BUDGET, None, Overrides(n_gpu_layers=0, n_ctx=131072, flash_attn=False), OPTS)
    assert p.n_gpu_layers == 0 and p.predicted.weights_gpu == 0 and p.predicted.kv_cache == 0
    measured = 11759 * MIB
    assert abs(p.predicted.total - measured) <= 0.03 * BUDGET
    # The same override under a smaller budget is refused, not planned at 0 bytes.
    with pytest.raises(PlanError):
        plan(info, 8 * GIB, None, Overrides(n_gpu_layers=0, n_ctx=131072, flash_attn=False), OPTS)
    # Without a GPU budget (a CPU plan) nothing is on the GPU.
    cpu = plan(info, 0, 8192, Overrides(), OPTS)
    assert cpu.predicted.total == 0

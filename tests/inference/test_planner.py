"""Planner arithmetic and policy, on real models' shapes (no file, no llama.cpp needed)."""

from __future__ import annotations

import dataclasses
import json

import pytest

from inference.errors import PlanError
from inference.kv_cache import effective_n_ctx, gpu_layer_ids, kv_cache_bytes, layer_cells, row_bytes, weights_split
from inference.plan import GIB, MIB, Plan
from inference.planner import (
    Config,
    Overrides,
    PlannerOptions,
    calibrate,
    estimate,
    parse_budget,
    plan,
    plan_with_probe,
    summary_line,
)
from inference.random_gguf import GPU_SHAPES, shape_info

BUDGET = 12 * GIB
RAM = 64 * GIB  # the tests must not depend on this machine's free memory
OPTS = PlannerOptions(ram_bytes=RAM)


# -- budgets ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("12GiB", 12 * GIB),
        ("12 GiB", 12 * GIB),
        ("12G", 12 * GIB),
        ("11.5GiB", int(11.5 * GIB)),
        ("900MiB", 900 * MIB),
        ("12GB", 12 * 10**9),
        ("0", 0),
        (4096, 4096),
    ],
)
def test_parse_budget(text: str | int, expected: int) -> None:
    assert parse_budget(text) == expected


@pytest.mark.parametrize("text", ["twelve", "12 parsecs", "1.2.3GiB", ""])
def test_parse_budget_rejects(text: str) -> None:
    with pytest.raises(PlanError, match="12GiB"):
        parse_budget(text)


# -- arithmetic ----------------------------------------------------------------------------------


def test_row_bytes() -> None:
    assert row_bytes("f16", 1024) == 2048
    assert row_bytes("q8_0", 1024) == 1024 // 32 * 34
    assert row_bytes("q4_0", 1024) == 1024 // 32 * 18


def test_n_ctx_rounding_like_llama_cpp() -> None:
    assert effective_n_ctx(1000) == (1024, 1024, 1)
    assert effective_n_ctx(8192) == (8192, 8192, 1)
    # Not unified: each of 4 streams gets pad(n_ctx / 4, 256) cells.
    assert effective_n_ctx(10000, n_seq_max=4) == (4 * 2560, 2560, 4)
    assert effective_n_ctx(10000, n_seq_max=4, kv_unified=True) == (10240, 10240, 1)


def test_output_layer_counts_in_n_gpu_layers() -> None:
    # llama.cpp: layers il >= n_layer + 1 - n_gpu_layers go to the GPU, il == n_layer is the output.
    assert gpu_layer_ids(4, 0) == ([], False)
    assert gpu_layer_ids(4, 1) == ([], True)
    assert gpu_layer_ids(4, 2) == ([3], True)
    assert gpu_layer_ids(4, 5) == ([0, 1, 2, 3], True)
    assert gpu_layer_ids(4, 99) == ([0, 1, 2, 3], True)
    assert gpu_layer_ids(4, -1) == ([0, 1, 2, 3], True)


def test_qwen14b_kv_cache_matches_the_hand_formula() -> None:
    info = shape_info("qwen2.5-14b")
    kv = kv_cache_bytes(info, 32768, "q8_0", "q8_0", flash_attn=True, n_gpu_layers=49)
    # 48 layers x 32768 cells x (8 KV heads x 128) x 34/32 bytes, K and V: 3264 MiB (llama.cpp: 3264.00 MiB).
    assert kv.gpu == 48 * 32768 * 2 * (1024 // 32 * 34) == 3264 * MIB
    assert kv.cpu == 0
    half = kv_cache_bytes(info, 32768, "q8_0", "q8_0", flash_attn=True, n_gpu_layers=25)
    assert half.gpu == 24 * 32768 * 2 * (1024 // 32 * 34) and half.total == kv.total


def test_gqa_sizes_kv_by_kv_heads() -> None:
    info = shape_info("qwen2.5-7b")  # 28 query heads, 4 KV heads
    full = kv_cache_bytes(info, 8192, "f16", "f16", flash_attn=True, n_gpu_layers=29)
    assert full.gpu == 28 * 8192 * 2 * (4 * 128 * 2)
    mha = dataclasses.replace(info, n_head_kv=(28,) * 28)
    assert kv_cache_bytes(mha, 8192, "f16", "f16", flash_attn=True, n_gpu_layers=29).gpu == 7 * full.gpu


def test_sliding_window_layers_keep_only_the_window() -> None:
    info = shape_info("gemma-3-12b")  # window 1024, 8 global layers of 48
    assert layer_cells(info, 0, 32768) == 1024 + 512  # pad(1024 + n_ubatch, 256)
    assert layer_cells(info, 5, 32768) == 32768  # a global layer
    assert layer_cells(info, 0, 32768, swa_full=True) == 32768
    assert layer_cells(info, 0, 512) == 512  # never more than the context
    kv = kv_cache_bytes(info, 32768, "f16", "f16", flash_attn=True, n_gpu_layers=49)
    per_cell = 8 * 256 * 2 * 2
    assert kv.gpu == (8 * 32768 + 40 * 1536) * per_cell  # 2528 MiB, as llama.cpp reported on the H200
    assert kv.gpu == 2528 * MIB


def test_sliding_window_with_several_sequences() -> None:
    info = shape_info("gemma-3-12b")
    # Not unified: each of 4 streams has pad(min(n_ctx_seq, window + n_ubatch), 256) cells.
    assert layer_cells(info, 0, 32768, n_seq_max=4) == 4 * 1536
    assert layer_cells(info, 5, 32768, n_seq_max=4) == 32768


def test_weights_split_with_tied_embeddings() -> None:
    info = shape_info("gemma-3-12b")
    all_on = weights_split(info, 49)
    assert all_on.gpu == sum(info.layer_bytes) + info.output_bytes
    assert info.output_bytes > info.token_embd_bytes  # the duplicated token_embd + output_norm
    only_output = weights_split(info, 1)
    assert only_output.gpu == info.output_bytes


def test_weights_split_moe_experts_on_cpu() -> None:
    info = shape_info("qwen3-30b-a3b")
    full = weights_split(info, 49)
    ten = weights_split(info, 49, n_cpu_moe=10)
    assert full.gpu - ten.gpu == sum(info.layer_expert_bytes[:10])


def test_flash_attention_shrinks_the_compute_buffer() -> None:
    info = shape_info("qwen2.5-14b")
    fa = estimate(info, Config(49, 32768, "f16", True), OPTS).breakdown.compute_buffers
    no_fa = estimate(info, Config(49, 32768, "f16", False), OPTS).breakdown.compute_buffers
    assert no_fa > 5 * fa  # the 40 x 32768 x 512 f32 KQ matrix


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
    assert line.startswith("Qwen2.5-14B (random weights) Q4_K_M · 49/49 layers GPU · KV ")
    assert "16K ctx" in line and "est. " in line and "of 12.0" in line
    data = json.loads(json.dumps(p.to_json()))
    assert data["predicted"]["total"] == p.predicted.total <= BUDGET
    assert data["n_layers_total"] == 49 and data["type_k"] == data["type_v"]
    assert isinstance(data["notes"], list)


# -- calibration ----------------------------------------------------------------------------------

LOG = """\
load_tensors: offloaded 49/49 layers to GPU
load_tensors:   CPU_Mapped model buffer size =   417.66 MiB
load_tensors:        CUDA0 model buffer size =  8148.38 MiB
llama_context:  CUDA_Host  output buffer size =     0.58 MiB
llama_kv_cache:      CUDA0 KV buffer size =  1728.00 MiB
sched_reserve:      CUDA0 compute buffer size =   307.00 MiB
sched_reserve:  CUDA_Host compute buffer size =    52.09 MiB
~llama_context:      CUDA0 compute buffer size is 307.0000 MiB, matches expectation of 307.0000 MiB
"""


def test_calibration_report() -> None:
    p = plan(shape_info("qwen2.5-14b"), BUDGET, 32768, options=OPTS)
    report = calibrate(p, LOG, measured_peak=10801 * MIB)
    assert report.reported_weights_gpu == round(8148.38 * MIB)
    assert report.reported_kv_gpu == 1728 * MIB == p.predicted.kv_cache
    assert report.reported_compute_gpu == 307 * MIB  # the destructor line is not counted twice
    assert report.measured_overhead == 10801 * MIB - report.reported_total  # type: ignore[operator]
    assert abs(report.error_fraction_of_budget) < 0.03  # type: ignore[arg-type]
    assert json.loads(json.dumps(report.to_json()))["error_bytes"] == report.error_bytes


def test_plan_with_probe_uses_llama_cpp_compute_size() -> None:
    info = shape_info("qwen2.5-14b")
    base = plan(info, BUDGET, 32768, options=OPTS)
    calls: list[Plan] = []

    def probe(p: Plan) -> int:
        calls.append(p)
        return p.predicted.compute_buffers + 700 * MIB

    probed = plan_with_probe(info, BUDGET, 32768, probe, options=OPTS)
    assert calls
    assert probed.predicted.total <= BUDGET
    assert probed.predicted.compute_buffers > base.predicted.compute_buffers


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

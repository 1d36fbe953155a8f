"""The planner's arithmetic against what llama.cpp itself reports, on the CPU.

Each test loads a tiny random model (or SmolLM2-135M) with llama-cpp-python, captures llama.cpp's
log lines (``... KV buffer size = N MiB``, ``... compute buffer size = N MiB``) and compares them
with the planner's prediction. The GPU tables (docs/gpu-planner-tables.md) do the same on CUDA.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from inference.llama_log import (
    DryRunConfig,
    capture_llama_logs,
    cpu_tensor_overrides,
    dry_run_buffers,
    expert_layers_pattern,
    parse_buffer_sizes,
)
from inference.planning.gguf_info import read_gguf_info
from inference.planning.kv_cache import kv_cache_bytes
from inference.planning.memory_model import COMPUTE_MARGIN_BYTES, compute_buffer_bytes

MIB = 1024 * 1024
TYPES = {"f16": 1, "q4_0": 2, "q8_0": 8}
LOG_ROUNDING = 0.006 * MIB  # llama.cpp prints MiB with two decimals

pytestmark = pytest.mark.usefixtures("llama_cpp_module")


def _load(path: Path, n_ctx: int, kv: str, flash_attn: bool) -> list[str]:
    from llama_cpp import Llama

    with capture_llama_logs() as cap:
        llm = Llama(
            str(path),
            n_gpu_layers=0,
            n_ctx=n_ctx,
            n_batch=512,
            n_ubatch=512,
            type_k=TYPES[kv],
            type_v=TYPES[kv],
            flash_attn=flash_attn,
            swa_full=False,
            n_threads=2,
            n_threads_batch=2,
            verbose=True,
        )
        llm.close()
    return cap.lines


CASES = [
    ("tiny-llama", 1000, "f16", False),
    ("tiny-llama", 4096, "q8_0", True),
    ("tiny-qwen2", 2048, "q4_0", True),
    ("tiny-gemma3", 8192, "f16", True),  # sliding window: 4 of 6 layers keep pad(256 + 512, 256) cells
    ("tiny-gemma3", 2048, "q8_0", True),
    ("tiny-qwen3moe", 4096, "f16", False),
]


@pytest.mark.parametrize(("shape", "n_ctx", "kv", "flash_attn"), CASES)
def test_kv_and_weights_match_llama_cpp(
    shape: str, n_ctx: int, kv: str, flash_attn: bool, tiny_gguf: Callable[[str], Path]
) -> None:
    path = tiny_gguf(shape)
    info = read_gguf_info(path)
    reported = parse_buffer_sizes(_load(path, n_ctx, kv, flash_attn))
    predicted_kv = kv_cache_bytes(info, n_ctx, kv, kv, flash_attn=flash_attn, n_gpu_layers=0)
    assert predicted_kv.gpu == 0
    assert abs(reported.kv["CPU"] - predicted_kv.cpu) <= LOG_ROUNDING
    # The mapped model buffer is the file's tensor data.
    assert abs(reported.model["CPU_Mapped"] - info.weights_bytes) <= 64 * 1024 + LOG_ROUNDING


@pytest.mark.parametrize(("shape", "n_ctx", "kv", "flash_attn"), CASES)
def test_compute_buffer_model_matches_llama_cpp(
    shape: str, n_ctx: int, kv: str, flash_attn: bool, tiny_gguf: Callable[[str], Path]
) -> None:
    path = tiny_gguf(shape)
    info = read_gguf_info(path)
    reported = parse_buffer_sizes(_load(path, n_ctx, kv, flash_attn)).compute["CPU"]
    # On the CPU the whole graph runs on one backend, like a fully offloaded GPU graph.
    modelled = compute_buffer_bytes(info, n_ctx, flash_attn=flash_attn, n_gpu_layers=info.n_layers + 1)
    assert modelled >= reported  # never under-estimated
    # Over by at most the margin plus the conservative long-context mask term (n_kv x n_ubatch x 6).
    n_kv = (n_ctx + 255) // 256 * 256
    assert modelled - reported <= COMPUTE_MARGIN_BYTES + n_kv * 512 * 6 + 4 * MIB


def test_smollm2_against_llama_cpp(smollm2_path: Path) -> None:
    info = read_gguf_info(smollm2_path)
    for n_ctx, kv, fa in ((2048, "f16", True), (8192, "f16", False)):
        reported = parse_buffer_sizes(_load(smollm2_path, n_ctx, kv, fa))
        assert (
            abs(reported.kv["CPU"] - kv_cache_bytes(info, n_ctx, kv, kv, flash_attn=fa, n_gpu_layers=0).cpu)
            <= LOG_ROUNDING
        )
        modelled = compute_buffer_bytes(info, n_ctx, flash_attn=fa, n_gpu_layers=31)
        assert reported.compute["CPU"] <= modelled <= reported.compute["CPU"] + COMPUTE_MARGIN_BYTES + 8 * MIB


def test_dry_run_reports_the_same_compute_buffer(tiny_gguf: Callable[[str], Path]) -> None:
    path = tiny_gguf("tiny-qwen2")
    real = parse_buffer_sizes(_load(path, 2048, "f16", False))
    dry = dry_run_buffers(str(path), DryRunConfig(n_gpu_layers=0, n_ctx=2048, type_k=1, type_v=1, flash_attn=False))
    assert dry.compute["CPU"] == real.compute["CPU"]
    assert dry.kv.get("CPU", 0) == 0  # a dry run allocates (and reports) no KV cache


def test_several_sequences_kv_matches_llama_cpp(tiny_gguf: Callable[[str], Path]) -> None:
    import llama_cpp

    path = tiny_gguf("tiny-gemma3")
    info = read_gguf_info(path)
    llama_cpp.llama_backend_init()
    mparams = llama_cpp.llama_model_default_params()
    mparams.n_gpu_layers = 0
    with capture_llama_logs() as cap:
        model = llama_cpp.llama_model_load_from_file(str(path).encode(), mparams)
        assert model
        cparams = llama_cpp.llama_context_default_params()
        cparams.n_ctx = 4000
        cparams.n_seq_max = 4
        cparams.kv_unified = False
        cparams.swa_full = False
        cparams.flash_attn_type = 1
        cparams.n_threads = cparams.n_threads_batch = 2
        ctx = llama_cpp.llama_init_from_model(model, cparams)
        assert ctx
        llama_cpp.llama_free(ctx)
        llama_cpp.llama_model_free(model)
    reported = parse_buffer_sizes(cap.lines).kv["CPU"]
    predicted = kv_cache_bytes(info, 4000, "f16", "f16", flash_attn=True, n_gpu_layers=0, n_seq_max=4).cpu
    assert abs(reported - predicted) <= 2 * LOG_ROUNDING


def test_moe_experts_can_be_kept_on_the_cpu(tiny_gguf: Callable[[str], Path]) -> None:
    """tensor_buft_overrides, built by hand, are accepted by llama-cpp-python 0.3.36's C API."""
    import llama_cpp

    path = tiny_gguf("tiny-qwen3moe")
    overrides = cpu_tensor_overrides([expert_layers_pattern(range(2))])
    llama_cpp.llama_backend_init()
    mparams = llama_cpp.llama_model_default_params()
    mparams.n_gpu_layers = 99
    mparams.tensor_buft_overrides = overrides.pointer
    with capture_llama_logs():
        model = llama_cpp.llama_model_load_from_file(str(path).encode(), mparams)
    assert model, "llama.cpp refused the tensor overrides"
    llama_cpp.llama_model_free(model)
    assert overrides.patterns == [rb"^blk\.(0|1)\.ffn_(up|down|gate|gate_up)_(ch|)exps"]


def test_probe_makes_the_compute_prediction_llama_cpps(tiny_gguf: Callable[[str], Path]) -> None:
    """plan_with_probe + a dry run in a child process: the plan carries llama.cpp's own figure.

    (On this CPU-only build the dry run reports the CPU graph; on a GPU build, the GPU's.)
    """
    from inference.planning.calibration import llama_cpp_probe, plan_with_probe
    from inference.planning.policy import plan

    path = tiny_gguf("tiny-qwen2")
    info = read_gguf_info(path)
    probe = llama_cpp_probe(str(path))
    base = plan(info, 1024 * MIB, 4096)
    reported = probe(base)
    dry = dry_run_buffers(str(path), DryRunConfig(n_gpu_layers=base.n_gpu_layers, n_ctx=4096, flash_attn=True))
    assert reported == dry.compute["CPU"]
    probed = plan_with_probe(info, 1024 * MIB, 4096, probe)
    assert probed.predicted.compute_buffers == reported
    assert probed.predicted.total == base.predicted.total - base.predicted.compute_buffers + reported


def test_dry_run_with_experts_on_the_cpu(tiny_gguf: Callable[[str], Path]) -> None:
    path = str(tiny_gguf("tiny-qwen3moe"))
    plain = dry_run_buffers(path, DryRunConfig(n_gpu_layers=3, n_ctx=2048, flash_attn=True))
    moe = dry_run_buffers(path, DryRunConfig(n_gpu_layers=3, n_ctx=2048, flash_attn=True, n_cpu_moe=2))
    assert moe.compute["CPU"] > 0 and plain.compute["CPU"] > 0

"""GPU memory of one load configuration, part by part: what the planner compares with its budget.

Predicted GPU memory = weights of the offloaded layers + their KV cache + llama.cpp's compute
buffers + a CUDA overhead constant. ``inference.planning.kv_cache`` holds the exact arithmetic of the
first two; this module models the compute buffers (``compute_buffer_bytes``), adds the overhead
and sums them for one ``Config`` (``estimate``). ``inference.planning.policy`` chooses among them.
"""

from __future__ import annotations

from dataclasses import dataclass

from inference.planning.gguf_info import GgufInfo
from inference.planning.kv_cache import effective_n_ctx, kv_cache_bytes, pad, weights_split
from inference.planning.plan import MIB, KvType, MemoryBreakdown

# CUDA context, cuBLAS handles and ggml-cuda's memory pool, on top of llama.cpp's own buffers:
# measured peak (NVML, device used minus used before the process started) minus the model, KV
# and compute buffers llama.cpp reported. H200, driver 580, llama-cpp-python 0.3.36 built with
# CUDA 13 (docs/gpu-planner-tables.md, scripts/gpu_planner_bench.py): 613-620 MiB with flash
# attention on dense models, 713-722 MiB without it (cuBLAS attention matmuls use ggml-cuda's
# pool), 705-708 MiB for the MoE shape (mul_mat_id scratch). Constants are rounded up.
CUDA_OVERHEAD_BYTES = 624 * MIB
NO_FLASH_ATTN_EXTRA_BYTES = 104 * MIB
MOE_EXTRA_BYTES = 96 * MIB
# The compute-buffer model is within +10/-28 MiB of llama.cpp's reports on the measured shapes;
# this margin keeps the prediction on the safe side.
COMPUTE_MARGIN_BYTES = 32 * MIB


@dataclass(frozen=True, slots=True)
class PlannerOptions:
    """How configurations are priced (``estimate`` reads the micro-batch, overhead and correction)
    and searched (``inference.planning.policy`` reads the rest)."""

    n_batch: int = 512
    n_ubatch: int = 512
    cuda_overhead: int = CUDA_OVERHEAD_BYTES
    cpu_moe: bool = True  # MoE: keep some layers' experts on the CPU rather than dropping layers
    ram_bytes: int | None = None  # host memory available; None = read from the OS
    # Extra compute bytes found by a dry run (see plan_with_probe); added to the model's estimate.
    compute_correction: int = 0


def compute_buffer_bytes(
    info: GgufInfo,
    n_ctx: int,
    *,
    flash_attn: bool,
    n_gpu_layers: int,
    n_ubatch: int = 512,
    n_seq_max: int = 1,
    swa_full: bool = False,
    n_cpu_moe: int = 0,
    offloaded_ops: bool = False,
) -> int:
    """llama.cpp's GPU compute buffer for the worst-case (prompt) graph, modelled.

    With 0 GPU layers the buffer is 0 on a CPU-only build; on a GPU build (``offloaded_ops``)
    llama.cpp still runs the prompt's large operations on the GPU, weights streamed from host
    memory, and reserves the same buffer as with every layer offloaded (measured on the H200:
    Qwen2.5-14B and -32B at 128K without flash attention, 0 layers: 11759 MiB of GPU memory).

    The graph llama.cpp reserves has ``n_ubatch`` tokens, ``n_ubatch`` outputs and attends over
    the whole cache; ggml-alloc reuses memory, so the buffer is the largest of a few phases
    (checked against llama.cpp's dry-run reports, tests/inference/planning/test_planner_llama.py):

    * output: logits ``n_vocab × n_ubatch`` f32 plus two hidden-state tensors;
    * attention without flash attention: the KQ scores ``n_head × n_kv × n_ubatch`` f32, the mask
      ``n_kv × n_ubatch`` f32 and the Q/K/V activations; with flash attention only the mask
      (f16) and a few hidden states;
    * FFN: gate, up and their product (``n_ff × n_ubatch`` f32 each), or the routed experts'.

    Partial offload does not change the GPU compute buffer measurably (measured on the H200:
    Qwen2.5-14B at 38/49 and 49/49 layers both report 307 MiB at 32K): CPU-resident weights
    used by offloaded prompt ops are streamed through ggml-cuda's pool, counted in the overhead.
    A constant ``COMPUTE_MARGIN_BYTES`` is added.
    """
    if n_gpu_layers == 0 and not offloaded_ops:
        return 0
    ub = n_ubatch
    n_kv, _, _ = effective_n_ctx(n_ctx, n_seq_max)
    f32 = 4
    n_head = max(info.n_head)
    q_dim = n_head * info.head_dim_k
    kv_dim = max(info.n_embd_k_gqa(il) for il in range(info.n_layers))
    out_phase = (info.n_vocab + 2 * info.n_embd) * ub * f32
    if flash_attn:
        attn_phase = n_kv * ub * 2 + 9 * info.n_embd * ub * f32
    else:
        attn_phase = (n_head * n_kv + n_kv + 4 * info.n_embd + q_dim + 2 * kv_dim) * ub * f32
    # Long contexts: llama.cpp's reports grow faster than the tensors above (H200, 128K:
    # Qwen2.5-7B +108 MiB, Llama-3.1-8B +400 MiB, Gemma-3-12B +660 MiB over the 32K buffer with
    # flash attention; without it Gemma-3-12B +750 MiB over the KQ estimate). Empirical,
    # conservative: the f32 and f16 masks plus two f16 K/V-sized copies (flash attention), or
    # the copies on top of the KQ scores (without).
    kv_copies = 4 * n_kv * kv_dim
    attn_phase = max(attn_phase, n_kv * ub * 6 + kv_copies) if flash_attn else attn_phase + kv_copies
    if not flash_attn and 0 < n_gpu_layers <= info.n_layers:
        # Partial offload: the f32 mask is copied from the CPU into the GPU's split inputs
        # (measured: Qwen2.5-14B, 30/49 layers, 32K, no flash attention).
        attn_phase += n_kv * ub * f32
    if info.has_swa and not swa_full:
        n_kv_swa = min(n_kv, pad(info.sliding_window + ub, 256))
        attn_phase += n_kv_swa * ub * (2 if flash_attn else f32)
    if info.is_moe:
        n_ff_exp = _expert_ff(info)
        ffn_phase = (3 * n_ff_exp * max(info.n_expert_used, 1) + info.n_expert + 4 * info.n_embd) * ub * f32
    else:
        ffn_phase = (3 * info.n_ff + 2 * info.n_embd) * ub * f32
    return max(out_phase, attn_phase, ffn_phase) + COMPUTE_MARGIN_BYTES


def _expert_ff(info: GgufInfo) -> int:
    for t in info.tensors:
        if t.name.endswith("ffn_up_exps.weight") and len(t.shape) >= 2:
            return t.shape[1]
    return info.n_ff


@dataclass(frozen=True, slots=True)
class Config:
    n_gpu_layers: int
    n_ctx: int
    kv: KvType
    flash_attn: bool
    n_seq_max: int = 1
    n_cpu_moe: int = 0
    gpu_ops: bool = False  # a GPU build with 0 layers offloaded: the GPU still runs prompt ops


@dataclass(frozen=True, slots=True)
class Estimate:
    config: Config
    breakdown: MemoryBreakdown
    weights_cpu: int
    kv_cpu: int

    @property
    def total(self) -> int:
        return self.breakdown.total


def estimate(info: GgufInfo, config: Config, options: PlannerOptions = PlannerOptions()) -> Estimate:
    """Predicted GPU (and host) memory of one configuration."""
    w = weights_split(info, config.n_gpu_layers, config.n_cpu_moe)
    kv = kv_cache_bytes(
        info,
        config.n_ctx,
        config.kv,
        config.kv,
        flash_attn=config.flash_attn,
        n_gpu_layers=config.n_gpu_layers,
        n_seq_max=config.n_seq_max,
        n_ubatch=options.n_ubatch,
    )
    on_gpu = config.n_gpu_layers != 0 or config.gpu_ops
    compute = compute_buffer_bytes(
        info,
        config.n_ctx,
        flash_attn=config.flash_attn,
        n_gpu_layers=config.n_gpu_layers,
        n_ubatch=options.n_ubatch,
        n_seq_max=config.n_seq_max,
        n_cpu_moe=config.n_cpu_moe,
        offloaded_ops=config.gpu_ops,
    )
    if on_gpu:
        compute += options.compute_correction
    breakdown = MemoryBreakdown(
        weights_gpu=w.gpu,
        kv_cache=kv.gpu,
        compute_buffers=compute,
        cuda_overhead=cuda_overhead(info, config.flash_attn, options) if on_gpu else 0,
    )
    return Estimate(config=config, breakdown=breakdown, weights_cpu=w.cpu, kv_cpu=kv.cpu)


def cuda_overhead(info: GgufInfo, flash_attn: bool, options: PlannerOptions = PlannerOptions()) -> int:
    """GPU memory beyond llama.cpp's buffers (see the constants at the top)."""
    extra = 0 if flash_attn else NO_FLASH_ATTN_EXTRA_BYTES
    if info.is_moe:
        extra += MOE_EXTRA_BYTES
    return options.cuda_overhead + extra

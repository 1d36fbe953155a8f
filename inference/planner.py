"""The VRAM planner: how to load a GGUF model into a memory budget.

Predicted GPU memory = weights of the offloaded layers + their KV cache + llama.cpp's compute
buffers + a CUDA overhead constant (see ``inference.kv_cache`` for the exact arithmetic of the
first two and ``compute_buffer_bytes`` for the third).

Policy, in this order (the issue's rules):

1. all layers (and the output layer) on the GPU if at all possible;
2. to get there, give up KV precision first: f16, then q8_0, then q4_0 (K and V the same type;
   quantized V needs flash attention, which the GPU plans always use);
3. then offload fewer layers (the most that fit), with the cheapest KV type;
4. shrink the context last, and say so in the notes.

The predicted total never exceeds the budget. User overrides win, and are checked against the
budget (``PlanError`` with what would fit). On the CPU (no GPU, or a budget of 0) the KV cache
stays f16: quantized KV slows llama.cpp's CPU attention a lot (see shared/device/README.md),
so it is only used when memory demands it.

MoE models: llama.cpp can keep expert tensors in CPU memory (``tensor_buft_overrides``, what
``--n-cpu-moe`` does). llama-cpp-python 0.3.36 does not expose it in ``Llama``, but the C struct
can be built by hand (``inference.llama_log.cpu_tensor_overrides``; the worker applies
``Plan.n_cpu_moe`` that way). The planner uses it by default for MoE models that do not fit
(``PlannerOptions.cpu_moe=False`` turns it off): on the H200, Qwen3-30B-A3B at 8K decodes at
75 tok/s with all layers on the GPU and 20 layers' experts on the CPU, 50 tok/s with 30/49 layers.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from inference.errors import PlanError
from inference.gguf_info import CHECKED_ARCHITECTURES, GgufInfo
from inference.kv_cache import effective_n_ctx, kv_cache_bytes, pad, weights_split
from inference.plan import GIB, MIB, KvType, MemoryBreakdown, Plan

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
# Kept free of the device's free VRAM when the budget is automatic: other programs (a desktop
# compositor, a browser) allocate more over time, and NVML's figure moves by tens of MiB.
AUTO_BUDGET_RESERVE_BYTES = 768 * MIB
KV_TYPES: tuple[KvType, ...] = ("f16", "q8_0", "q4_0")
MOE_KV_TRADE = 2  # expert layers moved to the CPU to keep a more precise KV type (MoE only)
DEFAULT_CTX = 16384
MIN_CTX = 2048


def parse_budget(text: str | int | float) -> int:
    """``"12GiB"``, ``"11.5 GiB"``, ``"900MiB"``, ``"12G"`` (= GiB), ``"12GB"`` (= 10^9) → bytes."""
    if isinstance(text, int | float):
        return int(text)
    m = re.fullmatch(r"\s*([\d.]+)\s*([KMGT]?)(i?)(B?)\s*", text, flags=re.IGNORECASE)
    if not m or m.group(1).count(".") > 1:
        raise PlanError(f"Cannot read the memory budget '{text}'. Write it like 12GiB or 900MiB.")
    value = float(m.group(1))
    unit = m.group(2).upper()
    decimal = m.group(4) and not m.group(3)  # "GB" means 10^9, "GiB"/"G" mean 2^30
    exp = {"": 0, "K": 1, "M": 2, "G": 3, "T": 4}[unit]
    if unit == "":
        return int(value)
    return int(value * (1000 if decimal else 1024) ** exp)


def format_bytes(n: int) -> str:
    if n >= GIB:
        return f"{n / GIB:.1f} GiB"
    return f"{n / MIB:.0f} MiB"


def auto_budget(reserve: int = AUTO_BUDGET_RESERVE_BYTES, device_index: int = 0) -> int | None:
    """Free VRAM of the first NVIDIA GPU minus ``reserve``; ``None`` without NVML or a GPU."""
    try:
        import pynvml
    except ImportError:
        return None
    try:
        pynvml.nvmlInit()
    except Exception:  # NVMLError and friends: no driver, no GPU
        return None
    try:
        handle = pynvml.nvmlDeviceGetHandleByIndex(device_index)
        free = int(pynvml.nvmlDeviceGetMemoryInfo(handle).free)
    except Exception:
        return None
    finally:
        with contextlib.suppress(Exception):
            pynvml.nvmlShutdown()
    return max(0, free - reserve)


@dataclass(frozen=True, slots=True)
class Overrides:
    """What the user fixed; ``None`` = the planner chooses."""

    n_gpu_layers: int | None = None
    kv_type: KvType | None = None
    flash_attn: bool | None = None
    n_ctx: int | None = None
    n_seq_max: int | None = None


@dataclass(frozen=True, slots=True)
class PlannerOptions:
    n_batch: int = 512
    n_ubatch: int = 512
    cuda_overhead: int = CUDA_OVERHEAD_BYTES
    cpu_moe: bool = True  # MoE: keep some layers' experts on the CPU rather than dropping layers
    ram_bytes: int | None = None  # host memory available; None = read from the OS
    # Extra compute bytes found by a dry run (see plan_with_probe); added to the model's estimate.
    compute_correction: int = 0


# -- compute buffers ------------------------------------------------------------------------


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
    (checked against llama.cpp's dry-run reports, tests/inference/test_planner_llama.py):

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


# -- evaluation of one configuration ---------------------------------------------------------


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


# -- the policy --------------------------------------------------------------------------------


def _host_ram() -> int | None:
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return None


def plan(
    info: GgufInfo,
    budget: int | None,
    want_ctx: int | None = None,
    overrides: Overrides = Overrides(),
    options: PlannerOptions = PlannerOptions(),
) -> Plan:
    """Choose how to load ``info`` into ``budget`` bytes of GPU memory (``None``/0: CPU only)."""
    notes: list[str] = []
    if info.architecture not in CHECKED_ARCHITECTURES:
        notes.append(
            f"architecture '{info.architecture}' is planned with the generic formulas; "
            "check the calibration after loading"
        )
    n_seq = overrides.n_seq_max or 1
    ctx = overrides.n_ctx or want_ctx or min(DEFAULT_CTX, info.n_ctx_train or DEFAULT_CTX)
    if ctx < 1:
        raise PlanError("The context length must be at least 1 token.")
    if info.n_ctx_train and ctx > info.n_ctx_train * n_seq and overrides.n_ctx is None:
        notes.append(f"context capped at the model's trained length {info.n_ctx_train}")
        ctx = info.n_ctx_train * n_seq
    ctx = max(ctx, n_seq * 256) if n_seq > 1 else ctx

    full = info.n_layers + 1
    gpu = bool(budget) and budget is not None and budget > 0

    if overrides.kv_type is not None and overrides.kv_type != "f16" and overrides.flash_attn is False:
        raise PlanError(
            f"A {overrides.kv_type} KV cache needs flash attention (llama.cpp cannot quantize V without it). "
            "Drop --no-flash-attn or use --kv f16."
        )

    if not gpu:
        if overrides.n_gpu_layers:
            raise PlanError(
                f"{overrides.n_gpu_layers} GPU layers were asked for, but there is no GPU budget "
                "(no NVIDIA GPU found, or --budget 0). Pass --budget, or drop --gpu-layers."
            )
        return _cpu_plan(info, ctx, overrides, options, notes, n_seq)

    assert budget is not None
    if overrides.n_gpu_layers is not None and overrides.n_gpu_layers > full:
        raise PlanError(
            f"The model has {info.n_layers} layers (+1 output layer): "
            f"--gpu-layers {overrides.n_gpu_layers} is too many; use at most {full}."
        )
    flash = True if overrides.flash_attn is None else overrides.flash_attn
    kv_choices: tuple[KvType, ...]
    if overrides.kv_type is not None:
        kv_choices = (overrides.kv_type,)
    elif not flash:
        kv_choices = ("f16",)
    else:
        kv_choices = KV_TYPES

    def fits(cfg: Config) -> Estimate | None:
        e = estimate(info, cfg, options)
        return e if e.total <= budget else None

    def best_at(ctx_now: int) -> Estimate | None:
        if overrides.n_gpu_layers is not None:
            gpu_ops = overrides.n_gpu_layers == 0  # a GPU budget means a GPU build: see Config.gpu_ops
            for kv in kv_choices:
                e = fits(Config(overrides.n_gpu_layers, ctx_now, kv, flash, n_seq, gpu_ops=gpu_ops))
                if e:
                    return e
            return None
        # 1+2: everything on the GPU, giving up KV precision first.
        for kv in kv_choices:
            e = fits(Config(full, ctx_now, kv, flash, n_seq))
            if e:
                return e
        cheapest = kv_choices[-1]
        # MoE: all layers on the GPU with the experts of the first k layers in CPU memory.
        if info.is_moe and options.cpu_moe:
            for k in range(1, info.n_layers + 1):
                e = fits(Config(full, ctx_now, cheapest, flash, n_seq, n_cpu_moe=k))
                if e:
                    # A quantized KV type costs MoE decoding more than an expert layer or two on
                    # the CPU (H200, Qwen3-30B-A3B at 8K: q8_0 75 tok/s, q4_0 65 tok/s, both
                    # with 20 layers' experts on the CPU): allow up to MOE_KV_TRADE more.
                    for kv in kv_choices:
                        for k2 in range(k, min(k + MOE_KV_TRADE, info.n_layers) + 1):
                            better = fits(Config(full, ctx_now, kv, flash, n_seq, n_cpu_moe=k2))
                            if better:
                                return better
                    return e
        # 3: the most layers that fit, with the cheapest KV type...
        for g in range(info.n_layers, 0, -1):
            e = fits(Config(g, ctx_now, cheapest, flash, n_seq))
            if e:
                return most_precise(e)
        return None

    def most_precise(e: Estimate) -> Estimate:
        # ...then the most precise KV type that keeps that many layers (measured on the H200:
        # Qwen3-30B-A3B decodes at 75 tok/s with q8_0 and 65 with q4_0 at the same placement).
        for kv in kv_choices:
            better = fits(dataclasses.replace(e.config, kv=kv))
            if better:
                return better
        return e

    chosen = best_at(ctx)
    if chosen is None and overrides.n_ctx is None:
        # 4: shrink the context last.
        smaller = ctx
        while chosen is None and smaller > MIN_CTX:
            smaller = max(MIN_CTX, smaller // 2)
            chosen = best_at(smaller)
        if chosen is not None:
            notes.append(f"context shrunk from {ctx} to {smaller} tokens to fit the budget")
    if chosen is None:
        raise PlanError(_no_fit_message(info, budget, ctx, overrides, options, flash, kv_choices, n_seq))

    cfg = chosen.config
    if cfg.n_gpu_layers < full and cfg.n_cpu_moe == 0:
        notes.append(f"{full - cfg.n_gpu_layers} of {full} layers stay on the CPU: decoding will be slower")
    if cfg.n_cpu_moe:
        notes.append(f"MoE experts of the first {cfg.n_cpu_moe} layers stay in CPU memory (tensor overrides)")
    if overrides.kv_type is None and cfg.kv != "f16":
        notes.append(f"KV cache quantized to {cfg.kv} to keep more on the GPU")
    if info.has_swa:
        notes.append(
            f"sliding-window cache ({info.sliding_window} tokens) on {sum(info.swa_layers)} of {info.n_layers} layers"
        )
    _check_ram(chosen, options, notes, info)
    return _make_plan(info, chosen, budget, options, notes)


def _cpu_plan(
    info: GgufInfo, ctx: int, overrides: Overrides, options: PlannerOptions, notes: list[str], n_seq: int
) -> Plan:
    flash = True if overrides.flash_attn is None else overrides.flash_attn
    ram = options.ram_bytes if options.ram_bytes is not None else _host_ram()
    kv_order: tuple[KvType, ...] = (
        (overrides.kv_type,) if overrides.kv_type else (("f16", "q8_0", "q4_0") if flash else ("f16",))
    )
    chosen: Estimate | None = None
    for kv in kv_order:
        e = estimate(info, Config(0, ctx, kv, flash, n_seq), options)
        if ram is None or e.weights_cpu + e.kv_cpu + _cpu_compute(info, ctx, flash, options) <= ram:
            chosen = e
            break
    if chosen is None:
        need = estimate(info, Config(0, ctx, kv_order[-1], flash, n_seq), options)
        raise PlanError(
            f"{info.display_name} does not fit in memory even without a GPU: it needs about "
            f"{format_bytes(need.weights_cpu + need.kv_cpu)} and {format_bytes(ram or 0)} is available. "
            "Close other programs, choose a smaller context (--ctx), or a smaller model."
        )
    notes.append("CPU only: no GPU budget")
    if chosen.config.kv != "f16":
        notes.append(f"KV cache quantized to {chosen.config.kv} to fit in RAM (slower on the CPU)")
    return _make_plan(info, chosen, 0, options, notes)


def _cpu_compute(info: GgufInfo, ctx: int, flash: bool, options: PlannerOptions) -> int:
    return compute_buffer_bytes(info, ctx, flash_attn=flash, n_gpu_layers=info.n_layers + 1, n_ubatch=options.n_ubatch)


def _check_ram(e: Estimate, options: PlannerOptions, notes: list[str], info: GgufInfo) -> None:
    ram = options.ram_bytes if options.ram_bytes is not None else _host_ram()
    host = e.weights_cpu + e.kv_cpu
    if ram is not None and e.config.n_gpu_layers <= info.n_layers and host > ram:
        raise PlanError(
            f"{info.display_name}: the part that stays on the CPU needs {format_bytes(host)} of RAM but only "
            f"{format_bytes(ram)} is free. Close other programs, use a smaller context (--ctx) or a smaller model."
        )


def _no_fit_message(
    info: GgufInfo,
    budget: int,
    ctx: int,
    overrides: Overrides,
    options: PlannerOptions,
    flash: bool,
    kv_choices: tuple[KvType, ...],
    n_seq: int,
) -> str:
    g = overrides.n_gpu_layers if overrides.n_gpu_layers is not None else 1
    e = estimate(info, Config(g, overrides.n_ctx or ctx, kv_choices[-1], flash, n_seq), options)
    asked = []
    if overrides.n_gpu_layers is not None:
        asked.append(f"{overrides.n_gpu_layers} GPU layers")
    if overrides.kv_type is not None:
        asked.append(f"KV {overrides.kv_type}")
    if overrides.n_ctx is not None:
        asked.append(f"{overrides.n_ctx} tokens of context")
    what = ", ".join(asked) if asked else f"{g} GPU layer(s)"
    return (
        f"{info.display_name} does not fit in the {format_bytes(budget)} budget with {what}: that needs about "
        f"{format_bytes(e.total)}. Lower --gpu-layers or --ctx, use --kv q4_0, or raise --budget."
    )


def _make_plan(info: GgufInfo, e: Estimate, budget: int | None, options: PlannerOptions, notes: list[str]) -> Plan:
    cfg = e.config
    n_ctx_eff, _, _ = effective_n_ctx(cfg.n_ctx, cfg.n_seq_max)
    return Plan(
        model_path=info.path,
        n_gpu_layers=cfg.n_gpu_layers,
        n_ctx=n_ctx_eff,
        type_k=cfg.kv,
        type_v=cfg.kv,
        flash_attn=cfg.flash_attn,
        n_batch=min(options.n_batch, n_ctx_eff),
        n_ubatch=min(options.n_ubatch, options.n_batch, n_ctx_eff),
        n_seq_max=cfg.n_seq_max,
        swa_full=False,
        budget_bytes=budget,
        predicted=e.breakdown,
        notes=tuple(notes),
        **_extra_fields(info, e),
    )


def _extra_fields(info: GgufInfo, e: Estimate) -> dict[str, Any]:
    names = {f.name for f in dataclasses.fields(Plan)}
    extra: dict[str, Any] = {
        "model_name": info.display_name,
        "model_quant": info.quant_label,
        "n_layers_total": info.n_layers + 1,
        "n_cpu_moe": e.config.n_cpu_moe,
        "predicted_host_bytes": e.weights_cpu + e.kv_cpu,
    }
    return {k: v for k, v in extra.items() if k in names}


def summary_line(p: Plan) -> str:
    """``Qwen2.5-14B Q4_K_M · 49/49 layers GPU · KV q8_0 · 16K ctx · est. 11.3 GiB``"""
    total_layers = getattr(p, "n_layers_total", 0) or p.n_gpu_layers
    name = getattr(p, "model_name", "") or os.path.basename(p.model_path)
    quant = getattr(p, "model_quant", "")
    parts = [f"{name} {quant}".strip()]
    if p.n_gpu_layers == 0:
        parts.append("CPU only")
    else:
        parts.append(f"{p.n_gpu_layers}/{total_layers} layers GPU")
    n_cpu_moe = getattr(p, "n_cpu_moe", 0)
    if n_cpu_moe:
        parts.append(f"experts of {n_cpu_moe} layers on CPU")
    kv = f"KV {p.type_k}" + (" + flash attn" if p.flash_attn else "")
    parts.append(kv)
    parts.append(f"{p.n_ctx // 1024}K ctx" if p.n_ctx % 1024 == 0 else f"{p.n_ctx} ctx")
    if p.n_seq_max > 1:
        parts.append(f"batches of {p.n_seq_max}" + (f" (KV {p.batch_kv_type})" if p.batch_kv_type else ""))
    if p.n_gpu_layers:
        est = f"est. {p.predicted.total / GIB:.1f} GiB"
        if p.predicted_batch_bytes:
            est += f" (+{p.predicted_batch_bytes / GIB:.1f} while batching)"
        if p.budget_bytes:
            est += f" of {p.budget_bytes / GIB:.1f}"
        parts.append(est)
    return " · ".join(parts)


# -- calibration -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CalibrationReport:
    """Prediction vs what llama.cpp reported (its buffer log lines) and what NVML measured."""

    predicted: MemoryBreakdown
    reported_weights_gpu: int | None = None
    reported_kv_gpu: int | None = None
    reported_compute_gpu: int | None = None
    measured_peak: int | None = None  # NVML: peak used minus used before loading
    budget: int | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def reported_total(self) -> int | None:
        parts = (self.reported_weights_gpu, self.reported_kv_gpu, self.reported_compute_gpu)
        if any(p is None for p in parts):
            return None
        return sum(p for p in parts if p is not None)

    @property
    def measured_overhead(self) -> int | None:
        """Measured peak minus llama.cpp's buffers: the CUDA context, cuBLAS and pool."""
        if self.measured_peak is None or self.reported_total is None:
            return None
        return self.measured_peak - self.reported_total

    @property
    def error_bytes(self) -> int | None:
        """Predicted total minus measured peak (positive: over-estimate, the safe side)."""
        if self.measured_peak is None:
            return None
        return self.predicted.total - self.measured_peak

    @property
    def error_fraction_of_budget(self) -> float | None:
        err = self.error_bytes
        if err is None or not self.budget:
            return None
        return err / self.budget

    def to_json(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["predicted"]["total"] = self.predicted.total
        d["reported_total"] = self.reported_total
        d["measured_overhead"] = self.measured_overhead
        d["error_bytes"] = self.error_bytes
        d["error_fraction_of_budget"] = self.error_fraction_of_budget
        d["notes"] = list(self.notes)
        return d


def calibrate(p: Plan, log_lines: list[str] | str, measured_peak: int | None = None) -> CalibrationReport:
    """Compare a plan with llama.cpp's log of the load (``inference.llama_log``) and NVML's peak."""
    from inference.llama_log import parse_buffer_sizes

    reported = parse_buffer_sizes(log_lines)
    notes: list[str] = []
    if not reported.model:
        notes.append("no buffer sizes in the log: was the model loaded with verbose logging?")
    return CalibrationReport(
        predicted=p.predicted,
        reported_weights_gpu=reported.gpu_model if reported.model else None,
        reported_kv_gpu=reported.gpu_kv if reported.kv else None,
        reported_compute_gpu=reported.gpu_compute if reported.compute else None,
        measured_peak=measured_peak,
        budget=p.budget_bytes,
        notes=tuple(notes),
    )


def plan_with_probe(
    info: GgufInfo,
    budget: int | None,
    want_ctx: int | None,
    probe: Callable[[Plan], int],
    overrides: Overrides = Overrides(),
    options: PlannerOptions = PlannerOptions(),
    rounds: int = 3,
) -> Plan:
    """Plan, then ask llama.cpp (``probe``: a dry run returning its GPU compute buffer bytes)
    and re-plan with the difference until the model's compute estimate is not below it."""
    correction = options.compute_correction
    seen: list[int] = [correction]
    p = plan(info, budget, want_ctx, overrides, options)
    for _ in range(rounds):
        if p.n_gpu_layers == 0:
            return p
        reported = probe(p)
        delta = reported - (p.predicted.compute_buffers - correction)
        if abs(delta - correction) <= MIB:
            return p
        correction = delta
        seen.append(delta)
        p = plan(info, budget, want_ctx, overrides, dataclasses.replace(options, compute_correction=correction))
    # Not converged (the configurations alternate): plan with the largest correction seen.
    return plan(info, budget, want_ctx, overrides, dataclasses.replace(options, compute_correction=max(seen)))


def llama_cpp_probe(model_path: str) -> Callable[[Plan], int]:
    """A ``plan_with_probe`` probe: llama.cpp's own GPU compute buffer for a plan (a dry run in a
    child process, see ``inference.llama_log.dry_run_in_subprocess``)."""
    from inference.llama_log import DryRunConfig, dry_run_in_subprocess
    from inference.plan import GGML_TYPE_IDS

    def probe(p: Plan) -> int:
        config = DryRunConfig(
            n_gpu_layers=p.n_gpu_layers,
            n_ctx=p.n_ctx,
            type_k=GGML_TYPE_IDS[p.type_k],
            type_v=GGML_TYPE_IDS[p.type_v],
            flash_attn=p.flash_attn,
            n_batch=p.n_batch,
            n_ubatch=p.n_ubatch,
            n_seq_max=p.n_seq_max,
            swa_full=p.swa_full,
            kv_unified=False,
            n_cpu_moe=p.n_cpu_moe,
        )
        reported = dry_run_in_subprocess(model_path, config)
        # The model covers the GPU's compute buffer; a build without GPU reports the CPU's.
        return reported.gpu_compute if reported.gpu_compute else reported.cpu_compute

    return probe

"""The planner's policy: how to load a GGUF model into a GPU memory budget.

Each configuration tried is priced by ``inference.planning.memory_model.estimate`` (weights, KV cache,
compute buffers and CUDA overhead on the GPU); this module chooses the GPU layers, KV type,
flash attention and context, and writes the ``Plan`` (``inference.planning.plan``) with notes on what it
gave up. The budget comes from ``inference.planning.gpu_budget``; ``inference.planning.calibration`` checks a
plan against llama.cpp afterwards.

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

import dataclasses
import os
from dataclasses import dataclass
from typing import Any

from inference.errors import PlanError
from inference.planning.gguf_info import CHECKED_ARCHITECTURES, GgufInfo
from inference.planning.gpu_budget import format_bytes
from inference.planning.kv_cache import effective_n_ctx
from inference.planning.memory_model import Config, Estimate, PlannerOptions, compute_buffer_bytes, estimate
from inference.planning.plan import KvType, Plan

KV_TYPES: tuple[KvType, ...] = ("f16", "q8_0", "q4_0")
MOE_KV_TRADE = 2  # expert layers moved to the CPU to keep a more precise KV type (MoE only)
DEFAULT_CTX = 16384
MIN_CTX = 2048


@dataclass(frozen=True, slots=True)
class Overrides:
    """What the user fixed; ``None`` = the planner chooses."""

    n_gpu_layers: int | None = None
    kv_type: KvType | None = None
    flash_attn: bool | None = None
    n_ctx: int | None = None
    n_seq_max: int | None = None


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

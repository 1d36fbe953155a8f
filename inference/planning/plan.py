"""The Plan: how a model is loaded (the planner's output, the engine's input).

This module holds the value types and their one-line summary; ``inference.planning.policy``
computes them.
"""

from __future__ import annotations

import os
import re
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

KvType = Literal["f16", "q8_0", "q4_0"]

# GGML type ids as llama.cpp expects them in type_k / type_v.
GGML_TYPE_IDS: dict[str, int] = {"f16": 1, "q4_0": 2, "q8_0": 8}

GIB = 1024**3
MIB = 1024**2


@dataclass(frozen=True, slots=True)
class MemoryBreakdown:
    """Predicted GPU memory in bytes."""

    weights_gpu: int = 0
    kv_cache: int = 0
    compute_buffers: int = 0
    cuda_overhead: int = 0

    @property
    def total(self) -> int:
        return self.weights_gpu + self.kv_cache + self.compute_buffers + self.cuda_overhead


@dataclass(frozen=True, slots=True)
class Plan:
    """Everything needed to load a GGUF model, and what the planner predicted for it."""

    model_path: str
    n_gpu_layers: int
    n_ctx: int
    type_k: KvType = "f16"
    type_v: KvType = "f16"
    flash_attn: bool = False
    n_batch: int = 512
    n_ubatch: int = 512
    n_seq_max: int = 1
    swa_full: bool = False
    n_threads: int | None = None
    budget_bytes: int | None = None
    predicted: MemoryBreakdown = field(default_factory=MemoryBreakdown)
    notes: tuple[str, ...] = ()
    # Added by the planner (inference.planning.policy); readers may ignore them.
    model_name: str = ""
    model_quant: str = ""
    n_layers_total: int = 0  # repeating layers + the output layer (llama.cpp's n_gpu_layers maximum)
    n_cpu_moe: int = 0  # MoE: experts of layers [0, n_cpu_moe) kept in CPU memory (tensor_buft_overrides)
    predicted_host_bytes: int = 0  # weights and KV cache left in CPU memory
    # generate_batch's own context (n_seq_max > 1): its KV type (None: type_k), the GPU bytes its
    # KV cache and compute buffer add to ``predicted`` while a batch runs, and the tokens per
    # sequence they were planned for (a segment summary's need, usually less than n_ctx).
    batch_kv_type: KvType | None = None
    predicted_batch_bytes: int = 0
    batch_n_ctx: int = 0  # tokens per batch sequence the batch context is planned for (0: n_ctx)
    batch_n_ubatch: int = 0  # the batch context's n_batch and n_ubatch (0: n_ubatch): larger = faster prefill
    batch_mixed: bool = False  # one unified KV cache; decode tokens ride in prefill steps (batch_decode)

    @property
    def batch_kv(self) -> KvType:
        """The KV type of ``generate_batch``'s context."""
        return self.batch_kv_type or self.type_k

    @property
    def threads(self) -> int:
        """``n_threads``, or half the logical CPUs (one per core on SMT machines)."""
        return self.n_threads or max(1, (os.cpu_count() or 2) // 2)

    def llama_kwargs(self) -> dict[str, Any]:
        """The keyword arguments of ``llama_cpp.Llama`` that load the model as planned
        (MoE tensor overrides aside: the worker adds those)."""
        return {
            "model_path": self.model_path,
            "n_gpu_layers": self.n_gpu_layers,
            "n_ctx": self.n_ctx,
            "n_batch": self.n_batch,
            "n_ubatch": self.n_ubatch,
            "n_threads": self.threads,
            "n_threads_batch": self.threads,
            "type_k": GGML_TYPE_IDS[self.type_k],
            "type_v": GGML_TYPE_IDS[self.type_v],
            "flash_attn": self.flash_attn,
            "swa_full": self.swa_full,
        }

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["predicted"]["total"] = self.predicted.total
        data["notes"] = list(self.notes)
        return data


# Words of a file name that say nothing about which model it holds ("ggml-model-q4_0.gguf").
_GENERIC_WORDS = frozenset({"model", "ggml", "gguf", "llama", "f16", "f32", "bf16"})


def model_label(p: Plan) -> str:
    """The model as the user chose it: the file's stem (``Qwen2.5-7B-Instruct-Q4_K_M``), with
    the quantization when the stem does not say it. A GGUF's own ``general.name`` is often
    misleading (random-weight and community files carry their base model's or a training run's
    name), so it is added only to a stem that names no model (``ggml-model-q4_0 (Qwen2.5 7B)``)."""
    stem = os.path.basename(p.model_path).removesuffix(".gguf")
    if not stem:
        return f"{p.model_name} {p.model_quant}".strip()
    quant = p.model_quant
    label = stem if not quant or quant.lower() in stem.lower() else f"{stem} {quant}"
    rest = stem.lower().replace(quant.lower(), " ") if quant else stem.lower()
    words = {word for word in re.split(r"[^a-z0-9.]+", rest) if re.search("[a-z]", word)}
    if p.model_name and p.model_name != stem and not words - _GENERIC_WORDS:
        label += f" ({p.model_name})"
    return label


def summary_line(p: Plan) -> str:
    """``Qwen2.5-14B-Instruct-Q4_K_M · 49/49 layers GPU · KV q8_0 · 16K ctx · est. 11.3 GiB``"""
    parts = [model_label(p)]
    if p.n_gpu_layers == 0:
        parts.append("CPU only")
    else:
        parts.append(f"{p.n_gpu_layers}/{p.n_layers_total or p.n_gpu_layers} layers GPU")
    if p.n_cpu_moe:
        parts.append(f"experts of {p.n_cpu_moe} layers on CPU")
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

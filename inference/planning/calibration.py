"""Calibration: a plan's prediction against what llama.cpp reported and NVML measured, and
planning again with llama.cpp's own compute-buffer size (a dry run) when the model is off."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from inference.planning.gguf_info import GgufInfo
from inference.planning.memory_model import PlannerOptions
from inference.planning.plan import MIB, MemoryBreakdown, Plan
from inference.planning.policy import Overrides, plan


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
    from inference.planning.plan import GGML_TYPE_IDS

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

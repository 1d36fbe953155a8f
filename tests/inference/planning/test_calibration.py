"""Calibration against llama.cpp's log and a dry-run probe (no llama.cpp needed)."""

from __future__ import annotations

import json

from inference.planning.calibration import calibrate, plan_with_probe
from inference.planning.memory_model import PlannerOptions
from inference.planning.plan import GIB, MIB, Plan
from inference.planning.policy import plan
from scripts.random_gguf import shape_info

BUDGET = 12 * GIB
RAM = 64 * GIB  # the tests must not depend on this machine's free memory
OPTS = PlannerOptions(ram_bytes=RAM)


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

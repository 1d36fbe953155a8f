"""The GPU memory a plan may use: a budget the user wrote (``parse_budget``), or, when none was
given, the free VRAM (``auto_budget``) and why there may be none (``default_budget``).

Every path that plans (the window, `pagewise plan`, `ask`, `summarize`, `review`, `bench`)
asks here, so that a machine with an NVIDIA GPU but a CPU-only llama.cpp build is planned for
the CPU everywhere, with the same note. ``gpu_unavailable_notice`` says why a CUDA build runs
on the CPU (no NVIDIA driver), for the window, the self-test and `pagewise plan` to show.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
from collections.abc import Callable

from inference.errors import PlanError
from inference.planning.plan import GIB, MIB

NO_GPU = "no NVIDIA GPU: the model runs on the CPU"
CPU_BUILD = (
    "an NVIDIA GPU is present but this llama.cpp was built without GPU support: planning for the CPU. "
    "Reinstall llama-cpp-python with CUDA (see `pagewise doctor`)"
)
# Set by the CUDA build's startup hook (installers/rthooks/pyi_rth_pagewise_cuda.py) when the
# NVIDIA driver cannot be loaded, to a sentence naming the driver the build needs.
GPU_UNAVAILABLE_ENV = "PAGEWISE_GPU_UNAVAILABLE"
# Kept free of the device's free VRAM when the budget is automatic: other programs (a desktop
# compositor, a browser) allocate more over time, and NVML's figure moves by tens of MiB.
AUTO_BUDGET_RESERVE_BYTES = 768 * MIB


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


@functools.cache
def llama_gpu_build() -> bool | None:
    """Whether the installed llama.cpp can offload to a GPU; ``None`` when it is not installed.
    (Asked once per process: the window re-plans on every status refresh.)"""
    try:
        import llama_cpp
    except ImportError:
        return None
    return bool(llama_cpp.llama_supports_gpu_offload())


def default_budget() -> tuple[int | None, str]:
    """(bytes, note): the free VRAM minus the planner's reserve, or ``None`` (plan for the CPU)
    with the reason."""
    budget = auto_budget()
    if budget is None:
        return None, NO_GPU
    if llama_gpu_build() is False:
        return None, CPU_BUILD
    return budget, ""


def usable_budget(
    text: str | None, free_vram: Callable[[], tuple[int | None, str]] | None = None
) -> tuple[int | None, str]:
    """(bytes or None for the CPU, why the CPU) for a budget about to load a model: ``auto`` or
    None is ``default_budget``; a budget typed in counts only where a GPU can be used (without
    one the plan is the CPU's, never GPU layers that cannot load). ``pagewise plan --budget``
    plans for any budget (what would load there), so it parses the text itself. ``free_vram``:
    ``default_budget`` unless given (the settings dialog's tests give a GPU)."""
    free_vram = free_vram or default_budget
    if text is None or text == "auto":
        return free_vram()
    budget = parse_budget(text)
    if budget == 0:
        return 0, ""
    free, note = free_vram()
    if free is None and note:
        return None, f"{note}; the VRAM budget {text} is not used"
    return budget, ""


def gpu_unavailable_notice() -> str | None:
    """Why this build's GPU support cannot be used, so models run on the CPU (e.g. "no NVIDIA
    driver found; this build needs driver 580 (CUDA 13) or newer"); None when nothing says so
    (a CPU build, or the driver loaded)."""
    return os.environ.get(GPU_UNAVAILABLE_ENV, "").strip() or None

"""The GPU memory a plan may use when the user gave no budget, and why it may be none.

Every path that plans (the window, `pagewise plan`, `ask`, `summarize`, `review`, `bench`)
asks here, so that a machine with an NVIDIA GPU but a CPU-only llama.cpp build is planned for
the CPU everywhere, with the same note.
"""

from __future__ import annotations

import functools

NO_GPU = "no NVIDIA GPU: the model runs on the CPU"
CPU_BUILD = (
    "an NVIDIA GPU is present but this llama.cpp was built without GPU support: planning for the CPU. "
    "Reinstall llama-cpp-python with CUDA (see `pagewise doctor`)"
)


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
    from inference.planner import auto_budget

    budget = auto_budget()
    if budget is None:
        return None, NO_GPU
    if llama_gpu_build() is False:
        return None, CPU_BUILD
    return budget, ""

"""From settings to a load plan, and why a configuration cannot be loaded (no Qt here).

The settings dialog calls ``preview`` on every change (live plan line); loading the model
uses the same function, so what the dialog promised is what gets loaded.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from inference.errors import PagewiseError
from inference.planning.plan import Plan


@dataclass(frozen=True, slots=True)
class PlanPreview:
    plan: Plan | None
    summary: str
    """One line for the status bar and the dialog."""
    problem: str = ""
    """Why these settings cannot be loaded ("" when they can)."""
    remote_url: str = ""
    note: str = ""
    """Why the plan is for the CPU ("no NVIDIA GPU..."), for the settings dialog: the status
    bar has its own GPU label, so the summary leaves it out."""

    @property
    def ok(self) -> bool:
        return not self.problem


@lru_cache(maxsize=8)
def _gguf_info(path: str, mtime: float) -> Any:
    from inference.planning.gguf_info import read_gguf_info

    return read_gguf_info(path)


def gguf_info(path: str) -> Any:
    return _gguf_info(path, os.path.getmtime(path))


def default_free_vram() -> tuple[int | None, str]:
    from inference.planning.gpu_budget import default_budget

    return default_budget()


# The planner words its advice for the CLI; the window names its settings instead.
_CLI_WORDS = (
    ("--gpu-layers", "GPU layers"),
    ("--ctx", "the context size"),
    ("--kv q4_0", "KV cache type q4_0"),
    ("--kv f16", "KV cache type f16"),
    ("--kv", "KV cache type"),
    ("--budget", "the VRAM budget"),
    ("--no-flash-attn", "turning flash attention off"),
)


def in_settings_words(message: str) -> str:
    for flag, words in _CLI_WORDS:
        message = message.replace(flag, words)
    return message


def preview(
    values: Mapping[str, Any], free_vram: Callable[[], tuple[int | None, str]] = default_free_vram
) -> PlanPreview:
    """The plan these settings give, or the reason they cannot be loaded."""
    remote = str(values.get("remote_url", "") or "").strip()
    if remote:
        return PlanPreview(None, f"Remote model at {remote}", remote_url=remote)
    model = str(values.get("model_path", "") or "").strip()
    if not model:
        return PlanPreview(None, "No model configured", "Choose a GGUF model file, or download a recommended one.")
    from inference.planning.gpu_budget import usable_budget
    from inference.planning.plan import summary_line
    from inference.planning.policy import Overrides
    from summarizer.llm.local_model import plan_model

    try:
        info = gguf_info(os.path.expanduser(model))
        budget, note = usable_budget(str(values.get("vram_budget", "auto")), free_vram)
        layers = str(values.get("gpu_layers", "auto"))
        kv = str(values.get("kv_type", "auto"))
        ctx = int(values.get("context_size", 0) or 0)
        overrides = Overrides(
            n_gpu_layers=None if layers == "auto" else int(layers),
            kv_type=None if kv == "auto" else kv,  # type: ignore[arg-type]
            n_ctx=ctx or None,
        )
        # The window's one model answers and summarizes: `pagewise ask` plans the same way.
        chosen = plan_model(info, budget, None, overrides=overrides).plan
    except PagewiseError as error:
        return PlanPreview(None, "Cannot load with these settings", in_settings_words(str(error)))
    except (OSError, ValueError) as error:
        return PlanPreview(None, "Cannot load with these settings", f"{model}: {error}")
    from inference.planning.gpu_budget import NO_GPU

    summary = summary_line(chosen)
    if note and not note.startswith(NO_GPU):  # "no NVIDIA GPU" has its own label in the status bar
        summary += f" ({note})"
    return PlanPreview(chosen, summary, note=note)

"""The window and every command plan alike: one function from settings to plan.

Side by side on one configuration: the window's preview, `pagewise plan --json`, and what
`ask`/`summarize` plan before loading (``planned_model``), including a machine with an NVIDIA
GPU but a CPU-only llama.cpp (the GPU is simulated: NVML reports 8 GiB free).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest

import inference.planning.gpu_budget
from app.cli import main
from app.commands._model_args import planned_model
from app.services.load_planning import preview
from summarizer.library.storage.store import Library

KEYS = ("n_gpu_layers", "n_ctx", "type_k", "flash_attn", "n_ubatch", "n_seq_max", "batch_n_ctx")


def _cli_plan(capsys: pytest.CaptureFixture[str], model: Path, *extra: str) -> dict[str, Any]:
    assert main(["plan", "--model", str(model), "--json", *extra]) == 0
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    return data


def _command_plan(model: Path, budget: str | None, *, summaries_only: bool) -> dict[str, Any]:
    args = argparse.Namespace(model=str(model), remote=None, ctx=None, threads=None, budget=budget,
                              segment_tokens=None)  # fmt: skip
    with Library.open() as library:
        chosen, parallel, _ = planned_model(args, library, batch=True, summaries_only=summaries_only)
    return {**chosen.to_json(), "parallel": parallel}


def _same(*plans: dict[str, Any]) -> None:
    first = {k: plans[0][k] for k in KEYS}
    for other in plans[1:]:
        assert {k: other[k] for k in KEYS} == first


def a_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    """An NVIDIA GPU with 8 GiB free and a llama.cpp built for it (simulated)."""
    monkeypatch.setattr(inference.planning.gpu_budget, "auto_budget", lambda *a, **k: 8 * 1024**3)
    monkeypatch.setattr(inference.planning.gpu_budget, "llama_gpu_build", lambda: True)


@pytest.mark.parametrize("budget", ["4GiB", "0"])
def test_window_plan_ask_and_summarize_plan_alike(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], smollm2_path: Path, budget: str
) -> None:
    a_gpu(monkeypatch)
    window = preview({"model_path": str(smollm2_path), "vram_budget": budget})
    assert window.plan is not None
    window_json = {**window.plan.to_json(), "parallel": window.plan.n_seq_max}
    answer = _cli_plan(capsys, smollm2_path, "--budget", budget)
    _same(window_json, answer, _command_plan(smollm2_path, budget, summaries_only=False))
    summary = _cli_plan(capsys, smollm2_path, "--budget", budget, "--job", "summary")
    _same(summary, _command_plan(smollm2_path, budget, summaries_only=True))
    assert answer["parallel"] == window.plan.n_seq_max == (1 if budget == "0" else answer["parallel"])


def test_a_gpu_with_a_cpu_only_llama_cpp_is_planned_for_the_cpu_everywhere(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], smollm2_path: Path
) -> None:
    monkeypatch.setattr(inference.planning.gpu_budget, "auto_budget", lambda *a, **k: 8 * 1024**3)
    monkeypatch.setattr(inference.planning.gpu_budget, "llama_gpu_build", lambda: False)
    window = preview({"model_path": str(smollm2_path), "vram_budget": "auto"})
    assert window.plan is not None and window.plan.n_gpu_layers == 0 and window.plan.n_seq_max == 1
    assert "built without GPU support" in window.summary
    answer = _cli_plan(capsys, smollm2_path)
    assert answer["budget_source"] == "cpu-build"
    ask = _command_plan(smollm2_path, None, summaries_only=False)
    summarize = _command_plan(smollm2_path, None, summaries_only=True)
    assert answer["n_gpu_layers"] == ask["n_gpu_layers"] == summarize["n_gpu_layers"] == 0
    assert ask["parallel"] == summarize["parallel"] == 1
    # With a GPU build the same machine plans layers on the GPU, in the window and the commands.
    monkeypatch.setattr(inference.planning.gpu_budget, "llama_gpu_build", lambda: True)
    window = preview({"model_path": str(smollm2_path), "vram_budget": "auto"})
    assert window.plan is not None and window.plan.n_gpu_layers > 0
    _same({**window.plan.to_json()}, {**_command_plan(smollm2_path, None, summaries_only=False)})


def test_a_budget_typed_in_without_a_gpu_plans_for_the_cpu(monkeypatch: pytest.MonkeyPatch, smollm2_path: Path) -> None:
    """Issue 24: "2GiB" on a machine without a GPU gave "31/31 layers GPU … of 2.00 GiB"."""
    monkeypatch.setattr(inference.planning.gpu_budget, "auto_budget", lambda *a, **k: None)
    window = preview({"model_path": str(smollm2_path), "vram_budget": "2GiB"})
    assert window.plan is not None and window.plan.n_gpu_layers == 0
    assert "CPU only" in window.summary and "no NVIDIA GPU" not in window.summary  # the status bar says it
    assert "the VRAM budget 2GiB is not used" in window.note
    ask = _command_plan(smollm2_path, "2GiB", summaries_only=False)
    assert ask["n_gpu_layers"] == 0

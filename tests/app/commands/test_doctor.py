"""``pagewise doctor``: the report and its advice, with and without a (fake) GPU."""

from __future__ import annotations

import argparse
import json
import sys
import types
from pathlib import Path

import pytest

from app.commands import doctor
from app.services.output import run_command

GIB = 1024**3


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command")
    doctor.register(sub)
    code = run_command(parser.parse_args(["doctor", *argv]))
    return code, capsys.readouterr().out


def _fake_pynvml(total: int = 12 * GIB, used: int = 1 * GIB) -> types.ModuleType:
    module = types.ModuleType("pynvml")
    module.nvmlInit = lambda: None  # type: ignore[attr-defined]
    module.nvmlShutdown = lambda: None  # type: ignore[attr-defined]
    module.nvmlDeviceGetCount = lambda: 1  # type: ignore[attr-defined]
    module.nvmlDeviceGetHandleByIndex = lambda i: "h"  # type: ignore[attr-defined]
    module.nvmlDeviceGetName = lambda h: "NVIDIA GeForce RTX 3060"  # type: ignore[attr-defined]
    module.nvmlDeviceGetMemoryInfo = lambda h: types.SimpleNamespace(  # type: ignore[attr-defined]
        total=total, used=used, free=total - used
    )
    module.nvmlDeviceGetUtilizationRates = lambda h: types.SimpleNamespace(gpu=0, memory=0)  # type: ignore[attr-defined]
    module.nvmlDeviceGetComputeRunningProcesses = lambda h: []  # type: ignore[attr-defined]
    module.nvmlSystemGetDriverVersion = lambda: "550.54.14"  # type: ignore[attr-defined]
    module.nvmlSystemGetCudaDriverVersion = lambda: 12040  # type: ignore[attr-defined]
    return module


def test_json_report_without_gpu(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, pagewise_home: Path
) -> None:
    monkeypatch.setitem(sys.modules, "pynvml", None)  # not installed
    models = pagewise_home / "models"
    models.mkdir(parents=True)
    (models / "broken.gguf").write_bytes(b"not a model")
    code, out = _run(capsys, "--json")
    report = json.loads(out)
    assert report["gpu"]["available"] is False
    assert report["llama_cpp"]["installed"] is True
    assert report["models_dir"] == str(models)
    assert report["models"][0]["ok"] is False
    problems = " ".join(p["problem"] + " " + p["fix"] for p in report["problems"])
    assert "nvidia-ml-py" in problems
    assert "broken.gguf" in problems
    assert code == (0 if report["ok"] else 1)


def test_gpu_with_cpu_only_llama_is_an_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "pynvml", _fake_pynvml())
    monkeypatch.setattr(
        doctor,
        "check_llama_cpp",
        lambda: {
            "installed": True,
            "version": "0.3.36",
            "gpu_offload": False,
            "cuda": False,
            "system_info": "",
            "build": {"record": None, "problems": [], "cpu_floor_problem": None},
        },
    )
    code, out = _run(capsys, "--json")
    report = json.loads(out)
    assert code == 1 and report["ok"] is False
    assert report["gpu"]["name"] == "NVIDIA GeForce RTX 3060"
    assert report["tier_gb"] == 12
    assert report["recommended"] and all(e["tier_gb"] == 12 for e in report["recommended"])
    errors = [p for p in report["problems"] if p["severity"] == "error"]
    gpu_error = next(p for p in errors if "without GPU support" in p["problem"])
    assert "install_llama_cpp.sh" in gpu_error["fix"] and gpu_error["fix"].endswith(" cuda")


def test_text_report(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pynvml", None)
    _, out = _run(capsys)
    assert "llama.cpp" in out and "GPU" in out and "Models" in out
    assert "→" in out  # each problem says what to do

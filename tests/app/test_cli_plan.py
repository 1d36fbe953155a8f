"""``pagewise plan``: the JSON contract, the readable line, and errors with a next step."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.cli import main
from scripts.random_gguf import write_random_gguf


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_random_gguf("tiny-qwen2", tmp_path_factory.mktemp("plan") / "tiny.gguf")


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, object]]:
    code = main([*argv, "--json"])
    (line,) = [ln for ln in capsys.readouterr().out.splitlines() if ln.strip()]
    return code, json.loads(line)


def test_plan_json(capsys: pytest.CaptureFixture[str], tiny_model: Path) -> None:
    code, data = run_json(capsys, "plan", "--model", str(tiny_model), "--budget", "1GiB", "--ctx", "2048")
    assert code == 0
    assert {
        "model_path",
        "n_gpu_layers",
        "n_ctx",
        "type_k",
        "type_v",
        "flash_attn",
        "n_batch",
        "n_ubatch",
        "n_seq_max",
        "swa_full",
        "budget_bytes",
        "predicted",
        "notes",
        "summary",
        "budget_source",
        "model",
        "n_layers_total",
        "n_cpu_moe",
        "predicted_host_bytes",
    } <= set(data)
    assert data["n_gpu_layers"] == data["n_layers_total"] == 4
    assert data["budget_bytes"] == 1024**3 and data["budget_source"] == "given"
    predicted = data["predicted"]
    assert isinstance(predicted, dict) and predicted["total"] <= 1024**3
    assert set(predicted) >= {"weights_gpu", "kv_cache", "compute_buffers", "cuda_overhead", "total"}
    assert data["model"]["architecture"] == "qwen2"  # type: ignore[index]


def test_plan_overrides_and_cpu(capsys: pytest.CaptureFixture[str], tiny_model: Path) -> None:
    code, data = run_json(
        capsys, "plan", "--model", str(tiny_model), "--budget", "1GiB", "--kv", "q8_0", "--gpu-layers", "2"
    )
    assert code == 0 and data["n_gpu_layers"] == 2 and data["type_k"] == "q8_0" and data["flash_attn"] is True
    code, data = run_json(capsys, "plan", "--model", str(tiny_model), "--budget", "0")
    assert code == 0 and data["n_gpu_layers"] == 0 and "CPU only" in str(data["summary"])


def test_plan_readable(capsys: pytest.CaptureFixture[str], tiny_model: Path) -> None:
    assert main(["plan", "--model", str(tiny_model), "--budget", "1GiB"]) == 0
    out = capsys.readouterr().out
    assert "4/4 layers GPU" in out and "predicted GPU memory" in out


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["--budget", "lots"], "12GiB"),
        (["--budget", "100MiB"], "does not fit"),
        (["--kv", "q4_0", "--no-flash-attn", "--budget", "1GiB"], "flash attention"),
        (["--gpu-layers", "9", "--budget", "1GiB"], "at most 4"),
    ],
)
def test_plan_errors(capsys: pytest.CaptureFixture[str], tiny_model: Path, argv: list[str], needle: str) -> None:
    code, data = run_json(capsys, "plan", "--model", str(tiny_model), *argv)
    assert code == 1 and needle in str(data["error"])


def test_plan_bad_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bad = tmp_path / "model.gguf"
    bad.write_text("not a model")
    code, data = run_json(capsys, "plan", "--model", str(bad))
    assert code == 1 and "model.gguf" in str(data["error"]) and "GGUF" in str(data["error"])
    assert main(["plan", "--model", str(tmp_path / "missing.gguf")]) == 1
    assert "missing.gguf" in capsys.readouterr().err


def test_plan_probe_without_gpu_build_says_so(capsys: pytest.CaptureFixture[str], tiny_model: Path) -> None:
    llama_cpp = pytest.importorskip("llama_cpp")
    if llama_cpp.llama_supports_gpu_offload():
        pytest.skip("this llama.cpp has GPU support")
    code, data = run_json(capsys, "plan", "--model", str(tiny_model), "--budget", "1GiB", "--probe")
    assert code == 0 and data["probed"] is False
    assert any("GPU support" in n for n in data["notes"])  # type: ignore[union-attr]


def test_plan_says_when_the_gpu_is_unavailable(
    capsys: pytest.CaptureFixture[str], tiny_model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    notice = "no NVIDIA driver found; this build needs driver 580 (CUDA 13) or newer"
    argv = ["plan", "--model", str(tiny_model), "--budget", "0"]
    monkeypatch.delenv("PAGEWISE_GPU_UNAVAILABLE", raising=False)
    code, data = run_json(capsys, *argv)
    assert code == 0 and "gpu_notice" in data and data["gpu_notice"] is None
    assert main(argv) == 0
    assert "GPU unavailable" not in capsys.readouterr().out

    monkeypatch.setenv("PAGEWISE_GPU_UNAVAILABLE", notice)
    code, data = run_json(capsys, *argv)
    assert code == 0 and data["gpu_notice"] == notice
    assert main(argv) == 0
    assert f"  GPU unavailable: {notice}; models run on the CPU\n" in capsys.readouterr().out

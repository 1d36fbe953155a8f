"""``pagewise bench`` on SmolLM2 (CPU)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from app.commands import bench
from app.services.output import run_command


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command")
    bench.register(sub)
    code = run_command(parser.parse_args(["bench", *argv]))
    return code, capsys.readouterr().out


@pytest.mark.slow
def test_bench_json(capsys: pytest.CaptureFixture[str], smollm2_path: Path) -> None:
    code, out = _run(
        capsys,
        "--model", str(smollm2_path), "--ctx", "2048", "--threads", "2",
        "--prompt-tokens", "96", "--gen-tokens", "8", "--json",
    )  # fmt: skip
    assert code == 0, out
    result = json.loads(out)
    assert result["backend"] == "CPU"
    assert result["plan"]["n_gpu_layers"] == 0 and result["plan"]["n_ctx"] == 2048
    assert result["prompt_tokens"] > 48
    assert 1 <= result["completion_tokens"] <= 8
    assert result["prefill_tok_s"] > 0 and result["ttft_s"] > 0
    assert result["measured_peak_gpu_bytes"] is None  # no GPU here
    assert result["raw_decode_tok_s"] is None


def test_bench_missing_model_is_one_line_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out = _run(capsys, "--model", str(tmp_path / "nope.gguf"), "--json")
    assert code != 0
    assert "not found" in json.loads(out)["error"]


def test_bench_prompt_longer_than_context(capsys: pytest.CaptureFixture[str], smollm2_path: Path) -> None:
    code, out = _run(capsys, "--model", str(smollm2_path), "--ctx", "512", "--prompt-tokens", "600", "--json")
    assert code != 0 and "--ctx" in json.loads(out)["error"]


@pytest.mark.slow
def test_bench_compare_raw_runs_llama_cpp_in_its_own_process(
    capsys: pytest.CaptureFixture[str], smollm2_path: Path
) -> None:
    code, out = _run(
        capsys,
        "--model", str(smollm2_path), "--ctx", "1024", "--threads", "2",
        "--prompt-tokens", "64", "--gen-tokens", "16", "--rounds", "2", "--compare-raw", "--json",
    )  # fmt: skip
    assert code == 0, out
    result = json.loads(out)
    assert result["raw_error"] is None
    assert len(result["raw_decode_tok_s_rounds"]) == 2 and len(result["decode_tok_s_rounds"]) == 2
    assert result["raw_decode_tok_s"] > 0
    # Both speeds are reported rounded: their ratio matches engine_vs_raw within that rounding.
    assert result["engine_vs_raw"] == pytest.approx(result["decode_tok_s"] / result["raw_decode_tok_s"], rel=0.01)


def test_raw_measurement_reports_a_crashed_process(tmp_path: Path) -> None:
    from inference.planning.plan import Plan

    bad = tmp_path / "not-a-model.gguf"
    bad.write_bytes(b"GGUF" + b"\0" * 64)
    result = bench._raw_decode_rate(Plan(model_path=str(bad), n_gpu_layers=0, n_ctx=256, n_threads=1), "hi", 4, 1)
    assert "decode_tok_s" not in result and result["error"]

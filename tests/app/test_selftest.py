"""``pagewise --selftest``, run as users and the installers run it: in a process of its own."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


# The self-test with Windows' rule on files (tests/windows_files.py): its temporary library could
# not be deleted on Windows while a connection held it (issue 54), and exited 1 after passing.
WINDOWS_FILE_RULES = (
    "import sys; from tests.windows_files import WindowsFileLocks; WindowsFileLocks().install(); "
    "from app.cli import main; sys.exit(main())"
)


def run_selftest(tmp_path: Path, *, windows_files: bool = False, **env: str) -> subprocess.CompletedProcess[str]:
    environ = dict(os.environ, QT_QPA_PLATFORM="offscreen", **env)
    start = ["-c", WINDOWS_FILE_RULES] if windows_files else ["-m", "app.cli"]
    return subprocess.run(
        [sys.executable, *start, "--selftest"],
        cwd=ROOT, env=environ, capture_output=True, text=True, timeout=540,
    )  # fmt: skip


@pytest.mark.slow
def test_selftest_embeds_searches_and_generates(tmp_path: Path) -> None:
    # Its output through a pipe in cp1252, as a frozen app on Windows gets it: the search line's
    # "→" is written in UTF-8 all the same (test_cli_encoding.py has the quick checks). Its folder
    # is deleted as Windows would delete it: with none of its files open.
    result = run_selftest(tmp_path, windows_files=True, PYTHONIOENCODING="cp1252")
    out = result.stdout
    assert result.returncode == 0, out + result.stderr
    assert "WinError 32" not in result.stderr  # its temporary library was deleted
    for step in (
        "[ok] embedding model on disk",
        "[ok] sample PDF added and embedded by the ingest process",
        "[ok] hybrid search (BM25 + vectors + the clause ranker) in the LLM thread",
        "[ok] OCR reads a drawn page (RapidOCR's bundled models, ONNX Runtime, PDFium)",
        "[ok] inference worker generates tokens",
    ):
        assert step in out
    assert "backend: CPU" in out or "backend: CUDA" in out
    assert out.rstrip().endswith("selftest passed")


def test_selftest_fails_and_says_so_without_the_embedding_model(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-model"
    result = run_selftest(tmp_path, PAGEWISE_EMBEDDING_MODEL=str(missing))
    assert result.returncode == 1
    assert f"[FAIL] embedding model on disk: The embedding model {missing} is not on this computer" in result.stdout
    assert "selftest passed" not in result.stdout


@pytest.mark.parametrize("notice", ["no NVIDIA driver found; this build needs driver 580 (CUDA 13) or newer", ""])
def test_selftest_says_when_the_gpu_is_unavailable(tmp_path: Path, notice: str) -> None:
    """The CUDA build without a driver runs on the CPU, as expected: the self-test says why
    (first, so it is said even when a later step fails; here the embedding model is missing)."""
    result = run_selftest(
        tmp_path, PAGEWISE_EMBEDDING_MODEL=str(tmp_path / "no-such-model"), PAGEWISE_GPU_UNAVAILABLE=notice
    )
    line = f"GPU unavailable: {notice}; models run on the CPU (the expected fallback)"
    assert (line in result.stdout.splitlines()) == bool(notice), result.stdout
    assert ("GPU unavailable" in result.stdout) == bool(notice)

"""The command line writes UTF-8 to a pipe, whatever encoding its environment asks for.

A frozen app on Windows ignores ``PYTHONUTF8`` and encodes a redirected stdout in the ANSI code
page; ``PYTHONIOENCODING=cp1252`` gives a Python on Linux the same streams (issue 54: the
self-test's and doctor's ``→`` raised ``UnicodeEncodeError`` with the output redirected).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ARROW = "→"  # not in cp1252


def run_cli(*argv: str, **env: str) -> subprocess.CompletedProcess[bytes]:
    environ = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONIOENCODING="cp1252", **env)
    environ.pop("PYTHONUTF8", None)
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *argv], cwd=ROOT, env=environ, capture_output=True, timeout=300
    )  # stdout and stderr are pipes


def test_doctor_prints_its_advice_through_a_pipe(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / "models").mkdir(parents=True)
    (home / "models" / "broken.gguf").write_bytes(b"not a model")  # a problem, so a "→ fix" line
    result = run_cli("doctor", PAGEWISE_HOME=str(home))
    out, err = result.stdout.decode("utf-8"), result.stderr.decode("utf-8")
    assert "UnicodeEncodeError" not in err, err
    assert f"\n  {ARROW} " in out, out + err
    assert result.returncode in (0, 1)


def test_doctor_json_through_a_pipe_is_utf8(tmp_path: Path) -> None:
    home = tmp_path / f"dossier {ARROW} données"
    (home / "models").mkdir(parents=True)
    result = run_cli("doctor", "--json", PAGEWISE_HOME=str(home))
    report = json.loads(result.stdout.decode("utf-8"))
    assert report["models_dir"] == str(home / "models"), result.stderr.decode("utf-8")


def test_selftest_lines_through_a_pipe(tmp_path: Path) -> None:
    """Its first failure is enough to print a line holding ``→`` (the model's folder)."""
    missing = tmp_path / f"no {ARROW} model"
    result = run_cli("--selftest", PAGEWISE_EMBEDDING_MODEL=str(missing))
    out, err = result.stdout.decode("utf-8"), result.stderr.decode("utf-8")
    assert "Traceback" not in err, err
    assert f"[FAIL] embedding model on disk: The embedding model {missing} is not on this computer" in out
    assert "selftest passed" not in out
    assert result.returncode == 1

"""`python -m scripts.screenshots`: one tool, a scene per picture (the scenes themselves need Xvfb and
are run by hand: scripts/README.md)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from scripts.screenshots import SCENES
from scripts.screenshots import __main__ as screenshots

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "scripts" / "screenshots"


def test_every_module_of_the_package_is_a_scene_with_a_run() -> None:
    modules = {p.stem for p in PACKAGE.glob("*.py")} - {"__init__", "__main__"}
    assert modules == set(SCENES.values())
    for name in SCENES:
        module = screenshots.scene_module(name)
        assert callable(module.run), name
        assert screenshots.summary(module), f"{name} says nothing of what it shows"
    assert not sorted((ROOT / "scripts").glob("screenshot_*.py")), "a screenshot script outside the tool"


def test_list_names_each_scene_and_what_it_shows(capsys: pytest.CaptureFixture[str]) -> None:
    assert screenshots.main(["--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == list(SCENES)
    assert any(line.startswith("ocr") and "scanned contract" in line for line in lines)


def test_an_unknown_scene_is_refused_with_the_names(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        screenshots.main(["window", "revue"])
    assert stopped.value.code == 2
    assert "no scene revue: the scenes are window, review" in capsys.readouterr().err


def test_several_scenes_run_one_process_each_with_the_shared_options(monkeypatch: pytest.MonkeyPatch) -> None:
    ran: list[list[str]] = []

    def run(command: list[str], check: bool, **_: Any) -> subprocess.CompletedProcess[str]:
        assert check
        ran.append(command)
        return subprocess.CompletedProcess(command, 0)

    monkeypatch.setattr(screenshots.subprocess, "run", run)
    assert screenshots.main(["review", "--out", "shots", "ocr", "--evidence-only"]) == 0
    prefix = [sys.executable, "-m", "scripts.screenshots"]
    assert ran == [
        [*prefix, "review", "--out", "shots", "--evidence-only"],
        [*prefix, "ocr", "--out", "shots", "--evidence-only"],
    ]


def test_scene_options_reach_the_scene(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    seen: list[tuple[Any, Path]] = []
    monkeypatch.setattr(screenshots, "start_application", lambda dark: None)
    monkeypatch.setattr(screenshots.scene_module("filing"), "run", lambda args, home: seen.append((args, home)))
    monkeypatch.setenv("PAGEWISE_HOME", "")
    monkeypatch.setenv("QT_SCALE_FACTOR", "1")
    out = tmp_path / "shots"
    assert screenshots.main(["filing", "--out", str(out), "--pdf", "10-K.pdf", "--home", str(tmp_path)]) == 0
    ((args, home),) = seen
    assert (args.out, args.pdf, home) == (out, Path("10-K.pdf"), tmp_path)
    assert out.is_dir()

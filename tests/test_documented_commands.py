"""Every tool the docs tell a maintainer to run exists and answers ``--help``.

The Makefile, the README, docs/, installers/README.md and scripts/README.md name scripts by path
(``scripts/…``, ``lab/…``) and modules by ``python -m …``; a move that leaves one of them behind
fails here, not in a reader's terminal."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("scripts", "lab", "app", "summarizer", "inference")
MODULE = re.compile(r"python3? -m ((?:" + "|".join(PACKAGES) + r")(?:\.[a-z_][a-z0-9_]*)+)(?![.…\w])")
PATH = re.compile(r"(?<![\w/.-])((?:scripts|lab)/[\w/.-]*\w\.(?:py|sh|json|md))")


def documents() -> list[Path]:
    docs = [ROOT / "Makefile", ROOT / "README.md", ROOT / "installers" / "README.md", ROOT / "scripts" / "README.md"]
    return docs + sorted((ROOT / "docs").rglob("*.md"))


def named(pattern: re.Pattern[str]) -> dict[str, str]:
    """Each name the pattern finds in the documents, with the first document that names it."""
    found: dict[str, str] = {}
    for doc in documents():
        for name in pattern.findall(doc.read_text(encoding="utf-8")):
            found.setdefault(name, str(doc.relative_to(ROOT)))
    return found


def test_the_documents_name_tools() -> None:  # the patterns still match the way the docs write commands
    assert "scripts.demo" in named(MODULE)
    assert "scripts.screenshots" in named(MODULE)  # one tool with a scene per picture (scripts/screenshots/)
    assert "scripts/check_review_docx.sh" in named(PATH)


@pytest.mark.parametrize("path", sorted(named(PATH)))
def test_every_named_path_exists(path: str) -> None:
    assert (ROOT / path).is_file(), f"{named(PATH)[path]} names {path}, which does not exist"


def _runnable() -> list[list[str]]:
    commands = [["-m", module] for module in sorted(named(MODULE))]
    for path in sorted(named(PATH)):
        file = ROOT / path
        if not file.is_file():
            continue  # test_every_named_path_exists says so
        if file.suffix == ".sh":
            commands.append(["bash", path])
        elif file.suffix == ".py" and 'if __name__ == "__main__"' in file.read_text(encoding="utf-8"):
            module = ".".join(Path(path).with_suffix("").parts)
            if ["-m", module] not in commands:
                commands.append(["-m", module])
    return commands


@pytest.mark.slow
@pytest.mark.parametrize("command", _runnable(), ids=" ".join)
def test_every_named_tool_answers_help(command: list[str]) -> None:
    argv = [*command, "--help"] if command[0] == "bash" else [sys.executable, *command, "--help"]
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"{' '.join(command)} --help: exit {done.returncode}\n{done.stderr[-2000:]}"
    assert done.stdout.strip(), f"{' '.join(command)} --help printed nothing"

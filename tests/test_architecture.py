"""The floors: inference/ and summarizer/ never import Qt or app/; commands start light."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("package", ["inference", "summarizer"])
def test_core_never_imports_qt_or_app(package: str) -> None:
    for path in (ROOT / package).rglob("*.py"):
        bad = _imports(path) & {"PySide6", "PyQt5", "PyQt6", "shiboken6", "app"}
        assert not bad, f"{path.relative_to(ROOT)} imports {bad}"


def test_inference_does_not_import_summarizer() -> None:
    for path in (ROOT / "inference").rglob("*.py"):
        assert "summarizer" not in _imports(path), path


def test_help_does_not_import_heavy_libraries() -> None:
    code = (
        "import sys, contextlib, io\n"
        "from app.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "    main(['--help'])\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "    main(['search', '--help'])\n"
        "heavy = [m for m in ('torch', 'llama_cpp', 'PySide6', 'sentence_transformers', 'faiss', 'pypdf')"
        " if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_the_network_is_blocked_in_tests() -> None:
    import socket

    from tests.conftest import NetworkBlocked

    with pytest.raises(NetworkBlocked), socket.create_connection(("192.0.2.1", 80), timeout=1):
        pass

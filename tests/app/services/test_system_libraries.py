"""The system libraries the window needs: found with ldd, named with their Debian packages,
reported by `pagewise doctor` and by the window's start-up."""

from __future__ import annotations

import argparse
import json
import os
import stat
from pathlib import Path

import pytest

from app import gui_main
from app.commands import doctor
from app.services import system_libraries
from app.services.output import run_command

LDD_OUTPUT = """\
\tlinux-vdso.so.1 (0x00007ffd)
\tlibxcb-cursor.so.0 => /lib/x86_64-linux-gnu/libxcb-cursor.so.0 (0x00007fb3)
\tlibxcb-icccm.so.4 => not found
\tlibxcb-keysyms.so.1 => not found
\tlibweird.so.9 => not found
"""


def test_parse_ldd_lists_what_is_not_found() -> None:
    assert system_libraries.parse_ldd(LDD_OUTPUT) == ["libxcb-icccm.so.4", "libxcb-keysyms.so.1", "libweird.so.9"]


def test_install_hint_names_debian_packages_and_unknown_libraries() -> None:
    hint = system_libraries.install_hint(["libxcb-icccm.so.4", "libxcb-keysyms.so.1", "libweird.so.9"])
    assert "sudo apt install libxcb-icccm4 libxcb-keysyms1" in hint
    assert "libweird.so.9" in hint


def test_missing_libraries_are_read_from_ldd_on_the_qt_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    qt = tmp_path / "Qt"
    (qt / "plugins" / "platforms").mkdir(parents=True)
    (qt / "lib").mkdir()
    (qt / "plugins" / "platforms" / "libqxcb.so").write_bytes(b"")
    (qt / "lib" / "libQt6XcbQpa.so.6").write_bytes(b"")
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    ldd = fake_bin / "ldd"
    ldd.write_text(f"#!/bin/sh\ncat <<'X'\n{LDD_OUTPUT}X\n")
    ldd.chmod(ldd.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{fake_bin}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(system_libraries.sys, "platform", "linux")
    # Both files report the same three; each is listed once.
    assert system_libraries.missing_window_libraries(qt) == [
        "libxcb-icccm.so.4",
        "libxcb-keysyms.so.1",
        "libweird.so.9",
    ]


def test_the_libraries_named_missing_are_the_ones_this_machine_cannot_load() -> None:
    """Real ldd on the installed PySide6, on whatever machine runs the suite (a fresh one may lack
    the xcb libraries; the offscreen tests do not need them): every library named missing is one
    the dynamic loader cannot load, and the install hint names a package for each."""
    import ctypes

    assert system_libraries.qt_dir() is not None
    missing = system_libraries.missing_window_libraries()
    for name in missing:
        with pytest.raises(OSError):
            ctypes.CDLL(name)
    hint = system_libraries.install_hint(missing)
    for name in missing:  # its Debian package, or the library itself when no package is known
        assert system_libraries.DEBIAN_PACKAGES.get(name, name) in hint


def test_doctor_reports_missing_window_libraries(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(system_libraries, "missing_window_libraries", lambda: ["libxcb-icccm.so.4"])
    parser = argparse.ArgumentParser()
    doctor.register(parser.add_subparsers(dest="command"))
    code = run_command(parser.parse_args(["doctor", "--json"]))
    report = json.loads(capsys.readouterr().out)
    assert code == 1 and not report["ok"]
    assert report["window_libraries_missing"] == ["libxcb-icccm.so.4"]
    problem = next(p for p in report["problems"] if "libxcb-icccm.so.4" in p["problem"])
    assert problem["severity"] == "error" and "sudo apt install libxcb-icccm4" in problem["fix"]


def test_window_start_names_the_missing_libraries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        system_libraries, "missing_window_libraries", lambda: ["libxcb-icccm.so.4", "libxcb-keysyms.so.1"]
    )
    monkeypatch.setenv("QT_QPA_PLATFORM", "xcb")
    problem = gui_main.check_dependencies()
    assert problem is not None
    assert "libxcb-icccm.so.4, libxcb-keysyms.so.1" in problem and "libxcb-icccm4 libxcb-keysyms1" in problem
    # Offscreen or Wayland, the xcb libraries are not needed.
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    assert gui_main.check_dependencies() is None

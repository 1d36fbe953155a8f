"""A second ``pagewise`` on the same library hands its files to the first window."""

from __future__ import annotations

import socket
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QDir

from app.widgets.single_instance import InstanceServer, hand_over, server_name


def unique_name() -> str:
    return f"pagewise-test-{uuid.uuid4().hex[:12]}"


def test_the_name_depends_on_the_data_folder(tmp_path: Path) -> None:
    assert server_name(tmp_path / "a") == server_name(tmp_path / "a")
    assert server_name(tmp_path / "a") != server_name(tmp_path / "b")
    assert len(server_name(tmp_path / ("x" * 200))) < 40  # fits a Unix socket path


def test_nobody_listening_means_no_hand_over(qtbot: Any) -> None:
    assert hand_over(unique_name(), ["contract.pdf"]) is False


def test_a_second_instance_hands_its_files_to_the_first(qtbot: Any, tmp_path: Path, monkeypatch: Any) -> None:
    name = unique_name()
    received: list[list[str]] = []
    server = InstanceServer(name, received.append)
    try:
        assert server.listening
        monkeypatch.chdir(tmp_path)
        assert hand_over(name, ["contract.pdf", str(tmp_path / "other file é.pdf")]) is True
        qtbot.waitUntil(lambda: bool(received), timeout=5000)
        assert received == [[str(tmp_path / "contract.pdf"), str(tmp_path / "other file é.pdf")]]
        assert hand_over(name, []) is True  # no files: only brings the window forward
        qtbot.waitUntil(lambda: len(received) == 2, timeout=5000)
        assert received[1] == []
    finally:
        server.close()


@pytest.mark.skipif(sys.platform == "win32", reason="a named pipe leaves nothing behind")
def test_a_stale_socket_of_a_crashed_instance_is_taken_over(qtbot: Any) -> None:
    name = unique_name()
    stale = Path(QDir.tempPath()) / name  # where QLocalServer puts its Unix socket
    leftover = socket.socket(socket.AF_UNIX)
    leftover.bind(str(stale))  # bound, never listening: what a crashed first instance leaves
    leftover.close()
    assert stale.exists()
    received: list[list[str]] = []
    server = InstanceServer(name, received.append)
    try:
        assert server.listening
        assert hand_over(name, ["/tmp/a.pdf"])
        qtbot.waitUntil(lambda: bool(received), timeout=5000)
    finally:
        server.close()

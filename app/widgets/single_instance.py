"""One window per library: a second ``pagewise [FILE.pdf]`` hands its files to the first and exits.

The first instance listens on a local socket (a Unix socket, or a named pipe on Windows) named
after the user and the data folder; a second one started on the same library connects, sends
the absolute paths of its files and ends, and the first opens them and comes to the front. Two
instances on one library would each run their own ingest and model worker; SQLite keeps the
database whole (WAL), but the user would see two windows disagree. A different ``PAGEWISE_HOME``
is a different library and gets a window of its own.
"""

from __future__ import annotations

import getpass
import hashlib
import json
from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtCore import QObject
from PySide6.QtNetwork import QLocalServer, QLocalSocket

CONNECT_TIMEOUT_MS = 1000
MAX_MESSAGE_BYTES = 1 << 20


def server_name(data_folder: Path) -> str:
    """Stable per user and data folder, short enough for a Unix socket path."""
    key = f"{getpass.getuser()}\0{data_folder.expanduser().resolve()}"
    return "pagewise-" + hashlib.sha1(key.encode()).hexdigest()[:16]


def hand_over(name: str, files: Sequence[str]) -> bool:
    """True if a first instance is listening on ``name`` and took ``files`` (absolute paths)."""
    socket = QLocalSocket()
    socket.connectToServer(name)
    if not socket.waitForConnected(CONNECT_TIMEOUT_MS):
        return False
    message = json.dumps({"files": [str(Path(f).resolve()) for f in files]}).encode()
    socket.write(message)
    delivered = socket.waitForBytesWritten(CONNECT_TIMEOUT_MS)
    socket.disconnectFromServer()
    return bool(delivered)


class InstanceServer(QObject):
    """Listens for later instances; ``on_files(paths)`` runs on the GUI thread for each one."""

    def __init__(self, name: str, on_files: Callable[[list[str]], None], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._on_files = on_files
        self._server = QLocalServer(self)
        self._server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        if not self._server.listen(name):
            # Left behind by an instance that crashed (on Unix the socket file stays): take it over.
            QLocalServer.removeServer(name)
            self._server.listen(name)
        self._server.newConnection.connect(self._accept)

    @property
    def listening(self) -> bool:
        return bool(self._server.isListening())

    def close(self) -> None:
        self._server.close()

    def _accept(self) -> None:
        while self._server.hasPendingConnections():
            socket = self._server.nextPendingConnection()
            buffer = bytearray()

            def read(socket: QLocalSocket = socket, buffer: bytearray = buffer) -> None:
                buffer.extend(bytes(socket.readAll().data()))
                if len(buffer) > MAX_MESSAGE_BYTES:
                    socket.abort()

            def finish(socket: QLocalSocket = socket, buffer: bytearray = buffer) -> None:
                read(socket, buffer)
                socket.deleteLater()
                try:
                    files = json.loads(buffer.decode() or "{}").get("files", [])
                except (ValueError, AttributeError):
                    return  # not one of ours
                self._on_files([str(f) for f in files if isinstance(f, str)])

            socket.readyRead.connect(read)
            socket.disconnected.connect(finish)

"""Windows' rule on Linux: a file that is open cannot be deleted, renamed or replaced.

Windows refuses to delete, rename or replace a file (or a folder holding one) while a handle
holds it: an open file (SQLite's library, its ``-wal`` and ``-shm``, a log a worker writes) or a
memory map. Linux does not care, so code that removed a file it still held passed every test
here and failed on Windows with ``[WinError 32]`` (issue 54). ``WindowsFileLocks.install()``
wraps ``os.remove``/``unlink``/``rmdir``/``rename``/``replace`` and ``shutil.rmtree`` (and
so ``Path.unlink``, ``rename``, ``replace`` and ``TemporaryDirectory.cleanup``, which call
them) so that touching a path a process holds (this one, its children, or what they started),
as ``/proc/<pid>/fd`` and ``/proc/<pid>/maps`` show, raises ``PermissionError`` as Windows would.
Only paths under ``roots`` (the temporary folder, where tests keep their libraries) are
checked: the standard library's Linux-only tricks elsewhere (multiprocessing's shared memory in
/dev/shm is mapped, then unlinked) are none of Pagewise's doing.

Tests use the ``windows_file_locks`` fixture (tests/conftest.py); a test running the command
in a process of its own installs it there (``python -c "import tests.windows_files ..."``).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

WINERROR_32 = "[WinError 32] The process cannot access the file because it is being used by another process"


def held_by(pid: int) -> set[str]:
    """The files ``pid`` has open or mapped (absolute paths)."""
    held: set[str] = set()
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return held
    for fd in fds:
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("/"):
            held.add(target.removesuffix(" (deleted)"))
    try:
        maps = Path(f"/proc/{pid}/maps").read_text().splitlines()
    except OSError:
        maps = []
    for line in maps:
        parts = line.split(maxsplit=5)
        if len(parts) == 6 and parts[5].startswith("/"):
            held.add(parts[5].removesuffix(" (deleted)"))
    return held


def held_paths() -> dict[str, int]:
    """Every file held by any process (Windows refuses whichever holds it), with the holder's pid:
    this process's children, and processes they started that outlived them."""
    pids = [int(entry) for entry in os.listdir("/proc") if entry.isdigit()]
    return {path: pid for pid in pids for path in held_by(pid)}


def _absolute(path: Any, dir_fd: int | None = None) -> str:
    name = os.fsdecode(os.fspath(path))
    if dir_fd is not None and not os.path.isabs(name):
        name = os.path.join(os.readlink(f"/proc/self/fd/{dir_fd}"), name)
    return os.path.realpath(os.path.abspath(name))


@dataclass
class Refusal:
    operation: str
    path: str
    held: str
    pid: int


@dataclass
class WindowsFileLocks:
    roots: tuple[str, ...] = field(default_factory=lambda: (os.path.realpath(tempfile.gettempdir()),))
    refusals: list[Refusal] = field(default_factory=list)
    on_refusal: Callable[[Refusal], None] | None = None
    _undo: list[tuple[Any, str, Any]] = field(default_factory=list)
    _in_rmtree: int = 0  # its own unlinks were checked with the folder

    def check(self, operation: str, *paths: str) -> None:
        paths = tuple(p for p in paths if any(p == root or p.startswith(root + "/") for root in self.roots))
        if self._in_rmtree or not paths:
            return
        held = held_paths()
        for path in paths:
            inside = path.rstrip("/") + "/"
            for holding, pid in sorted(held.items()):
                if holding == path or holding.startswith(inside):
                    refusal = Refusal(operation, path, holding, pid)
                    self.refusals.append(refusal)
                    if self.on_refusal is not None:
                        self.on_refusal(refusal)
                    who = "this process" if pid == os.getpid() else f"process {pid}"
                    raise PermissionError(13, f"{WINERROR_32} ({holding} is open in {who})", path)

    def install(self) -> WindowsFileLocks:
        real_unlink, real_rmdir, real_rename, real_replace = os.unlink, os.rmdir, os.rename, os.replace
        real_rmtree = shutil.rmtree

        def unlink(path: Any, *, dir_fd: int | None = None) -> None:
            self.check("delete", _absolute(path, dir_fd))
            real_unlink(path, dir_fd=dir_fd)

        def rmdir(path: Any, *, dir_fd: int | None = None) -> None:
            self.check("delete", _absolute(path, dir_fd))
            real_rmdir(path, dir_fd=dir_fd)

        def moving(real: Callable[..., None], operation: str) -> Callable[..., None]:
            def move(src: Any, dst: Any, *, src_dir_fd: int | None = None, dst_dir_fd: int | None = None) -> None:
                self.check(operation, _absolute(src, src_dir_fd), _absolute(dst, dst_dir_fd))
                real(src, dst, src_dir_fd=src_dir_fd, dst_dir_fd=dst_dir_fd)

            return move

        def rmtree(path: Any, *args: Any, **kwargs: Any) -> None:
            self.check("delete", _absolute(path, kwargs.get("dir_fd")))
            self._in_rmtree += 1
            try:
                real_rmtree(path, *args, **kwargs)
            finally:
                self._in_rmtree -= 1

        rmtree.avoids_symlink_attacks = real_rmtree.avoids_symlink_attacks  # type: ignore[attr-defined]
        for module, name, wrapper in (
            (os, "unlink", unlink),
            (os, "remove", unlink),
            (os, "rmdir", rmdir),
            (os, "rename", moving(real_rename, "rename")),
            (os, "replace", moving(real_replace, "replace")),
            (shutil, "rmtree", rmtree),
        ):
            self._undo.append((module, name, getattr(module, name)))
            setattr(module, name, wrapper)
        return self

    def uninstall(self) -> None:
        while self._undo:
            module, name, real = self._undo.pop()
            setattr(module, name, real)


def installed() -> Iterator[WindowsFileLocks]:
    locks = WindowsFileLocks().install()
    try:
        yield locks
    finally:
        locks.uninstall()

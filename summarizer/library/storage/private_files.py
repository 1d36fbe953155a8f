"""The user's library kept private to the user: confidential contracts, their text, vectors and
unpacked data-room copies must not be readable by other local users.

On POSIX the data folder, the cache folder and the settings' folder are made 0700 (which alone
keeps everything inside from other users, whatever the files' own modes) and the library database,
the vector index, the settings file and unpacked copies 0600. Folders and files are only changed
when they belong to this user, and a folder the user named (``$PAGEWISE_HOME``, ``$PAGEWISE_CONFIG``'s)
only when Pagewise creates it. On
Windows a user's AppData is private already; nothing is changed there.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

PRIVATE_FOLDER_MODE = 0o700
PRIVATE_FILE_MODE = 0o600
_POSIX = os.name == "posix"


def private_folder(path: Path, *, existing_too: bool = True) -> Path:
    """``path`` created 0700 (with its parents) and, on POSIX, an existing one made 0700 when it is this
    user's. ``existing_too=False`` for a folder the user named (``$PAGEWISE_HOME``, the settings
    file's folder): it is made private only when Pagewise creates it, never changed after."""
    if existing_too or not path.is_dir():
        path.mkdir(parents=True, exist_ok=True, mode=PRIVATE_FOLDER_MODE)
        _restrict(path, PRIVATE_FOLDER_MODE)
    return path


def private_file(path: Path) -> Path:
    """``path`` (an existing file) made 0600 on POSIX when it is this user's."""
    _restrict(path, PRIVATE_FILE_MODE)
    return path


def open_private(path: Path) -> int:
    """A file descriptor of ``path`` opened for writing (created or emptied), created 0600."""
    return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_BINARY", 0), PRIVATE_FILE_MODE)


def _restrict(path: Path, mode: int) -> None:
    if not _POSIX:
        return
    with contextlib.suppress(OSError):  # gone, or on a file system without modes: nothing to keep private
        info = path.stat()
        if info.st_uid == os.getuid() and info.st_mode & 0o777 != mode:
            path.chmod(mode)

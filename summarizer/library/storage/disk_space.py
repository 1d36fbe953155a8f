"""A full disk is not a damaged library: telling the two apart when SQLite or a write fails.

SQLite reports a disk that ran out of space as "database or disk is full", or, when the write
that failed was the journal's or the WAL's, as "disk I/O error", the same words as for a damaged
file. So when a write fails with one of them (or with ``ENOSPC``), the free space of the disk is
read: a disk with less than ``LOW_SPACE_BYTES`` left is the cause, and the message says to free
space, never to move the library away.
"""

from __future__ import annotations

import errno
import shutil
import sqlite3
from pathlib import Path

from summarizer.errors import DiskFull

LOW_SPACE_BYTES = 64 * 1024**2
_SQLITE_SPACE_WORDS = ("database or disk is full", "disk is full", "disk i/o error")


def free_bytes(folder: Path) -> int | None:
    """The free space of the disk holding ``folder`` (its nearest existing parent), or None."""
    for candidate in (folder, *folder.parents):
        if candidate.exists():
            try:
                return shutil.disk_usage(candidate).free
            except OSError:
                return None
    return None


def space_error(error: BaseException, folder: Path, doing: str = "") -> DiskFull | None:
    """A ``DiskFull`` naming ``folder`` when ``error`` came from the disk running out of space."""
    if isinstance(error, sqlite3.Error):
        text = str(error).lower()
        if not any(words in text for words in _SQLITE_SPACE_WORDS):
            return None
        certain = "full" in text  # "disk I/O error" is also what a damaged file gives
    elif isinstance(error, OSError) and error.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
        certain = True
    else:
        return None
    free = free_bytes(folder)
    if not certain and (free is None or free >= LOW_SPACE_BYTES):
        return None  # an I/O error with room on the disk: not a question of space
    left = f" ({free / 1024**2:.0f} MiB free)" if free is not None else ""
    what = f" {doing}" if doing else ""
    return DiskFull(
        f"No space left on the disk holding {folder}{left}: free some space and try again{what}. "
        "Nothing in the library was lost.",
        path=folder,
    )

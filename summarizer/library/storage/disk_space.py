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


def library_bytes(folder: Path) -> int:
    """What the library takes on disk: the files at the top of its data ``folder`` (the database
    and its journal, the vector index), not the models or the unpacked archives beside them."""
    total = 0
    for path in folder.glob("*"):
        try:
            if path.is_file():
                total += path.stat().st_size
        except OSError:
            continue
    return total


def batch_space_error(folder: Path, documents: int, added: int, pending: int) -> DiskFull:
    """A batch stopped by a full disk: where (the disk holding the library's ``folder``), how much to
    free (the ``pending`` files at what each of the library's ``documents`` took so far, and no less
    than the ``LOW_SPACE_BYTES`` a write needs), and that the ``added`` files stay. What to do comes
    first: the window's banner shows three lines of it."""
    free = free_bytes(folder)
    left = f" ({free / 1024**2:.0f} MiB free)" if free is not None else ""
    need = library_bytes(folder) / documents * pending if documents else 0.0
    kept = "nothing in the library was lost"
    if added:
        kept = "the file added so far stays" if added == 1 else f"the {added} files added so far stay"
    text = (
        f"No space left on the disk holding {folder}{left}: free at least "
        f"{max(need, LOW_SPACE_BYTES) / 1024**2:,.0f} MiB there, then continue; {kept}."
    )
    if documents:
        text += (
            f" The {pending} file{'s' if pending != 1 else ''} still to add take{'s' if pending == 1 else ''} about "
            f"{max(need / 1024**2, 1):,.0f} MiB in the library, going by the {documents} "
            f"document{'s' if documents != 1 else ''} in it."
        )
    return DiskFull(text, path=folder)

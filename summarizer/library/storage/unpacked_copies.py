"""The copies of a data room's zip members that Pagewise unpacked into the data folder's
``unpacked/`` (one folder per archive, named by its hash; ``batches.archives`` writes them): the
library's documents are read from them, and they go when their document is removed from the
library, so confidential copies do not stay behind for good.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

UNPACKED_FOLDER = "unpacked"
COMPLETE_MARK = ".unpacked"  # in an archive's folder once all of its documents are out


def discard_unpacked_copy(data_folder: Path, path: Path) -> bool:
    """Delete ``path`` when it is an unpacked copy under ``data_folder``; its archive's folder loses
    its complete mark (adding the zip again unpacks what is missing) and goes once it holds nothing
    else. Whether a copy was deleted; a file anywhere else is never touched."""
    root = (data_folder / UNPACKED_FOLDER).resolve()
    try:
        resolved = path.resolve()
    except OSError:
        return False
    if not resolved.is_relative_to(root) or len(resolved.relative_to(root).parts) < 2:
        return False
    archive_folder = root / resolved.relative_to(root).parts[0]
    try:
        resolved.unlink(missing_ok=True)
        (archive_folder / COMPLETE_MARK).unlink(missing_ok=True)
    except OSError:
        return False
    folder = resolved.parent
    while folder.is_relative_to(archive_folder):
        with contextlib.suppress(OSError):  # not empty: the archive's other documents stay
            folder.rmdir()
            folder = folder.parent
            continue
        break
    return True

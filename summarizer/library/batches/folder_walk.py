"""What a dropped folder (a data room) holds: the documents to add, each with its folder inside
the dropped one, and what is not added, each with why.

A folder is walked in name order (so a batch's order is the same on every run); a ``.zip`` is
unpacked (``archives``) and its documents are listed under the zip's name as a folder; Word's lock
files (``~$…``), files that are not PDFs or Word documents, links (to a file or a folder), pipes and
devices inside the folder, and folders that cannot be read are named with the reason, never read.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from summarizer.errors import DocumentError
from summarizer.library.batches.archives import unpack_archive
from summarizer.library.reading.file_type import WORD_LOCK_PREFIX, is_document_name, not_a_document_reason


@dataclass(frozen=True, slots=True)
class FoundFile:
    path: Path
    folder: str  # its folder inside the dropped folder, "/"-separated ("" at its top, or a file dropped alone)
    size: int


@dataclass(slots=True)
class FoundDocuments:
    files: list[FoundFile] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, why it is not added)


def _join(*parts: str) -> str:
    return str(PurePosixPath(*[p for p in parts if p])) if any(parts) else ""


def find_documents(paths: list[Path], unpack_root: Path) -> FoundDocuments:
    """The documents under ``paths`` (files, folders, zips); zips are unpacked into ``unpack_root``."""
    found = FoundDocuments()
    for raw in paths:
        path = Path(raw).expanduser()
        if path.is_dir():
            _walk(path, found, unpack_root)
        else:
            _take(path, "", found, unpack_root)
    return found


def _walk(root: Path, found: FoundDocuments, unpack_root: Path) -> None:
    def unreadable(error: OSError) -> None:
        where = error.filename or str(root)
        found.skipped.append((str(where), f"the folder cannot be read ({error.strerror}): check its permissions"))

    for folder, subfolders, names in os.walk(root, onerror=unreadable):  # never into linked folders
        subfolders.sort()
        for sub in subfolders:
            if (Path(folder) / sub).is_symlink():
                found.skipped.append((str(Path(folder) / sub), f"a link to a folder elsewhere: {_NOT_FOLLOWED}"))
        relative = Path(folder).relative_to(root).as_posix()
        for name in sorted(names):
            _take(Path(folder) / name, "" if relative == "." else relative, found, unpack_root, in_folder=True)


# A dropped folder is the other side's (a data room unpacked by unzip or tar keeps its links): a
# link in it may point at the user's own files, which would be added, searched and exported as part
# of the room. Where it points is not said either.
_NOT_FOLLOWED = "not followed (copy the file itself into the folder to add it)"


def _not_a_plain_file(path: Path) -> str | None:
    """Why an entry found inside a dropped folder is not read: a link, a pipe, a device; None for a file."""
    try:
        mode = path.lstat().st_mode
    except OSError:
        return None  # said below, as for any entry that cannot be read
    if stat.S_ISLNK(mode):
        return f"a link to a file elsewhere: {_NOT_FOLLOWED}"
    if not stat.S_ISREG(mode):
        return "not a file (a pipe, socket or device): never read, as reading it could wait forever"
    return None


def _take(path: Path, folder: str, found: FoundDocuments, unpack_root: Path, *, in_folder: bool = False) -> None:
    name = path.name
    if in_folder and (reason := _not_a_plain_file(path)):
        found.skipped.append((str(path), reason))
    elif name.startswith(WORD_LOCK_PREFIX):
        found.skipped.append((str(path), not_a_document_reason(name)))
    elif name.lower().endswith(".zip"):
        try:
            unpacked = unpack_archive(path, unpack_root)
        except DocumentError as error:
            found.skipped.append((str(path), str(error)))
            return
        except Exception as error:  # one bad archive never stops the batch
            found.skipped.append((str(path), f"it could not be unpacked ({type(error).__name__}: {error})"))
            return
        inside = _join(folder, path.stem)
        for file, inner in unpacked.files:
            parent = PurePosixPath(inner).parent.as_posix()
            found.files.append(FoundFile(file, _join(inside, "" if parent == "." else parent), _size(file)))
        found.skipped.extend((f"{path}/{inner}", reason) for inner, reason in unpacked.skipped)
    elif is_document_name(name):
        try:
            size = path.stat().st_size
        except OSError as error:
            found.skipped.append((str(path), f"it cannot be read ({error.strerror})"))
            return
        found.files.append(FoundFile(path, folder, size))
    elif not path.exists():
        found.skipped.append((str(path), "no such file"))
    else:
        found.skipped.append((str(path), not_a_document_reason(name)))


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0

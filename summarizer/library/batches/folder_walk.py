"""What a dropped folder (a data room) holds: the documents to add, each with its folder inside
the dropped one, and what is not added, each with why.

A folder is walked in name order (so a batch's order is the same on every run); a ``.zip`` is
unpacked (``archives``) and its documents are listed under the zip's name as a folder; Word's lock
files (``~$…``), files that are not PDFs or Word documents and folders that cannot be read are
named with the reason, never read.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from summarizer.errors import DocumentError
from summarizer.library.batches.archives import unpack_archive
from summarizer.library.reading.file_type import WORD_LOCK_PREFIX, is_document_name


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

    for folder, subfolders, names in os.walk(root, onerror=unreadable):
        subfolders.sort()
        relative = Path(folder).relative_to(root).as_posix()
        for name in sorted(names):
            _take(Path(folder) / name, "" if relative == "." else relative, found, unpack_root)


def _take(path: Path, folder: str, found: FoundDocuments, unpack_root: Path) -> None:
    name = path.name
    if name.startswith(WORD_LOCK_PREFIX):
        found.skipped.append((str(path), "a Word lock file (~$…), not a document"))
    elif name.lower().endswith(".zip"):
        try:
            unpacked = unpack_archive(path, unpack_root)
        except DocumentError as error:
            found.skipped.append((str(path), str(error)))
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
        found.skipped.append((str(path), "not a PDF or Word document (nor a .zip of them)"))


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0

"""A data room downloaded as a ``.zip``: its documents unpacked into the data folder, safely.

Only PDFs and Word documents are taken out (never Word's lock files), each under a name checked
to stay inside the target folder (no "zip slip": an absolute name, a drive or a ``..`` part is
refused), with the bytes written counted against the size the archive declares and against
``MAX_UNPACKED_BYTES`` in all (a zip bomb stops there). An encrypted member, or a zip inside the
zip, is named as skipped with the reason. Unpacking the same archive again reuses what is there:
the folder is named by the archive's hash and marked complete once everything is out; a file an
interrupted unpack already took out whole is kept, never replaced (on Windows the window or the
ingest process may hold it open, and an open file cannot be replaced: issue 54).
"""

from __future__ import annotations

import hashlib
import os
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from summarizer.errors import DocumentError
from summarizer.library.reading.file_type import WORD_LOCK_PREFIX, is_document_name

MAX_UNPACKED_BYTES = 8 * 1024**3  # a data room's worth; past it the archive is refused, not half unpacked
MAX_MEMBERS = 50_000
COMPLETE_MARK = ".unpacked"
_CHUNK = 1 << 20


@dataclass(slots=True)
class Unpacked:
    """The documents taken out of an archive, and what was left in it, with why."""

    folder: Path
    files: list[tuple[Path, str]] = field(default_factory=list)  # (file on disk, its path inside the archive)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (its path inside the archive, reason)


def archive_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def safe_member_path(name: str) -> PurePosixPath | None:
    """The member's path relative to the target folder, or None when it would leave it."""
    normalized = name.replace("\\", "/")
    if normalized.startswith("/") or (len(normalized) > 1 and normalized[1] == ":"):
        return None
    parts = [p for p in PurePosixPath(normalized).parts if p not in ("", ".")]
    if not parts or any(p == ".." for p in parts):
        return None
    return PurePosixPath(*parts)


def unpack_archive(path: Path, unpack_root: Path) -> Unpacked:
    """Take the documents out of the zip at ``path`` into a folder of ``unpack_root``."""
    try:
        sha = archive_sha256(path)
        archive = zipfile.ZipFile(path)
    except PermissionError:
        raise DocumentError(
            f"{path} cannot be read: permission denied. Check the file's permissions.", path=path
        ) from None
    except (zipfile.BadZipFile, OSError) as error:
        raise DocumentError(
            f"{path.name} is not a zip archive Pagewise can read ({error}). Unpack it with another tool and "
            "add the folder.",
            path=path,
        ) from None
    target = unpack_root / sha[:16]
    result = Unpacked(target)
    with archive:
        members = archive.infolist()
        if len(members) > MAX_MEMBERS:
            raise DocumentError(
                f"{path.name} holds {len(members)} entries, more than the {MAX_MEMBERS} Pagewise unpacks. "
                "Unpack it yourself and add the folder.",
                path=path,
            )
        wanted: list[tuple[zipfile.ZipInfo, PurePosixPath]] = []
        for member in members:
            if member.is_dir():
                continue
            inner = safe_member_path(member.filename)
            name = PurePosixPath(member.filename.replace("\\", "/")).name
            if inner is None:
                result.skipped.append((member.filename, "its name points outside the archive's folder"))
            elif name.startswith(WORD_LOCK_PREFIX):
                result.skipped.append((member.filename, "a Word lock file, not a document"))
            elif name.lower().endswith(".zip"):
                result.skipped.append((member.filename, "a zip inside the zip: unpack it and add its folder"))
            elif not is_document_name(name):
                result.skipped.append((member.filename, "not a PDF or Word document"))
            elif member.flag_bits & 0x1:
                result.skipped.append(
                    (member.filename, "encrypted in the archive: unpack it with its password and add the folder")
                )
            else:
                wanted.append((member, inner))
        declared = sum(m.file_size for m, _ in wanted)
        if declared > MAX_UNPACKED_BYTES:
            raise DocumentError(
                f"{path.name} would unpack to {declared / 1024**3:.1f} GiB, more than the "
                f"{MAX_UNPACKED_BYTES / 1024**3:.0f} GiB Pagewise unpacks. Unpack it yourself and add the folder.",
                path=path,
            )
        if not (target / COMPLETE_MARK).is_file():
            _extract(archive, wanted, target, path)
            (target / COMPLETE_MARK).write_text(path.name)
        result.files = [(target / Path(*inner.parts), str(inner)) for _, inner in wanted]
    return result


def _extract(
    archive: zipfile.ZipFile, wanted: list[tuple[zipfile.ZipInfo, PurePosixPath]], target: Path, path: Path
) -> None:
    target_resolved = target.resolve()
    for member, inner in wanted:
        destination = target / Path(*inner.parts)
        if not destination.resolve().is_relative_to(target_resolved):  # a link planted in the folder
            raise DocumentError(f"{path.name}: {member.filename} would be written outside {target}.", path=path)
        destination.parent.mkdir(parents=True, exist_ok=True)
        if _already_out(destination, member):
            continue  # an interrupted unpack got this far: the window may have it open (not replaced)
        partial = destination.with_name(destination.name + ".part")
        written = 0
        try:
            with archive.open(member) as source, partial.open("wb") as sink:
                while chunk := source.read(_CHUNK):
                    written += len(chunk)
                    if written > member.file_size:  # more than declared: a forged header
                        raise DocumentError(
                            f"{path.name}: {member.filename} holds more than its declared size; the archive "
                            "is damaged or forged, so it was not unpacked.",
                            path=path,
                        )
                    sink.write(chunk)
        except (zipfile.BadZipFile, EOFError, RuntimeError, ValueError) as error:  # CRC, truncated, compression
            partial.unlink(missing_ok=True)
            raise DocumentError(
                f"{path.name}: {member.filename} could not be unpacked ({error}). Unpack the archive with another "
                "tool and add the folder.",
                path=path,
            ) from None
        except BaseException:
            partial.unlink(missing_ok=True)
            raise
        try:
            os.replace(partial, destination)
        except PermissionError:  # Windows: a damaged earlier copy is open in another program
            partial.unlink(missing_ok=True)
            raise DocumentError(
                f"{path.name}: {destination} is open in another program, so it cannot be unpacked again. Close it "
                "and add the archive again.",
                path=path,
            ) from None


def _already_out(destination: Path, member: zipfile.ZipInfo) -> bool:
    """``destination`` holds ``member``'s bytes already (its size and CRC-32 are the archive's)."""
    try:
        if destination.stat().st_size != member.file_size:
            return False
        crc = 0
        with destination.open("rb") as handle:
            while chunk := handle.read(_CHUNK):
                crc = zlib.crc32(chunk, crc)
    except OSError:
        return False
    return crc == member.CRC

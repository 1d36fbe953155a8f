"""What a file added to the library really is, told from its first bytes rather than its name:
a PDF, a Word document (.docx/.docm/.dotx), or something Pagewise cannot read, with a message
saying which and what to do.

A ``.docx`` that is really a PDF is read as the PDF it is; a password-protected Word file (an OLE
compound file holding an ``EncryptionInfo`` stream) is told apart from an old binary ``.doc``.
"""

from __future__ import annotations

import contextlib
import stat
import zipfile
from pathlib import Path
from typing import Literal

from summarizer.errors import DocumentError

FileType = Literal["pdf", "docx"]
PDF: FileType = "pdf"
WORD: FileType = "docx"

WORD_SUFFIXES = (".docx", ".docm", ".dotx", ".dotm")
DOCUMENT_SUFFIXES = (".pdf", *WORD_SUFFIXES)
# A file whose name starts so is Word's lock file beside an open document ("~$ntract.docx"), 162
# bytes naming who has it open: never a document.
WORD_LOCK_PREFIX = "~$"

_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_ZIP_MAGIC = b"PK\x03\x04"
_RTF_MAGIC = b"{\\rtf"
_HEAD = 1024
# OLE directory entries name their streams in UTF-16LE.
_ENCRYPTION_INFO = "EncryptionInfo".encode("utf-16-le")
_WORD_STREAM = "WordDocument".encode("utf-16-le")
_OLE_SCAN_LIMIT = 64 << 20
# The largest file added. pypdf reads a PDF whole into memory (and its objects beside it), so a
# 1 GB PDF would take the window past its 1.5 GB; larger files are refused with this limit named.
MAX_DOCUMENT_BYTES = 256 * 1024**2


def is_document_name(name: str) -> bool:
    """Whether a folder's file is one to add: a PDF or a Word document, not Word's lock file."""
    return name.lower().endswith(DOCUMENT_SUFFIXES) and not name.startswith(WORD_LOCK_PREFIX)


# What a file that is not a PDF or Word document is, told by its name, with what to do instead
# (a folder's file is never opened to tell; ``sniff`` says the same of a file it opens).
_NOT_READ_BY_SUFFIX = {
    ".doc": "an old Word 97–2003 document (.doc), which Pagewise does not read",
    ".dot": "an old Word 97–2003 template (.dot), which Pagewise does not read",
    ".rtf": "a Rich Text (RTF) file, which Pagewise does not read",
    ".odt": "an OpenDocument text (.odt), which Pagewise does not read",
    ".pages": "an Apple Pages document, which Pagewise does not read",
    ".wpd": "a WordPerfect document, which Pagewise does not read",
}
_SAVE_AS = "open it and save it as a Word Document (.docx), or export it as PDF, then add that"


def not_a_document_reason(name: str) -> str:
    """Why a file named ``name`` is not added, and what to do: for a folder's list and the command line."""
    if name.startswith(WORD_LOCK_PREFIX):
        return (
            f"Word's lock file for a document open in Word, not a document: add {name[len(WORD_LOCK_PREFIX) :]} itself"
        )
    known = _NOT_READ_BY_SUFFIX.get(Path(name).suffix.lower())
    if known:
        return f"{known}: {_SAVE_AS}"
    return "not a PDF or Word document (nor a .zip of them): export it as PDF to add it"


def is_word_lock_file(path: Path) -> bool:
    return path.name.startswith(WORD_LOCK_PREFIX)


def read_head(path: Path, kind: str) -> bytes:
    """The first kilobyte of ``path``; DocumentError, naming the file, when it is missing, a folder
    (not ``kind``) or unreadable. Shared by the PDF reader's check and ``sniff``."""
    if not path.exists():
        raise DocumentError(f"{path}: no such file. Check the path and try again.", path=path)
    if path.is_dir():
        raise DocumentError(f"{path} is a folder, not {kind}.", path=path)
    with contextlib.suppress(OSError):
        if not stat.S_ISREG(path.stat().st_mode):  # a pipe would block the open forever
            raise DocumentError(f"{path} is not a file (a pipe, socket or device), not {kind}.", path=path)
    try:
        with path.open("rb") as handle:
            return handle.read(_HEAD)
    except PermissionError:
        raise DocumentError(
            f"{path} cannot be read: permission denied. Check the file's permissions.", path=path
        ) from None
    except OSError as error:
        raise DocumentError(f"{path} cannot be read: {error.strerror or error}.", path=path) from None


def check_size(path: Path, limit: int = MAX_DOCUMENT_BYTES) -> None:
    """DocumentError, naming the limit, for a file larger than Pagewise reads (missing files pass:
    the readers say so)."""
    try:
        size = path.stat().st_size
    except OSError:
        return
    if size > limit:
        raise DocumentError(
            f"{path.name} is {size / 1024**2:,.0f} MiB, larger than the {limit / 1024**2:,.0f} MiB Pagewise reads "
            "(a PDF is read into memory whole). Split it into parts (for example `qpdf --split-pages=500`) "
            "and add the parts.",
            path=path,
        )


def sniff(path: Path) -> FileType:
    """Whether ``path`` is to be read as a PDF or as a Word document; raises DocumentError, naming
    the file, for anything else (a missing, empty or damaged file, an old .doc, an RTF, an
    encrypted Word file, a spreadsheet...)."""
    head = read_head(path, "a PDF or Word file")
    if b"%PDF-" in head:
        return PDF
    word_name = path.suffix.lower() in WORD_SUFFIXES or path.suffix.lower() in (".doc", ".rtf", ".dot")
    if is_word_lock_file(path) and word_name:
        raise DocumentError(
            f"{path} is Word's lock file for a document open in Word, not a document: add "
            f"{path.name[len(WORD_LOCK_PREFIX) :]} itself.",
            path=path,
        )
    if not head:
        raise DocumentError(f"{path} is empty (0 bytes). Re-export or re-download it.", path=path)
    if head.startswith(_OLE_MAGIC):
        _ole_error(path)
    if head.lstrip().startswith(_RTF_MAGIC):
        raise DocumentError(
            f"{path} is a Rich Text (RTF) file, which Pagewise does not read. Open it in Word and save it "
            "as a Word Document (.docx), or export it as PDF, then add that.",
            path=path,
        )
    if head.startswith(_ZIP_MAGIC) or path.suffix.lower() in WORD_SUFFIXES:
        _check_word_zip(path)
        return WORD
    raise DocumentError(
        f"{path} is neither a PDF nor a Word document. Open it and export it as PDF or save it as .docx first.",
        path=path,
    )


def _ole_error(path: Path) -> None:
    """An OLE compound file: a password-protected Word file, or an old binary Word document."""
    with path.open("rb") as handle:
        data = handle.read(_OLE_SCAN_LIMIT)
    if _ENCRYPTION_INFO in data:
        # Not PasswordRequired: Pagewise cannot decrypt Office files, so asking for the password
        # (as the window does for a PDF) would only ask again.
        raise DocumentError(
            f"{path} is a password-protected Word document. Open it in Word with its password, remove the "
            "password (File > Info > Protect Document) or export it as PDF, and add that.",
            path=path,
        )
    if _WORD_STREAM in data:
        raise DocumentError(
            f"{path} is an old Word 97–2003 document (.doc), which Pagewise does not read. Open it in Word and "
            "save it as a Word Document (.docx), or export it as PDF, then add that.",
            path=path,
        )
    raise DocumentError(
        f"{path} is an Office file that is not a Word document (an old Excel or PowerPoint file?). "
        "Export it as PDF first.",
        path=path,
    )


def _check_word_zip(path: Path) -> None:
    # Only the zip's directory is read here: a part is inflated when it is read, through
    # docx_limits.read_part, which stops at its limit (testzip() would inflate every part whole).
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
    except zipfile.BadZipFile:
        raise DocumentError(
            f"{path} is damaged: it is not a complete Word file (its zip container cannot be opened). "
            "Re-download it, or open it in Word, which may repair it, and save it again.",
            path=path,
        ) from None
    except (OSError, EOFError, ValueError, NotImplementedError, RuntimeError) as error:
        raise DocumentError(
            f"{path} is damaged and cannot be opened ({error}). Re-download it or save it again from Word.",
            path=path,
        ) from None
    if "word/document.xml" not in names and not any(n.endswith("document.xml") for n in names):
        what = (
            "an Excel workbook"
            if any(n.startswith("xl/") for n in names)
            else "a PowerPoint presentation"
            if any(n.startswith("ppt/") for n in names)
            else "a zip archive"
        )
        raise DocumentError(
            f"{path} is {what}, not a Word document. Export it as PDF first.",
            path=path,
        )

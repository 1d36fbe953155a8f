"""Text per page from a PDF with pypdf, one page at a time, with user-facing errors.

pypdf is pure Python and holds the GIL: the desktop app calls this from a separate process.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inference.errors import error_cause, shorten_message
from summarizer.errors import DocumentError, PasswordRequired
from summarizer.library.reading.file_type import read_head
from summarizer.library.storage.metadata_text import clean_metadata_text

PDF_MAGIC = b"%PDF-"
# A page with fewer letters than this is counted as having no text layer.
MIN_TEXT_CHARS = 8


@dataclass(frozen=True, slots=True)
class PageText:
    number: int  # 1-based
    text: str  # exactly as extracted
    error: str | None = None  # set when the page failed to parse


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def check_readable(path: Path) -> None:
    """Raise DocumentError unless ``path`` is a readable, non-empty file that starts like a PDF."""
    head = read_head(path, "a PDF file")
    if not head:
        raise DocumentError(f"{path} is empty (0 bytes), not a PDF. Re-export or re-download it.", path=path)
    if PDF_MAGIC not in head:
        raise DocumentError(
            f"{path} is not a PDF (it does not start with %PDF). Open it and export it as PDF first.",
            path=path,
        )


def metadata_string(value: Any) -> str:
    """An Info dictionary string (title, author), cleaned of control characters.

    A string with a byte PDFDocEncoding lacks (a NUL) comes from pypdf as bytes, which its
    ``metadata.title`` decodes as UTF-16 without a byte-order mark (``(imagemagick-lzw\\000)``
    becomes CJK): such bytes are read again without their NULs, byte by byte when that fails."""
    from pypdf.generic import ByteStringObject, create_string_object

    if value is None:
        return ""
    value = value.get_object() if hasattr(value, "get_object") else value
    if isinstance(value, ByteStringObject):
        value = create_string_object(bytes(value).replace(b"\x00", b""))
        if isinstance(value, ByteStringObject):
            value = bytes(value).decode("latin-1")
    return clean_metadata_text(str(value))


def _title_from(reader: Any, path: Path) -> str:
    try:
        meta = reader.metadata
        title = metadata_string(meta.get("/Title")) if meta is not None else ""
    except Exception:  # metadata is optional; a broken info dict must not stop ingest
        title = ""
    # A title without a word in it (an SEC accession number "0000320187-19-000051", a job number)
    # names nothing a reader would know: the file's name does better.
    if sum(ch.isalpha() for ch in title) < 3:
        title = ""
    return title or path.stem


class PdfPages:
    """An open PDF; iterate ``pages()`` to get each page's text without holding them all."""

    def __init__(self, path: Path, password: str | None = None) -> None:
        from pypdf import PdfReader
        from pypdf.errors import FileNotDecryptedError, PdfReadError

        self.path = path
        check_readable(path)
        self.content_sha256 = file_sha256(path)
        _quiet_pypdf()
        try:
            self._reader = PdfReader(str(path), strict=False)
            if self._reader.is_encrypted:
                self._decrypt(password)
            count = len(self._reader.pages)
        except (PasswordRequired, DocumentError):
            raise
        except FileNotDecryptedError:
            raise PasswordRequired(
                f"{path} is encrypted. Give its password (--password) to add it.", path=path
            ) from None
        except (PdfReadError, ValueError, KeyError, TypeError, AttributeError, IndexError, OSError) as error:
            raise DocumentError(
                f"{path} is damaged or incomplete and cannot be opened ({error_cause(error, 160)}). "
                "Re-download or re-export the PDF.",
                path=path,
            ) from None
        except Exception as error:  # pypdf raises assorted errors on broken files
            raise DocumentError(
                f"{path} is damaged and cannot be opened ({error_cause(error, 160)}). "
                "Re-download or re-export the PDF.",
                path=path,
            ) from None
        if count == 0:
            raise DocumentError(f"{path} has no pages. Re-export the PDF.", path=path)
        self.page_count = count
        self.title = _title_from(self._reader, path)

    def _decrypt(self, password: str | None) -> None:
        from pypdf.errors import DependencyError

        try:
            # Many PDFs only have an owner password: the empty user password opens them.
            if self._reader.decrypt(password or ""):
                return
        except DependencyError:
            raise DocumentError(
                f"{self.path} uses an encryption that needs the 'cryptography' package. Reinstall Pagewise.",
                path=self.path,
            ) from None
        if password:
            raise PasswordRequired(
                f"{self.path}: wrong password. Check it and try again.", path=self.path, wrong_password=True
            )
        raise PasswordRequired(f"{self.path} is encrypted. Give its password (--password) to add it.", path=self.path)

    def pages(self, start: int = 1) -> Iterator[PageText]:
        """Yield pages from ``start`` (1-based). A page that fails to parse has ``error`` set."""
        for number in range(start, self.page_count + 1):
            with _PypdfErrors() as logged:
                try:
                    page = self._reader.pages[number - 1]
                    text = page.extract_text() or ""
                    error = None
                except Exception as exc:  # a broken page must not stop the others
                    text, error = "", error_cause(exc, 160)
            if error is None and not text.strip() and logged.messages:
                # pypdf logs (rather than raises) some damage, e.g. a stream that fails to inflate.
                error = shorten_message(logged.messages[0], 160)
            yield PageText(number=number, text=text, error=error)
            # pypdf caches parsed page objects; drop them so memory stays bounded on long files.
            self._forget_page(number - 1)

    def _forget_page(self, index: int) -> None:
        try:
            flattened = getattr(self._reader, "flattened_pages", None)
            if flattened is not None and index < len(flattened):
                obj = flattened[index]
                ref = getattr(obj, "indirect_reference", None)
                cache = getattr(self._reader, "resolved_objects", None)
                if ref is not None and isinstance(cache, dict):
                    cache.pop((ref.generation, ref.idnum), None)
        except Exception:  # best effort only
            pass


def _quiet_pypdf() -> None:
    """pypdf logs recoverable damage as warnings; we report our own summary instead."""
    logger = logging.getLogger("pypdf")
    if not logger.handlers:
        logger.addHandler(logging.NullHandler())
    logger.propagate = False
    logger.setLevel(logging.WARNING)


class _PypdfErrors(logging.Handler):
    """Collects the problems pypdf logs while one page is read."""

    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())

    def __enter__(self) -> _PypdfErrors:
        logging.getLogger("pypdf").addHandler(self)
        return self

    def __exit__(self, *exc: object) -> None:
        logging.getLogger("pypdf").removeHandler(self)


def has_text(text: str) -> bool:
    return sum(ch.isalnum() for ch in text) >= MIN_TEXT_CHARS

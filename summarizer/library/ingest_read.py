"""The reading step of ingest: a PDF's or Word document's pages written into the library.

Pages are written a few at a time, each batch in its own transaction with the document's
``pages_done``, so a process killed mid-document resumes from the last page stored. A PDF's pages
of figures are read again row by row (``reading.table_pages``) as they go by; a Word document's
"pages" are its paragraphs and table rows, and what Word shows of them, its tracked changes and
comments are written beside (``word_parts``) when the last page is in.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from inference.cancel import Cancelled, CancelToken
from inference.errors import PagewiseError, shorten_message
from inference.progress import Progress, ProgressCallback, Stage
from summarizer.errors import DocumentError, PasswordRequired
from summarizer.library.reading.docx_extract import DocxPages
from summarizer.library.reading.file_type import WORD, sniff
from summarizer.library.reading.pdf_extract import PageText, PdfPages
from summarizer.library.reading.table_pages import TablePages
from summarizer.library.storage.store import Library, now_iso, transaction
from summarizer.library.word_parts import save_word_parts

if TYPE_CHECKING:
    from summarizer.library.reading.page_render import PdfiumPages


class PageSource(Protocol):
    """What ingest reads a document from: an open PDF (``PdfPages``, ``PdfiumPages``), or for an
    evaluation the pages of a plain text (eval/score_validation.py)."""

    path: Path
    content_sha256: str
    page_count: int
    title: str

    def pages(self, start: int = 1) -> Iterator[PageText]: ...


PAGE_BATCH = 16  # pages written per transaction


def open_pdf(path: Path, password: str | None) -> PdfPages | PdfiumPages:
    """The PDF through pypdf, else (damaged in a way pypdf does not survive) through PDFium."""
    from summarizer.library.reading.page_render import PdfiumPages

    try:
        return PdfPages(path, password=password)
    except PasswordRequired:
        raise
    except DocumentError as error:
        if not path.is_file():
            raise
        try:
            return PdfiumPages(path, password)
        except (DocumentError, OSError):  # an unreadable file: pypdf's message says why (issue 46)
            raise error from None


def open_document(path: Path, password: str | None) -> PageSource:
    """The file at ``path`` opened for reading: a Word document (told by its first bytes, unless it is
    named .pdf) or a PDF. Any exception other than Pagewise's own while opening it becomes a
    DocumentError naming the file: a file crafted to break a reader is that file's error, and never
    stops a batch or its ``--resume``."""
    try:
        if path.suffix.lower() != ".pdf" and sniff(path) == WORD:
            return DocxPages(path)
        return open_pdf(path, password)
    except (PagewiseError, Cancelled):
        raise
    except Exception as error:  # RecursionError, MemoryError, a reader's own bug...
        raise DocumentError(
            f"{path} could not be read: Pagewise failed on it ({type(error).__name__}: "
            f"{shorten_message(str(error), 200)}). The file may be damaged or made to break readers; open it "
            "in its program and save it again, or export it as PDF. If it is a genuine document, please report "
            "this as a bug.",
            path=path,
        ) from error


def store_pages(
    library: Library,
    doc_id: str,
    pdf: PageSource,
    done: int,
    password: str | None,
    progress: ProgressCallback,
    cancel: CancelToken,
) -> None:
    """Write the pages of ``pdf`` after the first ``done`` (those already stored), then move the
    document to ``chunking``."""
    db = library.db
    total = pdf.page_count
    started = time.monotonic()
    batch: list[tuple[str, int, str, str | None]] = []

    def commit() -> None:
        with transaction(db):
            db.conn.executemany("INSERT OR REPLACE INTO pages (doc_id, page, text, error) VALUES (?, ?, ?, ?)", batch)
            db.execute(
                "UPDATE documents SET pages_done = ?, updated_at = ? WHERE doc_id = ?",
                [batch[-1][1], now_iso(), doc_id],
            )
        batch.clear()

    tables = TablePages(pdf.path, password) if isinstance(pdf, PdfPages) else None
    with contextlib.ExitStack() as stack:
        if tables is not None:
            stack.enter_context(tables)
        for page in pdf.pages(start=done + 1):
            cancel.raise_if_cancelled()
            if tables is not None:
                page = tables.read(page)
            batch.append((doc_id, page.number, page.text, page.error))
            if len(batch) >= PAGE_BATCH:
                commit()
            elapsed = time.monotonic() - started
            count = page.number - done
            progress(
                Progress(Stage.READ_PAGES, page.number, total, pdf.path.name, count / elapsed if elapsed else None)
            )
    if batch:
        commit()
    with transaction(db):
        if isinstance(pdf, DocxPages):
            save_word_parts(library, doc_id, pdf.document)
            db.execute(
                "UPDATE documents SET warnings = ? WHERE doc_id = ?", [json.dumps(pdf.document.warnings), doc_id]
            )
        db.execute("UPDATE documents SET state = 'chunking' WHERE doc_id = ?", [doc_id])

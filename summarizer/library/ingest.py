"""Adding a PDF or a Word document to the library: extract → passages → embeddings → vector index.

A Word document is read by ``summarizer.library.reading.docx_extract`` as one "page" per paragraph
or table row, so its passages' page ranges are paragraph ranges; what Word shows of each paragraph
(its number, page) and its tracked changes and comments are kept beside (``summarizer.library.word_parts``).

Every step commits in small transactions and records how far it got in the document's
``state``, so a process killed at any moment leaves a consistent library, and running the
same ingest again resumes where it stopped (no duplicates, no gaps).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from inference.cancel import NEVER_CANCELLED, CancelToken
from inference.errors import ModelError
from inference.progress import Progress, ProgressCallback, Stage, no_progress
from summarizer.errors import DocumentError, PasswordRequired
from summarizer.library.cutting.clause_units import document_clauses
from summarizer.library.cutting.passages import (
    DEFAULT_MAX_CHARS,
    DEFAULT_MAX_TOKENS,
    DEFAULT_OVERLAP_TOKENS,
    split_passages,
)
from summarizer.library.reading.document_kind import FILING, document_kind
from summarizer.library.reading.docx_extract import DocxPages
from summarizer.library.reading.file_type import PDF, WORD, check_size, sniff
from summarizer.library.reading.page_furniture import without_furniture
from summarizer.library.reading.page_status import final_status, page_warnings
from summarizer.library.reading.pdf_extract import PageText, PdfPages
from summarizer.library.reading.table_pages import TablePages, reread_table_pages
from summarizer.library.storage.disk_space import space_error
from summarizer.library.storage.store import PASSAGE_FORMAT, DocumentRecord, Library, now_iso, transaction
from summarizer.library.vectors.embed_passages import embed_missing, keep_words_only
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


@dataclass(frozen=True, slots=True)
class IngestOptions:
    password: str | None = None
    max_tokens: int = DEFAULT_MAX_TOKENS
    max_chars: int = DEFAULT_MAX_CHARS
    overlap_tokens: int | None = None  # default: DEFAULT_OVERLAP_TOKENS, at most a quarter of a passage
    embedding_model: str | None = None  # the configured model: only a library with no vectors takes it
    embed: bool = True
    # Scanned pages: "auto" reads by OCR the pages without usable text that draw an image (or
    # whose text is garbage); "always" also re-reads pages with text that draw an image; "never"
    # leaves them (summarizer/library/reading/ocr_pages.py).
    ocr: str = "auto"
    ocr_threads: int = field(default_factory=lambda: max(1, min(8, os.cpu_count() or 2)))
    # The document's kind (summarizer.library.reading.document_kind), instead of deciding it from the
    # text: how docs/retrieval.md measures a wrong kind against the generic path.
    kind: str | None = None
    # Write the vector index's file after the document (False: only this process's index grows;
    # a batch writes the file once at its end, summarizer/library/batches/run_batch.py).
    save_index: bool = True

    @property
    def overlap(self) -> int:
        if self.overlap_tokens is not None:
            return self.overlap_tokens
        return min(DEFAULT_OVERLAP_TOKENS, self.max_tokens // 4)


@dataclass(slots=True)
class IngestResult:
    doc_id: str
    content_sha256: str
    title: str
    pages: int
    passages: int
    status: str  # indexed | unchanged | needs_ocr | partial
    warnings: list[str] = field(default_factory=list)
    path: str = ""
    file_type: str = "pdf"  # pdf | docx: a Word document's pages are its paragraphs
    tracked_changes: int = 0
    comments: int = 0

    @classmethod
    def of(cls, record: DocumentRecord, status: str | None = None) -> IngestResult:
        """The result for a library record, with its own status unless another is given."""
        return cls(
            record.doc_id,
            record.content_sha256,
            record.title,
            record.pages,
            record.passages,
            status or record.status,
            [] if status else record.warnings,
            record.path,
            record.file_type,
            record.tracked_changes,
            record.comments,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "doc_id": self.doc_id,
            "content_sha256": self.content_sha256,
            "title": self.title,
            "pages": self.pages,
            "passages": self.passages,
            "status": self.status,
            "warnings": list(self.warnings),
            "file_type": self.file_type,
            "tracked_changes": self.tracked_changes,
            "comments": self.comments,
        }


def _same_file(stored: str, path: Path) -> bool:
    try:
        return os.path.samefile(stored, path)
    except OSError:  # the stored copy moved away: compare the names
        return os.path.realpath(stored) == os.path.realpath(path)


def _new_doc_id(library: Library, sha256: str) -> str:
    for length in (12, 16, 24, 64):
        candidate = sha256[:length]
        if library.db.execute("SELECT 1 FROM documents WHERE doc_id = ?", [candidate]).fetchone() is None:
            return candidate
    return hashlib.sha256(sha256.encode() + now_iso().encode()).hexdigest()[:16]


class Ingestor:
    def __init__(
        self,
        library: Library,
        options: IngestOptions | None = None,
        progress: ProgressCallback = no_progress,
        cancel: CancelToken = NEVER_CANCELLED,
    ) -> None:
        self.library = library
        self.options = options or IngestOptions()
        self.progress = progress
        self.cancel = cancel
        self.db = library.db

    # --- entry point ----------------------------------------------------------------
    def ingest(self, path: Path) -> IngestResult:
        try:
            return self._ingest(path)
        except (sqlite3.DatabaseError, OSError) as error:
            # Each step is committed: a write that failed for want of space loses nothing, and
            # the same ingest again continues where it stopped.
            if full := space_error(error, self.library.path.parent, f"(add {Path(path).name} again to finish it)"):
                raise full from None
            raise

    def _ingest(self, path: Path) -> IngestResult:
        path = Path(path).expanduser()
        with contextlib.suppress(OSError):
            path = path.resolve()
        check_size(path)
        # A .pdf goes to the PDF readers, whose messages say what is wrong with a PDF; any other name
        # is told by its first bytes (raising DocumentError for what Pagewise cannot read).
        if path.suffix.lower() != ".pdf" and sniff(path) == WORD:
            return self.ingest_pages(DocxPages(path), path)
        pdf = _open_pdf(path, self.options.password)
        result = self.ingest_pages(pdf, path)
        if path.suffix.lower() != ".pdf":
            result.warnings.append(f"{path.name} is a PDF despite its name, so it was read as the PDF it is")
        return result

    def ingest_pages(self, pdf: PageSource, path: Path) -> IngestResult:
        """Ingest an open page source stored under ``path`` (``ingest`` opens the PDF at ``path``)."""
        sha = pdf.content_sha256
        existing = self.library.find(sha256=sha)
        if existing is not None and existing.state == "ready":
            if existing.needs_reindex:
                return self.recut(existing.doc_id)  # cut by an older Pagewise: never left so
            result = IngestResult.of(existing, "unchanged")
            if not _same_file(existing.path, path):
                result.warnings.append(
                    f"it is the same file as {Path(existing.path).name}, already in the library, so it was not "
                    "added a second time"
                )
            return result
        record = existing or self.library.find(path=str(path))
        doc_id = self._start(record, pdf, path, WORD if isinstance(pdf, DocxPages) else PDF)
        self._extract(doc_id, pdf)
        self._recognize(doc_id, path)
        self._chunk(doc_id)
        if self.options.embed:
            self._embed(doc_id)
        self._finish(doc_id)
        return IngestResult.of(self.library.document(doc_id))

    # --- steps ----------------------------------------------------------------------
    def _start(self, record: DocumentRecord | None, pdf: PageSource, path: Path, file_type: str = PDF) -> str:
        """Create the document row, or reset a changed one; keep an unfinished one as it is."""
        now = now_iso()
        sha = pdf.content_sha256
        if record is not None and record.content_sha256 == sha:
            return record.doc_id  # an interrupted ingest of this very file: resume it
        with transaction(self.db):
            if record is None:
                doc_id = _new_doc_id(self.library, sha)
                self.db.execute(
                    "INSERT INTO documents (doc_id, path, title, pages, content_sha256, status, state, "
                    "pages_done, added_at, updated_at, file_type) "
                    "VALUES (?, ?, ?, ?, ?, 'indexing', 'extracting', 0, ?, ?, ?)",
                    [doc_id, str(path), pdf.title, pdf.page_count, sha, now, now, file_type],
                )
            else:
                # A changed version of a file we have: re-index it under the same doc_id.
                doc_id = record.doc_id
                self.db.execute("DELETE FROM passages WHERE doc_id = ?", [doc_id])
                self.db.execute("DELETE FROM pages WHERE doc_id = ?", [doc_id])
                self.db.execute(
                    "UPDATE documents SET path = ?, title = ?, pages = ?, content_sha256 = ?, "
                    "status = 'indexing', state = 'extracting', pages_done = 0, warnings = '[]', "
                    "ocr_pages = '[]', bad_pages = '[]', file_type = ?, updated_at = ? WHERE doc_id = ?",
                    [str(path), pdf.title, pdf.page_count, sha, file_type, now, doc_id],
                )
        return doc_id

    def _state(self, doc_id: str) -> tuple[str, int]:
        row = self.db.execute("SELECT state, pages_done FROM documents WHERE doc_id = ?", [doc_id]).fetchone()
        return str(row[0]), int(row[1])

    def _extract(self, doc_id: str, pdf: PageSource) -> None:
        state, done = self._state(doc_id)
        if state != "extracting":
            return
        total = pdf.page_count
        started = time.monotonic()
        batch: list[tuple[str, int, str, str | None]] = []

        def commit() -> None:
            with transaction(self.db):
                self.db.conn.executemany(
                    "INSERT OR REPLACE INTO pages (doc_id, page, text, error) VALUES (?, ?, ?, ?)", batch
                )
                self.db.execute(
                    "UPDATE documents SET pages_done = ?, updated_at = ? WHERE doc_id = ?",
                    [batch[-1][1], now_iso(), doc_id],
                )
            batch.clear()

        tables = TablePages(pdf.path, self.options.password) if isinstance(pdf, PdfPages) else None
        with contextlib.ExitStack() as stack:
            if tables is not None:
                stack.enter_context(tables)
            for page in pdf.pages(start=done + 1):
                self.cancel.raise_if_cancelled()
                if tables is not None:
                    page = tables.read(page)
                batch.append((doc_id, page.number, page.text, page.error))
                if len(batch) >= PAGE_BATCH:
                    commit()
                elapsed = time.monotonic() - started
                count = page.number - done
                self.progress(
                    Progress(Stage.READ_PAGES, page.number, total, pdf.path.name, count / elapsed if elapsed else None)
                )
        if batch:
            commit()
        with transaction(self.db):
            if isinstance(pdf, DocxPages):
                save_word_parts(self.library, doc_id, pdf.document)
                self.db.execute(
                    "UPDATE documents SET warnings = ? WHERE doc_id = ?", [json.dumps(pdf.document.warnings), doc_id]
                )
            self.db.execute("UPDATE documents SET state = 'chunking' WHERE doc_id = ?", [doc_id])

    def _recognize(self, doc_id: str, path: Path, only_pages: set[int] | None = None) -> None:
        """OCR of the document's scanned pages (resumable: pages already read are skipped)."""
        from summarizer.library.reading.ocr_pages import recognize_pages

        state, _ = self._state(doc_id)
        if state != "chunking" or self.options.ocr == "never" or self._file_type(doc_id) == WORD:
            return
        recognize_pages(
            self.library,
            doc_id,
            path,
            mode=self.options.ocr,
            password=self.options.password,
            threads=self.options.ocr_threads,
            progress=self.progress,
            cancel=self.cancel,
            only_pages=only_pages,
        )

    def _pages(self, doc_id: str) -> Iterator[tuple[int, str]]:
        cursor = self.db.conn.execute(
            "SELECT page, text FROM pages WHERE doc_id = ? AND error IS NULL ORDER BY page", [doc_id]
        )
        while rows := cursor.fetchmany(64):
            yield from ((int(r[0]), str(r[1])) for r in rows)

    def _chunk(self, doc_id: str) -> None:
        from summarizer.library.vectors.chunk_tokenizer import chunk_tokenizer

        state, _ = self._state(doc_id)
        if state != "chunking":
            return
        self.progress(Progress(Stage.CUT_PASSAGES, 0, None))
        tokenizer = chunk_tokenizer(self.library.embedding_model or self.options.embedding_model)
        pages = list(self._pages(doc_id))  # page texts of one document; passages stream below
        from summarizer.library.reading.ocr_pages import ocr_warnings, outcome, usable_text

        if self._file_type(doc_id) == WORD:
            self._chunk_word(doc_id, pages, tokenizer)
            return
        read = outcome(self.library, doc_id)
        no_text = [n for n, text in pages if not usable_text(text) and n not in read.read]
        if len(no_text) < len(pages):
            # A page with little or no text that draws no image ("Date:", a blank separator)
            # is not a scan; a document with no text anywhere still needs OCR, however drawn.
            no_text = [n for n in no_text if n not in read.not_scans]
        ocr_pages = no_text
        bad_pages = [
            int(r[0])
            for r in self.db.execute("SELECT page FROM pages WHERE doc_id = ? AND error IS NOT NULL", [doc_id])
        ]
        total = int(self.db.execute("SELECT pages FROM documents WHERE doc_id = ?", [doc_id]).fetchone()[0])
        warnings = [*page_warnings(total, ocr_pages, bad_pages, read.not_scans), *ocr_warnings(read)]
        readable = [(n, t) for n, t in pages if usable_text(t)]
        kind = self.options.kind or document_kind(t for _, t in readable)
        if kind == FILING:
            readable = without_furniture(readable)  # running headers and footers stay out of passages
        self._store_passages(doc_id, readable, tokenizer, kind, warnings, ocr_pages, bad_pages)

    def _chunk_word(self, doc_id: str, pages: list[tuple[int, str]], tokenizer: Any) -> None:
        """A Word document's paragraphs are its pages: each has text (none is a scan to OCR), and its
        headers and footers were kept apart when it was read."""
        stored = self.db.execute("SELECT warnings FROM documents WHERE doc_id = ?", [doc_id]).fetchone()
        warnings = [w for w in json.loads(stored[0] or "[]") if isinstance(w, str)]
        readable = [(n, t) for n, t in pages if t.strip()]
        kind = self.options.kind or document_kind(_page_sized(t for _, t in readable))
        self._store_passages(doc_id, readable, tokenizer, kind, warnings, [], [])

    def _store_passages(
        self,
        doc_id: str,
        readable: list[tuple[int, str]],
        tokenizer: Any,
        kind: str,
        warnings: list[str],
        ocr_pages: list[int],
        bad_pages: list[int],
    ) -> None:
        rows = [
            (
                p.seq,
                p.text,
                p.search_text,
                json.dumps([[s.page, s.start, s.end] for s in p.spans]),
                p.page_start,
                p.page_end,
                p.n_tokens,
                p.heading,
            )
            for p in split_passages(
                readable,
                tokenizer,
                max_tokens=self.options.max_tokens,
                max_chars=self.options.max_chars,
                overlap_tokens=self.options.overlap,
                kind=kind,
            )
        ]
        clause_rows = [
            (
                doc_id,
                c.index,
                c.label,
                ".".join(c.number),
                c.title,
                json.dumps(list(c.path)),
                c.page_start,
                c.start,
                c.page_end,
                c.end,
                c.text,
            )
            for c in document_clauses(readable)
        ]
        with transaction(self.db):
            self.db.execute("DELETE FROM clauses WHERE doc_id = ?", [doc_id])
            self.db.conn.executemany(
                'INSERT INTO clauses (doc_id, seq, label, number, title, path, page_start, start, page_end, "end", '
                "text) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                clause_rows,
            )
            if rows != self._stored_passages(doc_id):
                # The same passages are kept as they are (with their ids, vectors and the
                # summaries made of them): an upgrade that cuts a document alike costs nothing.
                self.db.execute("DELETE FROM passages WHERE doc_id = ?", [doc_id])
                self.db.conn.executemany(
                    "INSERT INTO passages (doc_id, seq, text, search_text, spans, page_start, page_end, n_tokens, "
                    "heading) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [(doc_id, *row) for row in rows],
                )
            self.db.execute(
                "UPDATE documents SET state = 'embedding', warnings = ?, ocr_pages = ?, "
                "bad_pages = ?, chunk_tokenizer = ?, chunk_max_tokens = ?, chunk_overlap = ?, passage_format = ?, "
                "kind = ?, updated_at = ? WHERE doc_id = ?",
                [
                    json.dumps(warnings),
                    json.dumps(ocr_pages),
                    json.dumps(bad_pages),
                    tokenizer.name,
                    self.options.max_tokens,
                    self.options.overlap,
                    PASSAGE_FORMAT,
                    kind,
                    now_iso(),
                    doc_id,
                ],
            )

    def _file_type(self, doc_id: str) -> str:
        row = self.db.execute("SELECT file_type FROM documents WHERE doc_id = ?", [doc_id]).fetchone()
        return str(row[0]) if row is not None else PDF

    def _stored_passages(self, doc_id: str) -> list[tuple[Any, ...]]:
        return [
            tuple(r)
            for r in self.db.execute(
                "SELECT seq, text, search_text, spans, page_start, page_end, n_tokens, heading FROM passages "
                "WHERE doc_id = ? ORDER BY seq",
                [doc_id],
            ).fetchall()
        ]

    def recut(self, doc_id: str) -> IngestResult:
        """Cut a document's passages again from its stored pages, embed and index them.

        Resumable: the document's ``state`` records the step (``chunking`` → ``embedding`` →
        ``ready``), and a later call, or ``pagewise ingest`` of the same file, finishes the job.
        A document whose pages were never all read is left as it is (ingest the file again).
        """
        state, _ = self._state(doc_id)
        if state == "extracting":
            return IngestResult.of(self.library.document(doc_id))
        reread_table_pages(self.library, doc_id, self.options.password)
        if state == "ready":
            self.cancel.raise_if_cancelled()
            with transaction(self.db):
                self.db.execute(
                    "UPDATE documents SET state = 'chunking', updated_at = ? WHERE doc_id = ?", [now_iso(), doc_id]
                )
        self._chunk(doc_id)
        if self.options.embed:
            self._embed(doc_id)
        self._finish(doc_id)
        return IngestResult.of(self.library.document(doc_id))

    def read_scanned(self, doc_id: str) -> IngestResult:
        """OCR of a stored document's pages that need it (added before OCR, or with ``--ocr
        never``), then its passages cut again. Only those pages of the PDF are read again; the
        file must still be where it was added, unchanged."""
        from summarizer.library.reading.pdf_extract import file_sha256

        record = self.library.document(doc_id)
        if record.state != "ready" or not record.ocr_pages:
            return IngestResult.of(record)
        path = Path(record.path)
        if not path.is_file():
            raise DocumentError(
                f"{path} is no longer there, so its scanned pages cannot be read: add the file again "
                "(pagewise ingest) from where it is now.",
                path=path,
            )
        if file_sha256(path) != record.content_sha256:
            raise DocumentError(
                f"{path} has changed since it was added: add it again (pagewise ingest) to read it whole.", path=path
            )
        with transaction(self.db):
            self.db.execute(
                "UPDATE documents SET state = 'chunking', updated_at = ? WHERE doc_id = ?", [now_iso(), doc_id]
            )
        self._recognize(doc_id, path, only_pages=set(record.ocr_pages))
        return self.recut(doc_id)

    def _embed(self, doc_id: str) -> None:
        try:
            embed_missing(self.library, [doc_id], self.options.embedding_model, self.progress, self.cancel)
        except ModelError as error:  # the model cannot be loaded: kept, searchable by words, and its warnings say so
            keep_words_only(self.library, doc_id, error)

    def _finish(self, doc_id: str) -> None:
        from summarizer.library.vectors.vector_index import refresh_index

        state, _ = self._state(doc_id)
        if state == "embedding":
            record = self.library.document(doc_id)
            status = final_status(record.pages, record.ocr_pages, record.bad_pages)
            with transaction(self.db):
                self.db.execute(
                    "UPDATE documents SET state = 'ready', status = ?, updated_at = ? WHERE doc_id = ?",
                    [status, now_iso(), doc_id],
                )
        if self.options.embed:
            self.progress(Progress(Stage.UPDATE_INDEX, 0, None))
            refresh_index(self.library, save=self.options.save_index)


WORDS_PER_PAGE = 400


def _page_sized(paragraphs: Iterable[str]) -> Iterator[str]:
    """A Word document's paragraphs joined into runs of about a printed page's words: the kind is
    decided from pages (its first 60, counting signals such as pages of numbers), and 60 paragraphs
    of a cover page's table rows would make a contract look like a financial report."""
    run: list[str] = []
    words = 0
    for text in paragraphs:
        run.append(text)
        words += len(text.split())
        if words >= WORDS_PER_PAGE:
            yield "\n".join(run)
            run, words = [], 0
    if run:
        yield "\n".join(run)


def _open_pdf(path: Path, password: str | None) -> PdfPages | PdfiumPages:
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


def ingest_path(
    library: Library,
    path: Path,
    options: IngestOptions | None = None,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken = NEVER_CANCELLED,
) -> IngestResult:
    return Ingestor(library, options, progress, cancel).ingest(path)


__all__ = ["DocumentError", "IngestOptions", "IngestResult", "PageSource", "ingest_path"]

"""The document library: one SQLite database (WAL) opened through sqlite-utils."""

from __future__ import annotations

import datetime as dt
import json
import logging
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlite_utils

from summarizer.errors import DocumentNotFound, LibraryError
from summarizer.library.storage.disk_space import space_error
from summarizer.library.storage.metadata_text import clean_metadata_text
from summarizer.library.storage.paths import library_path
from summarizer.library.storage.private_files import private_file
from summarizer.library.storage.schema import SCHEMA_VERSION, applied_version, migrate, transaction
from summarizer.library.storage.unpacked_copies import discard_unpacked_copy

__all__ = ["PASSAGE_FORMAT", "DocumentRecord", "Library", "now_iso", "transaction"]

# How a document's passages were cut, recorded with it. Bump when the cut (``summarizer.library.cutting.passages``)
# changes: documents cut by an older format are re-cut by ``summarizer.library.reindex``. 1: paragraphs
# and sentences, 200 word pieces. 2: whole clauses with their heading path, up to DEFAULT_MAX_TOKENS.
# 3: cut by the document's kind (a filing by its Parts, Items, Notes and statements, without its
# running headers and footers). 4: every clause kept as a unit too (the ``clauses`` table, for
# comparing versions). 5: a PDF contract's clauses without its running headers, footers and page
# numbers (``clause_units.pdf_clauses``). Kept here, not with the cutter, so the store imports nothing from it.
PASSAGE_FORMAT = 5


# The start of the warning of a document kept without vectors (summarizer.library.vectors.embed_passages).
WORDS_ONLY = "searchable by words only"


def now_iso() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


@dataclass(frozen=True, slots=True)
class DocumentRecord:
    doc_id: str
    path: str
    title: str
    pages: int
    passages: int
    content_sha256: str
    status: str
    state: str
    warnings: list[str]
    ocr_pages: list[int]
    bad_pages: list[int]
    passage_format: int = 1
    kind: str | None = None  # summarizer.library.reading.document_kind; None until its passages are cut
    file_type: str = "pdf"  # pdf | docx (summarizer.library.reading.file_type)
    # A Word document's tracked changes and comments (word_changes, word_comments); 0 for a PDF.
    tracked_changes: int = 0
    comments: int = 0
    # Its folder inside the folder or .zip it was added with ("" when added on its own).
    folder: str = ""
    # Its passages without a vector (the embedding model could not be loaded when it was added).
    unembedded: int = 0

    @property
    def needs_reindex(self) -> bool:
        """Its passages were cut by an older Pagewise (or a re-cut was interrupted)."""
        return self.passage_format < PASSAGE_FORMAT or self.state in ("chunking", "embedding")

    @property
    def words_only(self) -> bool:
        """Searchable by words only: it was kept without vectors when the embedding model could not
        be loaded, and says why in its warnings (``embed_passages.WORDS_ONLY``)."""
        return self.state == "ready" and self.unembedded > 0 and any(w.startswith(WORDS_ONLY) for w in self.warnings)

    def to_json(self) -> dict[str, Any]:
        return {
            "doc_id": self.doc_id,
            "title": self.title,
            "pages": self.pages,
            "passages": self.passages,
            "status": self.status,
            "path": self.path,
            "needs_reindex": self.needs_reindex,
            "kind": self.kind,
            "file_type": self.file_type,
            "tracked_changes": self.tracked_changes,
            "comments": self.comments,
            "folder": self.folder,
            "words_only": self.words_only,
        }


_DOC_COLUMNS = (
    "d.doc_id, d.path, d.title, d.pages, "
    "(SELECT COUNT(*) FROM passages p WHERE p.doc_id = d.doc_id), "
    "d.content_sha256, d.status, d.state, d.warnings, d.ocr_pages, d.bad_pages, d.passage_format, d.kind, "
    "d.file_type, (SELECT COUNT(*) FROM word_changes c WHERE c.doc_id = d.doc_id), "
    "(SELECT COUNT(*) FROM word_comments m WHERE m.doc_id = d.doc_id), d.folder, "
    "(SELECT COUNT(*) FROM passages p WHERE p.doc_id = d.doc_id AND NOT EXISTS "
    "(SELECT 1 FROM embeddings e WHERE e.passage_id = p.passage_id))"
)


def _record(row: tuple[Any, ...]) -> DocumentRecord:
    return DocumentRecord(
        doc_id=row[0],
        path=row[1],
        title=clean_metadata_text(row[2]),  # a library written before the cleaning may hold a NUL
        pages=row[3],
        passages=row[4],
        content_sha256=row[5],
        status=row[6],
        state=row[7],
        warnings=json.loads(row[8]),
        ocr_pages=json.loads(row[9]),
        bad_pages=json.loads(row[10]),
        passage_format=int(row[11]),
        kind=row[12],
        file_type=str(row[13] or "pdf"),
        tracked_changes=int(row[14]),
        comments=int(row[15]),
        folder=str(row[16] or ""),
        unembedded=int(row[17]),
    )


class Library:
    """An open library database. Use ``Library.open()``; close it when done."""

    def __init__(self, db: sqlite_utils.Database, path: Path) -> None:
        self.db = db
        self.path = path
        # The copy taken before this open migrated the file (``pagewise`` says so once).
        self.migration_backup: Path | None = None

    @classmethod
    def open(cls, path: Path | None = None) -> Library:
        path = path or library_path()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(str(path), isolation_level=None, timeout=30, check_same_thread=False)
            private_file(path)  # before WAL: SQLite gives its -wal and -shm files the database's mode
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA foreign_keys=ON")
            conn.execute("PRAGMA busy_timeout=30000")
            db = sqlite_utils.Database(conn)
            version = applied_version(db)
            if version > SCHEMA_VERSION:
                raise LibraryError(
                    f"The library {path} was written by a newer Pagewise (schema {version}). "
                    "Update Pagewise to open it.",
                    path=path,
                )
            migrated = migrate(db, path)
        except sqlite3.DatabaseError as error:
            if full := space_error(error, path.parent):
                raise full from None
            raise LibraryError(
                f"The library {path} cannot be opened ({error}). If it is damaged, move it away "
                "and add your documents again.",
                path=path,
            ) from None
        except OSError as error:
            if full := space_error(error, path.parent):
                raise full from None
            raise LibraryError(f"The library folder {path.parent} is not writable ({error}).", path=path) from None
        library = cls(db, path)
        library.migration_backup = migrated.backup
        if migrated.backup is not None:
            logging.getLogger("pagewise").warning(
                "The library was updated to a new format; the previous version is kept in %s.", migrated.backup
            )
        return library

    def close(self) -> None:
        self.db.conn.close()

    def __enter__(self) -> Library:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- meta -------------------------------------------------------------------------
    def meta(self, key: str, default: str | None = None) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", [key]).fetchone()
        return str(row[0]) if row else default

    def set_meta(self, key: str, value: str) -> None:
        self.db.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            [key, value],
        )

    def embeddings_generation(self) -> int:
        return int(self.meta("embeddings_generation", "0") or 0)

    @property
    def embedding_model(self) -> str | None:
        """The model of the library's vectors: set at the first embedding, changed only by a
        finished re-embed (``summarizer.library.vectors.reembed``). None before anything is embedded."""
        return self.meta("embedding_model")

    # --- documents --------------------------------------------------------------------
    def documents(self) -> list[DocumentRecord]:
        rows = self.db.execute(f"SELECT {_DOC_COLUMNS} FROM documents d ORDER BY d.added_at, d.doc_id")
        return [_record(r) for r in rows.fetchall()]

    def has_documents(self) -> bool:
        """Whether the library holds any document (without reading them: the GUI thread asks)."""
        return self.db.execute("SELECT 1 FROM documents LIMIT 1").fetchone() is not None

    def reviewable_ids(self) -> list[str]:
        """The documents added completely, with some passage, in the library's order: what a review
        takes, without reading their records (the GUI thread asks; 449 records take ~0.1 s)."""
        rows = self.db.execute(
            "SELECT d.doc_id FROM documents d WHERE d.state = 'ready' AND EXISTS "
            "(SELECT 1 FROM passages p WHERE p.doc_id = d.doc_id) ORDER BY d.added_at, d.doc_id"
        )
        return [str(row[0]) for row in rows.fetchall()]

    def document(self, doc_id: str) -> DocumentRecord:
        row = self.db.execute(f"SELECT {_DOC_COLUMNS} FROM documents d WHERE d.doc_id = ?", [doc_id]).fetchone()
        if row is None:
            raise DocumentNotFound(f"No document {doc_id!r} in the library. `pagewise list` shows the ids.")
        return _record(row)

    def find(self, *, sha256: str | None = None, path: str | None = None) -> DocumentRecord | None:
        if sha256 is not None:
            where, arg = "d.content_sha256 = ?", sha256
        elif path is not None:
            where, arg = "d.path = ?", path
        else:
            raise ValueError("give sha256 or path")
        row = self.db.execute(
            f"SELECT {_DOC_COLUMNS} FROM documents d WHERE {where} ORDER BY d.state = 'ready' DESC LIMIT 1",
            [arg],
        ).fetchone()
        return _record(row) if row else None

    def remove(self, doc_id: str) -> DocumentRecord:
        """Remove a document and everything derived from it (pages, passages, vectors...)."""
        record = self.document(doc_id)
        with transaction(self.db):
            self.db.execute("DELETE FROM documents WHERE doc_id = ?", [doc_id])
        discard_unpacked_copy(self.path.parent, Path(record.path))  # a data room's copy goes with it
        return record

    def page_text(self, doc_id: str, page: int) -> str:
        text = self.page_text_if_any(doc_id, page)
        if text is None:
            raise DocumentNotFound(f"Document {doc_id} has no page {page}.")
        return text

    def page_text_if_any(self, doc_id: str, page: int) -> str | None:
        """``page_text``, or None where the document has no such page (a viewer's lookup)."""
        if page < 1:
            return None
        row = self.db.execute("SELECT text FROM pages WHERE doc_id = ? AND page = ?", [doc_id, page]).fetchone()
        return str(row[0]) if row is not None else None

    def integrity_ok(self) -> bool:
        row = self.db.execute("PRAGMA integrity_check").fetchone()
        return bool(row and row[0] == "ok")

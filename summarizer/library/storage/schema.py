"""The library's schema: the migrations applied in order and recorded in the ``migrations`` table,
the copy of a library taken before migrating it, and the values stored in ``documents.kind``.

Each migration is a module of ``migrations`` (``vNN_what.py``); add one by writing the next module
and appending it to ``MIGRATIONS``, never edit one that has shipped. The list is written out rather
than found by listing the package, so the order is explicit and a frozen build holds every module.
"""

from __future__ import annotations

import datetime as dt
import os
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import sqlite_utils

from summarizer.library.storage.migrations.v01_initial import initial
from summarizer.library.storage.migrations.v02_summaries_and_conversations import summaries_and_conversations
from summarizer.library.storage.migrations.v03_clause_passages import clause_passages
from summarizer.library.storage.migrations.v04_review_results import review_results
from summarizer.library.storage.migrations.v05_staged_embeddings import staged_embeddings
from summarizer.library.storage.migrations.v06_page_ocr import page_ocr
from summarizer.library.storage.migrations.v07_document_kind import document_kind
from summarizer.library.storage.migrations.v08_word_documents import word_documents
from summarizer.library.storage.migrations.v09_clauses import clauses
from summarizer.library.storage.migrations.v10_saved_comparisons import saved_comparisons
from summarizer.library.storage.migrations.v11_data_rooms import data_rooms

# The values of ``documents.kind``: summarizer.library.reading.document_kind decides which a document is.
CONTRACT = "contract"
FILING = "filing"
OTHER = "other"
KINDS = (CONTRACT, FILING, OTHER)

Migration = Callable[[sqlite_utils.Database], None]


@contextmanager
def transaction(db: sqlite_utils.Database) -> Iterator[None]:
    """One write transaction (the connection runs in autocommit mode otherwise).

    sqlite-utils' own write helpers commit as they go, so writes that must be atomic use
    ``db.execute`` inside this block.
    """
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


MIGRATIONS: list[tuple[int, str, Migration]] = [
    (1, "documents, pages, passages with FTS5, embeddings, meta", initial),
    (2, "model file hashes, segments, summaries, conversation turns", summaries_and_conversations),
    (3, "passage headings (column and FTS field), documents' passage format", clause_passages),
    (4, "contract review results and reviewer corrections", review_results),
    (5, "the library's embedding model, staged vectors of a re-embed", staged_embeddings),
    (6, "OCR of scanned pages: text source, word boxes and confidence per page", page_ocr),
    (7, "documents' kind: contract, filing or other", document_kind),
    (8, "Word documents: file type, paragraphs' numbers and pages, tracked changes, comments", word_documents),
    (9, "clauses as units: number, heading path, span and text of every clause", clauses),
    (10, "comparisons of two versions saved from the window", saved_comparisons),
    (11, "data rooms: a document's folder, batches of files being added", data_rooms),
]

SCHEMA_VERSION = max(version for version, _, _ in MIGRATIONS)


def applied_version(db: sqlite_utils.Database) -> int:
    if "migrations" not in db.table_names():
        return 0
    row = db.execute("SELECT MAX(version) FROM migrations").fetchone()
    return int(row[0] or 0)


def _applied(db: sqlite_utils.Database) -> set[int]:
    return {int(r[0]) for r in db.execute("SELECT version FROM migrations")}


@dataclass(slots=True)
class Migrated:
    applied: list[int] = field(default_factory=list)
    backup: Path | None = None  # the copy of the library taken before migrating it


def backup_path(path: Path, version: int) -> Path:
    return path.with_name(f"{path.name}.bak-v{version}")


def _backup(db: sqlite_utils.Database, path: Path, version: int) -> Path | None:
    """Copy the library as it is now (SQLite's backup API: a consistent snapshot of a live,
    WAL-mode database) to ``<name>.bak-v<version>``. None when another process migrated it first."""
    target = backup_path(path, version)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    copy = sqlite3.connect(str(tmp))
    try:
        db.conn.backup(copy)
        copied = copy.execute("SELECT MAX(version) FROM migrations").fetchone()[0]
    except BaseException:
        copy.close()
        tmp.unlink(missing_ok=True)
        raise
    copy.close()
    if copied != version:
        tmp.unlink()
        return None
    os.replace(tmp, target)
    return target


def migrate(db: sqlite_utils.Database, path: Path | None = None) -> Migrated:
    """Apply the migrations not yet recorded, each in its own transaction.

    A library that has some migrations already (not a new, empty one) is first copied to
    ``<path>.bak-v<version>`` when ``path`` is given.
    """
    db.execute("CREATE TABLE IF NOT EXISTS migrations (version INTEGER PRIMARY KEY, name TEXT, applied_at TEXT)")
    result = Migrated()
    done = _applied(db)
    pending = [m for m in MIGRATIONS if m[0] not in done]
    if not pending:
        return result
    if path is not None and done:
        result.backup = _backup(db, path, applied_version(db))
    for version, name, apply in pending:
        with transaction(db):
            # Another process may have migrated while we waited for the lock.
            if version in _applied(db):
                continue
            apply(db)
            db.execute(
                "INSERT INTO migrations (version, name, applied_at) VALUES (?, ?, ?)",
                [version, name, dt.datetime.now(dt.UTC).isoformat(timespec="seconds")],
            )
        result.applied.append(version)
    return result

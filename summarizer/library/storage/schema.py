"""The library's schema, as ordered migrations recorded in the ``migrations`` table.

Add a migration by appending to ``MIGRATIONS``; never edit one that has shipped.
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


def _initial(db: sqlite_utils.Database) -> None:
    db.execute(
        """
        CREATE TABLE documents (
            doc_id TEXT PRIMARY KEY,
            path TEXT NOT NULL,
            title TEXT NOT NULL,
            pages INTEGER NOT NULL DEFAULT 0,
            content_sha256 TEXT NOT NULL,
            status TEXT NOT NULL,          -- indexing | indexed | needs_ocr | partial
            state TEXT NOT NULL,           -- extracting | chunking | embedding | ready
            pages_done INTEGER NOT NULL DEFAULT 0,
            warnings TEXT NOT NULL DEFAULT '[]',
            ocr_pages TEXT NOT NULL DEFAULT '[]',
            bad_pages TEXT NOT NULL DEFAULT '[]',
            chunk_tokenizer TEXT,
            chunk_max_tokens INTEGER,
            chunk_overlap INTEGER,
            added_at TEXT NOT NULL,
            updated_at TEXT NOT NULL
        )
        """
    )
    db.execute("CREATE INDEX documents_sha ON documents(content_sha256)")
    db.execute("CREATE INDEX documents_path ON documents(path)")
    db.execute(
        """
        CREATE TABLE pages (
            doc_id TEXT NOT NULL REFERENCES documents(doc_id) ON DELETE CASCADE,
            page INTEGER NOT NULL,
            text TEXT NOT NULL,
            error TEXT,
            PRIMARY KEY (doc_id, page)
        )
        """
    )
    # AUTOINCREMENT: a passage id is never reused, so a stale vector can never point at
    # another document's passage.
    db.execute(
        """
        CREATE TABLE passages (
            passage_id INTEGER PRIMARY KEY AUTOINCREMENT,
            doc_id TEXT NOT NULL REFERENCES documents(doc_id) ON DELETE CASCADE,
            seq INTEGER NOT NULL,
            text TEXT NOT NULL,
            search_text TEXT NOT NULL,
            spans TEXT NOT NULL,
            page_start INTEGER NOT NULL,
            page_end INTEGER NOT NULL,
            n_tokens INTEGER NOT NULL,
            UNIQUE (doc_id, seq)
        )
        """
    )
    # FTS5 over the normalized passage text, kept in step by triggers (the layout
    # sqlite-utils' enable_fts creates, written out so it runs inside this transaction).
    db.execute(
        "CREATE VIRTUAL TABLE passages_fts USING FTS5 "
        "(search_text, tokenize='porter unicode61 remove_diacritics 2', content='passages', "
        "content_rowid='passage_id')"
    )
    db.execute(
        """
        CREATE TRIGGER passages_ai AFTER INSERT ON passages BEGIN
            INSERT INTO passages_fts (rowid, search_text) VALUES (new.passage_id, new.search_text);
        END
        """
    )
    db.execute(
        """
        CREATE TRIGGER passages_ad AFTER DELETE ON passages BEGIN
            INSERT INTO passages_fts (passages_fts, rowid, search_text)
            VALUES ('delete', old.passage_id, old.search_text);
        END
        """
    )
    db.execute(
        """
        CREATE TRIGGER passages_au AFTER UPDATE ON passages BEGIN
            INSERT INTO passages_fts (passages_fts, rowid, search_text)
            VALUES ('delete', old.passage_id, old.search_text);
            INSERT INTO passages_fts (rowid, search_text) VALUES (new.passage_id, new.search_text);
        END
        """
    )
    db.execute(
        """
        CREATE TABLE embeddings (
            passage_id INTEGER PRIMARY KEY REFERENCES passages(passage_id) ON DELETE CASCADE,
            model TEXT NOT NULL,
            dim INTEGER NOT NULL,
            vector BLOB NOT NULL
        )
        """
    )
    db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    # Every change to the embeddings table bumps the generation; the FAISS file records the
    # generation it was built from and is rebuilt when they differ.
    db.execute("INSERT INTO meta (key, value) VALUES ('embeddings_generation', '0')")
    for event in ("INSERT", "DELETE"):
        db.execute(
            f"""
            CREATE TRIGGER embeddings_generation_{event.lower()} AFTER {event} ON embeddings
            BEGIN
                UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'embeddings_generation';
            END
            """
        )


def _summaries_and_conversations(db: sqlite_utils.Database) -> None:
    # sha256 of model files, so a multi-GB GGUF is hashed once per (path, size, mtime).
    db.execute(
        """
        CREATE TABLE model_files (
            path TEXT PRIMARY KEY,
            size INTEGER NOT NULL,
            mtime_ns INTEGER NOT NULL,
            sha256 TEXT NOT NULL
        )
        """
    )
    # Segments of consecutive passages, counted in one LLM tokenizer's tokens. ``source_key``
    # fingerprints the document's passages, so re-indexing the document drops these rows' use.
    db.execute(
        """
        CREATE TABLE segments (
            doc_id TEXT NOT NULL REFERENCES documents(doc_id) ON DELETE CASCADE,
            source_key TEXT NOT NULL,
            tokenizer TEXT NOT NULL,
            segment_tokens INTEGER NOT NULL,
            seq INTEGER NOT NULL,
            first_passage_seq INTEGER NOT NULL,
            last_passage_seq INTEGER NOT NULL,
            page_start INTEGER NOT NULL,
            page_end INTEGER NOT NULL,
            n_tokens INTEGER NOT NULL,
            PRIMARY KEY (doc_id, source_key, tokenizer, segment_tokens, seq)
        )
        """
    )
    # Segment summaries, intermediate reductions and super-summaries. ``summary_key`` hashes
    # everything the text depends on (document, input text, model file, prompt version, params).
    db.execute(
        """
        CREATE TABLE summaries (
            summary_key TEXT PRIMARY KEY,
            doc_id TEXT NOT NULL REFERENCES documents(doc_id) ON DELETE CASCADE,
            kind TEXT NOT NULL,            -- segment | reduce | super (the document's result)
            level INTEGER NOT NULL,
            page_start INTEGER NOT NULL,
            page_end INTEGER NOT NULL,
            model_sha256 TEXT NOT NULL,
            prompt_version INTEGER NOT NULL,
            params TEXT NOT NULL,
            text TEXT NOT NULL,
            prompt_tokens INTEGER NOT NULL DEFAULT 0,
            completion_tokens INTEGER NOT NULL DEFAULT 0,
            detail TEXT NOT NULL DEFAULT '{}', -- super: the summary keys of each level of its tree
            created_at TEXT NOT NULL
        )
        """
    )
    db.execute("CREATE INDEX summaries_doc ON summaries(doc_id, model_sha256, prompt_version)")
    # One conversation per document: its questions and answers (the answer as JSON).
    db.execute(
        """
        CREATE TABLE conversation_turns (
            turn_id INTEGER PRIMARY KEY AUTOINCREMENT,
            doc_id TEXT NOT NULL REFERENCES documents(doc_id) ON DELETE CASCADE,
            question TEXT NOT NULL,
            answer TEXT NOT NULL,
            answer_json TEXT NOT NULL,
            created_at TEXT NOT NULL
        )
        """
    )
    db.execute("CREATE INDEX conversation_turns_doc ON conversation_turns(doc_id, turn_id)")


def _clause_passages(db: sqlite_utils.Database) -> None:
    # Passages cut at clause boundaries carry the heading path they sit under, kept out of
    # their text (so page spans still map the text exactly) and searched as a second FTS field.
    db.execute("ALTER TABLE passages ADD COLUMN heading TEXT NOT NULL DEFAULT ''")
    # How each document's passages were cut (summarizer.library.storage.store.PASSAGE_FORMAT): documents of
    # an older format are re-cut by summarizer.library.reindex. Existing documents are format 1.
    db.execute("ALTER TABLE documents ADD COLUMN passage_format INTEGER NOT NULL DEFAULT 1")
    for trigger in ("passages_ai", "passages_ad", "passages_au"):
        db.execute(f"DROP TRIGGER {trigger}")
    db.execute("DROP TABLE passages_fts")
    db.execute(
        "CREATE VIRTUAL TABLE passages_fts USING FTS5 "
        "(search_text, heading, tokenize='porter unicode61 remove_diacritics 2', content='passages', "
        "content_rowid='passage_id')"
    )
    db.execute(
        """
        CREATE TRIGGER passages_ai AFTER INSERT ON passages BEGIN
            INSERT INTO passages_fts (rowid, search_text, heading)
            VALUES (new.passage_id, new.search_text, new.heading);
        END
        """
    )
    db.execute(
        """
        CREATE TRIGGER passages_ad AFTER DELETE ON passages BEGIN
            INSERT INTO passages_fts (passages_fts, rowid, search_text, heading)
            VALUES ('delete', old.passage_id, old.search_text, old.heading);
        END
        """
    )
    db.execute(
        """
        CREATE TRIGGER passages_au AFTER UPDATE ON passages BEGIN
            INSERT INTO passages_fts (passages_fts, rowid, search_text, heading)
            VALUES ('delete', old.passage_id, old.search_text, old.heading);
            INSERT INTO passages_fts (rowid, search_text, heading)
            VALUES (new.passage_id, new.search_text, new.heading);
        END
        """
    )
    db.execute("INSERT INTO passages_fts (passages_fts) VALUES ('rebuild')")


def _review_results(db: sqlite_utils.Database) -> None:
    # One row per checklist item reviewed: the result as ItemResult JSON without its playbook
    # flag (computed when read, so the reviewer's side or a correction changes it without asking
    # the model again). The key: document, checklist name and version, model (its file's sha256),
    # prompt version and the document's passages fingerprint (a re-cut document's passage ids differ).
    db.execute(
        """
        CREATE TABLE review_results (
            doc_id TEXT NOT NULL REFERENCES documents(doc_id) ON DELETE CASCADE,
            checklist TEXT NOT NULL,
            checklist_version TEXT NOT NULL,
            model TEXT NOT NULL,
            prompt_version INTEGER NOT NULL,
            passages_key TEXT NOT NULL,
            item_id TEXT NOT NULL,
            status TEXT NOT NULL,          -- answered | not_found | error
            result TEXT NOT NULL,
            created_at TEXT NOT NULL,
            PRIMARY KEY (doc_id, checklist, checklist_version, model, prompt_version, passages_key, item_id)
        )
        """
    )
    # The reviewer's word on a cell, kept apart from the results so no re-run overwrites it:
    # per document, checklist name and item, whatever model answered.
    db.execute(
        """
        CREATE TABLE review_corrections (
            doc_id TEXT NOT NULL REFERENCES documents(doc_id) ON DELETE CASCADE,
            checklist TEXT NOT NULL,
            item_id TEXT NOT NULL,
            value TEXT,                    -- the reviewer's value; NULL keeps the model's
            accepted INTEGER NOT NULL DEFAULT 0,
            accepted_value TEXT,           -- the model's value the reviewer accepted
            note TEXT NOT NULL DEFAULT '',
            updated_at TEXT NOT NULL,
            PRIMARY KEY (doc_id, checklist, item_id)
        )
        """
    )


def _staged_embeddings(db: sqlite_utils.Database) -> None:
    # The library's embedding model (meta 'embedding_model') is the model of its vectors: set at
    # the first embedding, changed only by a finished re-embed (summarizer.library.vectors.reembed). A library
    # written before this migration takes the model most of its vectors have.
    row = db.execute("SELECT model FROM embeddings GROUP BY model ORDER BY COUNT(*) DESC, model LIMIT 1").fetchone()
    if row is not None:
        db.execute(
            "INSERT INTO meta (key, value) VALUES ('embedding_model', ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            [row[0]],
        )
    # The vector index is rebuilt with only that model's vectors.
    db.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'embeddings_generation'")
    # Vectors of the model a re-embed switches to, written per document until every passage has
    # one; one transaction then moves them into ``embeddings``.
    db.execute(
        """
        CREATE TABLE embeddings_staging (
            passage_id INTEGER PRIMARY KEY REFERENCES passages(passage_id) ON DELETE CASCADE,
            model TEXT NOT NULL,
            dim INTEGER NOT NULL,
            vector BLOB NOT NULL
        )
        """
    )


def _page_ocr(db: sqlite_utils.Database) -> None:
    # What OCR found on each page it looked at: ``read`` (its text is in ``pages.text``, its words'
    # character ranges and boxes in ``words``: [start, end, x0, y0, x1, y1, confidence] in PDF
    # points from the top left), ``no_image`` (little or no text and nothing drawn to read: not a
    # scan) or ``failed`` (``error`` says why). ``confidence`` is the page's mean word confidence.
    db.execute(
        """
        CREATE TABLE page_ocr (
            doc_id TEXT NOT NULL REFERENCES documents(doc_id) ON DELETE CASCADE,
            page INTEGER NOT NULL,
            status TEXT NOT NULL,
            engine TEXT NOT NULL DEFAULT '',
            confidence REAL,
            words TEXT NOT NULL DEFAULT '[]',
            error TEXT,
            PRIMARY KEY (doc_id, page)
        )
        """
    )


def _document_kind(db: sqlite_utils.Database) -> None:
    # ``contract``, ``filing`` or ``other`` (summarizer.library.reading.document_kind), decided when the
    # passages are cut; NULL for documents cut before kinds (their passage_format says so).
    db.execute("ALTER TABLE documents ADD COLUMN kind TEXT")


def _word_documents(db: sqlite_utils.Database) -> None:
    # ``pdf`` or ``docx`` (summarizer.library.reading.file_type). A Word document's "pages" are its
    # paragraphs and table rows, numbered from 1 (summarizer.library.reading.docx_extract), so a
    # passage's page_start/page_end is its paragraph range; ``word_paragraphs`` keeps what Word shows
    # of each (its number, list level, style, heading level, and the page Word last laid it out on,
    # NULL when the file records none), from which a passage's locator is made when it is shown
    # ("§ 7.2(a) Limitation of Liability, ¶ 51–53, p. 8": summarizer.library.reading.docx_locator).
    db.execute("ALTER TABLE documents ADD COLUMN file_type TEXT NOT NULL DEFAULT 'pdf'")
    db.execute(
        """
        CREATE TABLE word_paragraphs (
            doc_id TEXT NOT NULL REFERENCES documents(doc_id) ON DELETE CASCADE,
            paragraph INTEGER NOT NULL,
            number TEXT,
            list_level INTEGER,
            style TEXT NOT NULL DEFAULT '',
            heading_level INTEGER,
            page INTEGER,
            table_row INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (doc_id, paragraph)
        )
        """
    )
    # Tracked changes (kind: insertion | deletion | format) and comments, each with the paragraph
    # it falls in (a comment's: where its range starts; NULL when the anchor was not found).
    db.execute(
        """
        CREATE TABLE word_changes (
            doc_id TEXT NOT NULL REFERENCES documents(doc_id) ON DELETE CASCADE,
            seq INTEGER NOT NULL,
            paragraph INTEGER NOT NULL,
            kind TEXT NOT NULL,
            author TEXT NOT NULL DEFAULT '',
            date TEXT NOT NULL DEFAULT '',
            text TEXT NOT NULL DEFAULT '',
            PRIMARY KEY (doc_id, seq)
        )
        """
    )
    db.execute(
        """
        CREATE TABLE word_comments (
            doc_id TEXT NOT NULL REFERENCES documents(doc_id) ON DELETE CASCADE,
            seq INTEGER NOT NULL,
            paragraph INTEGER,
            author TEXT NOT NULL DEFAULT '',
            date TEXT NOT NULL DEFAULT '',
            text TEXT NOT NULL DEFAULT '',
            PRIMARY KEY (doc_id, seq)
        )
        """
    )


def _clauses(db: sqlite_utils.Database) -> None:
    # Every clause of a document as a unit (summarizer.library.cutting.clause_units): its marker as
    # written ("6.3", "ARTICLE VI", "(a)"; empty for a heading line or the preamble), its number
    # ("6.3"), title, heading path (a JSON list, the clause's own heading last), its span from
    # (page_start, start) to (page_end, end) in normalized page offsets (a Word document's pages are
    # its paragraphs), and its text with whitespace made single spaces. Written with the passages,
    # so documents cut before it get their clauses from a re-index (PASSAGE_FORMAT 4).
    db.execute(
        """
        CREATE TABLE clauses (
            doc_id TEXT NOT NULL REFERENCES documents(doc_id) ON DELETE CASCADE,
            seq INTEGER NOT NULL,
            label TEXT NOT NULL DEFAULT '',
            number TEXT NOT NULL DEFAULT '',
            title TEXT NOT NULL DEFAULT '',
            path TEXT NOT NULL DEFAULT '[]',
            page_start INTEGER NOT NULL,
            start INTEGER NOT NULL,
            page_end INTEGER NOT NULL,
            "end" INTEGER NOT NULL,
            text TEXT NOT NULL,
            PRIMARY KEY (doc_id, seq)
        )
        """
    )


def _saved_comparisons(db: sqlite_utils.Database) -> None:
    # A comparison of two versions saved from the window (summarizer.compare.saved): the pair, their
    # titles and file types when it was made, the verdict and its message, and the changes as JSON
    # (each with both clauses and its whole word diff), so that it reopens as it was, even after a
    # version is removed from the library (no foreign key: a saved comparison outlives its documents).
    db.execute(
        """
        CREATE TABLE comparisons (
            comparison_id INTEGER PRIMARY KEY,
            old_doc_id TEXT NOT NULL,
            new_doc_id TEXT NOT NULL,
            old_title TEXT NOT NULL,
            new_title TEXT NOT NULL,
            old_file_type TEXT NOT NULL DEFAULT 'pdf',
            new_file_type TEXT NOT NULL DEFAULT 'pdf',
            saved_at TEXT NOT NULL,
            verdict TEXT NOT NULL,
            message TEXT NOT NULL,
            result TEXT NOT NULL
        )
        """
    )


def _data_rooms(db: sqlite_utils.Database) -> None:
    # A document's folder inside the folder (or .zip) it was added with ("licensing/2019", "" for a
    # file added on its own), shown and filtered by in the library. And a batch of files being
    # added (summarizer.library.batch): its files with their outcome, kept until the batch is over
    # so that one interrupted (the window closed, the disk full) continues where it stopped.
    db.execute("ALTER TABLE documents ADD COLUMN folder TEXT NOT NULL DEFAULT ''")
    db.execute(
        """
        CREATE TABLE ingest_batches (
            batch_id INTEGER PRIMARY KEY,
            roots TEXT NOT NULL DEFAULT '[]',
            created_at TEXT NOT NULL,
            finished_at TEXT
        )
        """
    )
    # outcome: pending | added | duplicate | failed | skipped (not a document: named, not read)
    db.execute(
        """
        CREATE TABLE ingest_batch_files (
            batch_id INTEGER NOT NULL REFERENCES ingest_batches(batch_id) ON DELETE CASCADE,
            seq INTEGER NOT NULL,
            path TEXT NOT NULL,
            folder TEXT NOT NULL DEFAULT '',
            size INTEGER NOT NULL DEFAULT 0,
            outcome TEXT NOT NULL DEFAULT 'pending',
            reason TEXT NOT NULL DEFAULT '',
            doc_id TEXT,
            pages INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (batch_id, seq)
        )
        """
    )


MIGRATIONS: list[tuple[int, str, Migration]] = [
    (1, "documents, pages, passages with FTS5, embeddings, meta", _initial),
    (2, "model file hashes, segments, summaries, conversation turns", _summaries_and_conversations),
    (3, "passage headings (column and FTS field), documents' passage format", _clause_passages),
    (4, "contract review results and reviewer corrections", _review_results),
    (5, "the library's embedding model, staged vectors of a re-embed", _staged_embeddings),
    (6, "OCR of scanned pages: text source, word boxes and confidence per page", _page_ocr),
    (7, "documents' kind: contract, filing or other", _document_kind),
    (8, "Word documents: file type, paragraphs' numbers and pages, tracked changes, comments", _word_documents),
    (9, "clauses as units: number, heading path, span and text of every clause", _clauses),
    (10, "comparisons of two versions saved from the window", _saved_comparisons),
    (11, "data rooms: a document's folder, batches of files being added", _data_rooms),
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

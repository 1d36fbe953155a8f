"""Migration 1: the first schema: documents, their pages, passages searched by FTS5 (kept in step by
triggers), their embeddings, and ``meta`` with the embeddings' generation."""

from __future__ import annotations

import sqlite_utils


def initial(db: sqlite_utils.Database) -> None:
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

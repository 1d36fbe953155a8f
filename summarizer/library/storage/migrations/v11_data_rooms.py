"""Migration 11: data rooms: a document's folder, and batches of files being added."""

from __future__ import annotations

import sqlite_utils


def data_rooms(db: sqlite_utils.Database) -> None:
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

"""Migration 10: comparisons of two versions saved from the window."""

from __future__ import annotations

import sqlite_utils


def saved_comparisons(db: sqlite_utils.Database) -> None:
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

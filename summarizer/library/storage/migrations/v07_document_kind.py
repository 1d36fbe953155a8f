"""Migration 7: a document's kind (contract, filing or other)."""

from __future__ import annotations

import sqlite_utils


def document_kind(db: sqlite_utils.Database) -> None:
    # ``contract``, ``filing`` or ``other`` (summarizer.library.reading.document_kind), decided when the
    # passages are cut; NULL for documents cut before kinds (their passage_format says so).
    db.execute("ALTER TABLE documents ADD COLUMN kind TEXT")

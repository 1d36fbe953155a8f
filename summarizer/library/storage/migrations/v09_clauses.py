"""Migration 9: every clause of a document as a unit: number, heading path, span and text."""

from __future__ import annotations

import sqlite_utils


def clauses(db: sqlite_utils.Database) -> None:
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

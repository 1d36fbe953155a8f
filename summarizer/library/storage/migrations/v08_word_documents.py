"""Migration 8: Word documents: file type, what Word shows of each paragraph, tracked changes, comments."""

from __future__ import annotations

import sqlite_utils


def word_documents(db: sqlite_utils.Database) -> None:
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

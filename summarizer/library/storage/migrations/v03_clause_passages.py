"""Migration 3: passages' heading path (a column and a second FTS field) and documents' passage format."""

from __future__ import annotations

import sqlite_utils


def clause_passages(db: sqlite_utils.Database) -> None:
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

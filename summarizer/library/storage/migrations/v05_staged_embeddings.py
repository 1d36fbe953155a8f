"""Migration 5: the library's embedding model recorded in ``meta``, and the staged vectors of a re-embed."""

from __future__ import annotations

import sqlite_utils


def staged_embeddings(db: sqlite_utils.Database) -> None:
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

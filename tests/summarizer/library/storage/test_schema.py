"""Migrations: an existing library is backed up before it is migrated; migration 5 records the
library's embedding model from its vectors."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

import numpy as np
import pytest
import sqlite_utils

from summarizer.library.storage import schema
from summarizer.library.storage.schema import MIGRATIONS, SCHEMA_VERSION, applied_version, backup_path
from summarizer.library.storage.store import Library
from summarizer.library.vectors.vector_index import load_index
from tests.summarizer.doc_factory import add_document, numbered_pages


def _library_at_version_3(path: Path) -> int:
    """A library written before migration 5, its vectors from two models. Returns its passages."""
    conn = sqlite3.connect(str(path), isolation_level=None)
    db = sqlite_utils.Database(conn)
    db.execute("CREATE TABLE migrations (version INTEGER PRIMARY KEY, name TEXT, applied_at TEXT)")
    for version, name, apply in MIGRATIONS:
        if version <= 3:
            apply(db)
            db.execute("INSERT INTO migrations VALUES (?, ?, '2026-01-01')", [version, name])
    add_document(Library(db, path), numbered_pages(2, 60), words_per_passage=30)
    ids = [int(r[0]) for r in db.execute("SELECT passage_id FROM passages ORDER BY passage_id")]
    for n, passage_id in enumerate(ids):
        model, dim = ("model-a", 4) if n else ("model-b", 8)  # one stray vector of another model
        vector = np.full(dim, 0.5, dtype=np.float32).tobytes()
        db.execute("INSERT INTO embeddings VALUES (?, ?, ?, ?)", [passage_id, model, dim, vector])
    db.execute("INSERT INTO meta VALUES ('embedding_model', 'model-b')")  # the last model used
    conn.close()
    return len(ids)


def test_an_existing_library_is_backed_up_once_before_it_migrates(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "library.sqlite"
    passages = _library_at_version_3(path)
    with caplog.at_level(logging.WARNING, logger="pagewise"), Library.open(path) as library:
        assert applied_version(library.db) == SCHEMA_VERSION
        backup = backup_path(path, 3)
        assert library.migration_backup == backup == tmp_path / "library.sqlite.bak-v3"
        assert str(backup) in caplog.text
    copy = sqlite_utils.Database(sqlite3.connect(str(backup)))
    assert applied_version(copy) == 3, "the copy is the library as it was before migrating"
    assert copy.execute("SELECT COUNT(*) FROM embeddings").fetchone()[0] == passages
    assert "embeddings_staging" not in copy.table_names()
    assert copy.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    copy.conn.close()

    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="pagewise"), Library.open(path) as again:
        assert again.migration_backup is None and caplog.text == ""


def test_a_new_library_is_not_backed_up(tmp_path: Path) -> None:
    path = tmp_path / "library.sqlite"
    with Library.open(path) as library:
        assert library.migration_backup is None and library.embedding_model is None
    assert sorted(p.name for p in tmp_path.iterdir() if ".bak" in p.name) == []


def test_migration_5_takes_the_model_of_most_vectors_and_indexes_only_those(tmp_path: Path) -> None:
    path = tmp_path / "library.sqlite"
    passages = _library_at_version_3(path)
    with Library.open(path) as library:
        assert library.embedding_model == "model-a"
        index = load_index(library)
        assert index.model == "model-a" and index.index.d == 4 and index.size == passages - 1


def test_a_migration_numbered_below_the_latest_is_still_applied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Branches merged in any order: a library written without migration 4 (contract review,
    merged after 5) gets it when opened by a build that has it."""
    path = tmp_path / "library.sqlite"
    without_4 = [m for m in MIGRATIONS if m[0] != 4]
    monkeypatch.setattr(schema, "MIGRATIONS", without_4)
    Library.open(path).close()
    with Library.open(path) as library:
        assert "review_results" not in library.db.table_names()
    monkeypatch.setattr(schema, "MIGRATIONS", MIGRATIONS)
    with Library.open(path) as library:
        assert "review_results" in library.db.table_names()
        assert library.migration_backup == backup_path(path, SCHEMA_VERSION)


def test_migration_10_gives_documents_added_before_it_no_folder(tmp_path: Path) -> None:
    """Data rooms (issue 46): documents added before it keep working, with an empty folder, and
    the batch tables start empty."""
    path = tmp_path / "library.sqlite"
    _library_at_version_3(path)
    with Library.open(path) as library:
        assert [r.folder for r in library.documents()] == [""]
        assert library.db.execute("SELECT COUNT(*) FROM ingest_batches").fetchone()[0] == 0
        assert library.db.execute("SELECT COUNT(*) FROM ingest_batch_files").fetchone()[0] == 0

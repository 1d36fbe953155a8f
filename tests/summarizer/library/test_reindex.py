"""Migration 3 and the reindex job: an old-format library is re-cut, resumably."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
import sqlite_utils

from inference.cancel import Cancelled, CancelToken
from inference.progress import Progress, Stage
from summarizer.library.cutting.passages import PAGE_JOIN
from summarizer.library.ingest import IngestOptions, ingest_path
from summarizer.library.reindex import documents_needing_reindex, reindex
from summarizer.library.storage.schema import MIGRATIONS, SCHEMA_VERSION, applied_version
from summarizer.library.storage.store import PASSAGE_FORMAT, Library
from summarizer.search.retrieval import search
from tests.conftest import CONTRACTS
from tests.summarizer.doc_factory import add_document

PAGES = [
    "MASTER SERVICES AGREEMENT\nThis Agreement is made on 1 March 2021 between Acme Ltd and Beta Inc.\n"
    "1. Services. Beta shall provide the hosting services described in Schedule 1.\n"
    "2. Fees. Acme shall pay the monthly fees within thirty days of each invoice.",
    "3. Term. This Agreement continues for three years from the Effective Date.\n"
    "4. Governing Law. This Agreement is governed by the laws of England and Wales.",
]


def _old_library(path: Path) -> str:
    """A library written by Pagewise before migration 3, with one document cut the old way."""
    conn = sqlite3.connect(str(path), isolation_level=None)
    db = sqlite_utils.Database(conn)
    db.execute("CREATE TABLE migrations (version INTEGER PRIMARY KEY, name TEXT, applied_at TEXT)")
    for version, name, apply in MIGRATIONS[:2]:
        apply(db)
        db.execute("INSERT INTO migrations VALUES (?, ?, '2026-01-01')", [version, name])
    old = Library(db, path)
    doc_id = add_document(old, PAGES, words_per_passage=15)
    conn.close()
    return doc_id


def test_migration_adds_the_heading_field_and_keeps_old_passages_searchable(tmp_path: Path) -> None:
    path = tmp_path / "library.sqlite"
    doc_id = _old_library(path)
    with Library.open(path) as library:
        assert applied_version(library.db) == SCHEMA_VERSION
        record = library.document(doc_id)
        assert record.passage_format == 1 and record.needs_reindex
        assert documents_needing_reindex(library) == [doc_id]
        assert {r[0] for r in library.db.execute("SELECT heading FROM passages")} == {""}
        results = search(library, "governing law england", doc_ids=[doc_id], k=1, use_vectors=False)
        assert "England" in results[0].text and results[0].heading == ""


def test_reindex_recuts_from_the_stored_pages(tmp_path: Path) -> None:
    path = tmp_path / "library.sqlite"
    doc_id = _old_library(path)
    stages: list[str] = []
    with Library.open(path) as library:
        small = IngestOptions(max_tokens=40)  # a few clauses per passage
        (result,) = reindex(library, options=small, progress=lambda p: stages.append(p.stage))
        assert result.status == "reindexed" and result.passage_format == PASSAGE_FORMAT
        record = library.document(doc_id)
        assert record.state == "ready" and not record.needs_reindex
        assert documents_needing_reindex(library) == []
        rows = library.db.execute("SELECT text, spans, heading FROM passages ORDER BY seq").fetchall()
        assert [heading for _, _, heading in rows] == ["Preamble > MASTER SERVICES AGREEMENT", "2 Fees", "3 Term"]
        pages = dict(enumerate(PAGES, start=1))
        for text, spans, _ in rows:
            assert PAGE_JOIN.join(pages[p][s:e] for p, s, e in json.loads(spans)) == text
        embedded = library.db.execute("SELECT COUNT(*) FROM embeddings").fetchone()[0]
        assert embedded == len(rows)
        assert reindex(library) == [], "nothing left to do"
    assert Stage.RECUT_PASSAGES in stages and Stage.EMBED_PASSAGES in stages


def test_reindex_cancelled_while_embedding_is_finished_by_the_next_run(tmp_path: Path) -> None:
    with Library.open(tmp_path / "library.sqlite") as library:
        doc_id = ingest_path(library, CONTRACTS / "endorsement-8p.pdf").doc_id
        expected = library.db.execute("SELECT text, heading FROM passages ORDER BY seq").fetchall()
        library.db.execute("UPDATE documents SET passage_format = 1 WHERE doc_id = ?", [doc_id])
        library.db.execute("UPDATE passages SET heading = ''")  # cut the old way: no heading paths
        token = CancelToken()

        def cancel_while_embedding(progress: Progress) -> None:
            if progress.stage == Stage.LOAD_EMBEDDER:  # passages cut, none embedded yet
                token.cancel()

        with pytest.raises(Cancelled):
            reindex(library, progress=cancel_while_embedding, cancel=token)
        record = library.document(doc_id)
        assert record.state == "embedding" and record.needs_reindex
        assert documents_needing_reindex(library) == [doc_id]
        assert search(library, "termination", doc_ids=[doc_id], k=1), "search still answers meanwhile"

        (result,) = reindex(library)
        assert result.status == "reindexed"
        assert library.document(doc_id).state == "ready"
        assert library.db.execute("SELECT text, heading FROM passages ORDER BY seq").fetchall() == expected
        missing = library.db.execute(
            "SELECT COUNT(*) FROM passages p LEFT JOIN embeddings e USING (passage_id) WHERE e.passage_id IS NULL"
        ).fetchone()[0]
        assert missing == 0


def test_ingest_of_an_old_format_document_recuts_it(tmp_path: Path) -> None:
    with Library.open(tmp_path / "library.sqlite") as library:
        first = ingest_path(library, CONTRACTS / "endorsement-8p.pdf")
        library.db.execute("UPDATE documents SET passage_format = 1")
        again = ingest_path(library, CONTRACTS / "endorsement-8p.pdf")
        assert again.doc_id == first.doc_id and again.status == "indexed"
        assert not library.document(first.doc_id).needs_reindex


def test_an_upgrade_that_cuts_a_contract_alike_keeps_its_passages(tmp_path: Path) -> None:
    """Format 3 cuts by document kind: a contract's passages come out the same, and are kept
    with their ids (so their vectors and the summaries made of them stay valid)."""
    with Library.open(tmp_path / "library.sqlite") as library:
        result = ingest_path(library, CONTRACTS / "endorsement-8p.pdf")
        before = library.db.execute("SELECT passage_id, text FROM passages ORDER BY seq").fetchall()
        library.db.execute("UPDATE documents SET passage_format = 2, kind = NULL WHERE doc_id = ?", [result.doc_id])
        assert library.document(result.doc_id).needs_reindex
        (done,) = reindex(library)
        assert done.status == "reindexed"
        record = library.document(result.doc_id)
        assert record.kind == "contract" and not record.needs_reindex
        assert library.db.execute("SELECT passage_id, text FROM passages ORDER BY seq").fetchall() == before

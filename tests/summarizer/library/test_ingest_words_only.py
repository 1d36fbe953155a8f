"""A document added while the embedding model cannot be loaded: kept, searchable by words, and said so.

On Windows, an install folder deep enough to put a bundled library's path past 260 characters
stopped the embedding model from loading (``WinError 234``); documents were stored without
vectors, and nothing said why (issue 54). The embedder here raises as that one did.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from summarizer.library.ingest import ingest_path
from summarizer.library.reindex import reindex_library
from summarizer.library.storage.store import Library
from summarizer.library.vectors import embedder
from summarizer.library.vectors.embedder import load_embedder  # the real one, before a test replaces it
from summarizer.search.retrieval import search
from tests.conftest import CONTRACTS


def test_document_is_kept_and_searchable_by_words(embedding_model_fails: Path) -> None:
    with Library.open() as library:
        result = ingest_path(library, CONTRACTS / "endorsement-8p.pdf")
        record = library.document(result.doc_id)
        assert record.state == "ready" and record.passages > 0 and record.unembedded == record.passages
        assert record.words_only and record.to_json()["words_only"] is True
        said = [w for w in result.warnings if w.startswith("searchable by words only")]
        assert len(said) == 1 and str(embedding_model_fails) in said[0] and "shorter folder" in said[0]
        assert "pagewise reindex" in said[0]
        found = search(library, "endorsement", doc_ids=[result.doc_id], k=3)
        assert found and all(r.vector_rank is None and r.bm25_rank is not None for r in found)


def test_reindex_gives_it_its_vectors_once_the_model_loads(
    embedding_model_fails: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Library.open() as library:
        doc_id = ingest_path(library, CONTRACTS / "endorsement-8p.pdf").doc_id
        assert library.document(doc_id).words_only
        monkeypatch.setattr(embedder, "load_embedder", load_embedder)  # it loads again (reinstalled elsewhere)
        result = reindex_library(library)
        record = library.document(doc_id)
        assert [d.doc_id for d in result.documents] == [doc_id]
        assert record.unembedded == 0 and not record.words_only
        assert not [w for w in record.warnings if "words only" in w]

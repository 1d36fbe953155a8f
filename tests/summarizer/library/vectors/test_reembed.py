"""The embedding model belongs to the library: recorded, kept by ingest, switched by a
resumable re-embed that never leaves a mixed index."""

from __future__ import annotations

import pytest

from inference.cancel import Cancelled, CancelToken
from inference.progress import Progress, Stage
from summarizer.library.ingest import IngestOptions, Ingestor, ingest_path
from summarizer.library.storage.store import Library
from summarizer.library.vectors import query_encoder
from summarizer.library.vectors.embed_passages import embed_missing
from summarizer.library.vectors.embedding_model import DEFAULT_EMBEDDING_MODEL
from summarizer.library.vectors.reembed import model_notice, reembed, reembed_status
from summarizer.library.vectors.vector_index import forget_loaded, load_index
from summarizer.search.retrieval import search
from tests.conftest import CONTRACTS
from tests.summarizer.doc_factory import add_document, numbered_pages
from tests.summarizer.tiny_embedder import DIM, build_tiny_embedder

DEFAULT_MODEL = DEFAULT_EMBEDDING_MODEL  # the default: Pagewise's clause embedder


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(build_tiny_embedder(tmp_path_factory.mktemp("tiny") / "tiny-embedder"))


@pytest.fixture
def encoded_with(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The model names queries are encoded with."""
    names: list[str] = []
    real = query_encoder.load_query_encoder

    def recording(name: str) -> query_encoder.QueryEncoder:
        names.append(name)
        return real(name)

    monkeypatch.setattr(query_encoder, "load_query_encoder", recording)
    return names


def _models(library: Library, table: str = "embeddings") -> dict[str, int]:
    rows = library.db.execute(f"SELECT model, COUNT(*) FROM {table} GROUP BY model").fetchall()
    return {str(r[0]): int(r[1]) for r in rows}


def _passages(library: Library) -> int:
    return int(library.db.execute("SELECT COUNT(*) FROM passages").fetchone()[0])


def _library_of(n_docs: int, model: str) -> Library:
    library = Library.open()
    for n in range(n_docs):
        add_document(library, numbered_pages(2, 60), title=f"Doc {n}", words_per_passage=30)
    embed_missing(library, None, model)
    forget_loaded()
    return library


def test_the_first_embedding_records_the_library_model(tiny: str) -> None:
    with Library.open() as library:
        assert library.embedding_model is None
        add_document(library, numbered_pages(2, 60))
        embed_missing(library, None, tiny)
        assert library.embedding_model == tiny
        index = load_index(library)
        assert index.model == tiny and index.index.d == DIM and index.size == _passages(library)


def test_ingest_with_another_configured_model_keeps_the_librarys(
    tiny: str, monkeypatch: pytest.MonkeyPatch, encoded_with: list[str]
) -> None:
    with Library.open() as library:
        first = ingest_path(library, CONTRACTS / "endorsement-8p.pdf")
        assert library.embedding_model == DEFAULT_MODEL
        monkeypatch.setenv("PAGEWISE_EMBEDDING_MODEL", tiny)
        configured = IngestOptions(embedding_model=tiny)  # as the window passes its setting
        second = ingest_path(library, CONTRACTS / "license-17p.pdf", configured)
        Ingestor(library, configured).recut(first.doc_id)
        assert library.document(second.doc_id).passages > 0
        assert library.embedding_model == DEFAULT_MODEL
        assert _models(library) == {DEFAULT_MODEL: _passages(library)}
        tokenizers = {r[0] for r in library.db.execute("SELECT chunk_tokenizer FROM documents")}
        assert tokenizers == {DEFAULT_MODEL}, "passages are measured with the library's model too"
        assert load_index(library).index.d == 384
        assert search(library, "endorsement fee", doc_ids=[first.doc_id], k=2)
        assert encoded_with == [DEFAULT_MODEL], "queries are encoded with the library's model"
        notice = model_notice(library)
        assert notice is not None and "pagewise reindex" in notice and tiny in notice


def test_reembed_switches_every_vector_and_the_index(tiny: str, encoded_with: list[str]) -> None:
    with _library_of(2, DEFAULT_MODEL) as library:
        stages: list[Progress] = []
        result = reembed(library, tiny, progress=stages.append)
        assert result is not None
        assert (result.previous_model, result.model, result.documents) == (DEFAULT_MODEL, tiny, 2)
        assert result.passages == _passages(library)
        assert library.embedding_model == tiny
        assert _models(library) == {tiny: _passages(library)}
        assert _models(library, "embeddings_staging") == {}
        assert reembed_status(library) is None and model_notice(library, tiny) is None
        index = load_index(library)
        assert index.model == tiny and index.index.d == DIM and index.size == _passages(library)
        assert search(library, "clause1", k=1)
        assert encoded_with == [tiny]
        assert any(p.stage == Stage.REEMBED_PASSAGES and p.done == p.total == 2 for p in stages)
        assert reembed(library, tiny) is None, "nothing left to do"


def test_a_cancelled_reembed_resumes_and_never_mixes_models(
    tiny: str, monkeypatch: pytest.MonkeyPatch, encoded_with: list[str]
) -> None:
    with _library_of(3, DEFAULT_MODEL) as library:
        token = CancelToken()

        def cancel_after_the_first_document(progress: Progress) -> None:
            if progress.stage == Stage.REEMBED_PASSAGES and progress.done == 1:
                token.cancel()

        with pytest.raises(Cancelled):
            reembed(library, tiny, progress=cancel_after_the_first_document, cancel=token)
        status = reembed_status(library)
        assert status is not None and (status.documents_done, status.documents) == (1, 3)
        assert (status.model, status.target) == (DEFAULT_MODEL, tiny)
        assert _models(library) == {DEFAULT_MODEL: _passages(library)}, "search keeps the whole old index"
        staged_before = _models(library, "embeddings_staging")[tiny]

        # Meanwhile a document is added (embedded with the library's model, not staged) ...
        added = add_document(library, numbered_pages(3, 60), title="Added", words_per_passage=30)
        embed_missing(library, [added], tiny)
        assert _models(library) == {DEFAULT_MODEL: _passages(library)}
        # ... and search uses the old model, and says how far the re-embed got.
        assert search(library, "clause2", k=1) and encoded_with == [DEFAULT_MODEL]
        assert load_index(library).index.d == 384
        monkeypatch.setenv("PAGEWISE_EMBEDDING_MODEL", tiny)
        notice = model_notice(library)
        assert notice is not None and "1 of 4 documents" in notice

        resumed = reembed(library, tiny)
        assert resumed is not None and resumed.documents == 4
        assert resumed.passages == _passages(library) - staged_before, "staged vectors are not redone"
        assert _models(library) == {tiny: _passages(library)}
        assert library.embedding_model == tiny and load_index(library).index.d == DIM
        assert reembed_status(library) is None


def test_an_embed_overlapping_a_finished_reembed_uses_the_new_model(tiny: str) -> None:
    with _library_of(1, DEFAULT_MODEL) as library:
        doc_id = add_document(library, numbered_pages(2, 60), title="Late", words_per_passage=30)

        def swap_meanwhile(progress: Progress) -> None:
            if progress.stage == Stage.LOAD_EMBEDDER and library.embedding_model == DEFAULT_MODEL:
                assert reembed(library, tiny) is not None  # another process finishing a re-embed

        embed_missing(library, [doc_id], DEFAULT_MODEL, progress=swap_meanwhile)
        assert library.embedding_model == tiny
        assert _models(library) == {tiny: _passages(library)}

from __future__ import annotations

from pathlib import Path

import pytest

from summarizer.library.ingest import ingest_path
from summarizer.library.storage.store import Library
from summarizer.library.vectors.embed_passages import embed_missing
from summarizer.library.vectors.vector_index import forget_loaded, index_path_for, load_index
from tests.conftest import CONTRACTS


def _library_with_a_document() -> tuple[Library, str]:
    library = Library.open()
    doc = ingest_path(library, CONTRACTS / "endorsement-8p.pdf")
    return library, doc.doc_id


def test_index_is_written_after_ingest_and_matches_the_generation() -> None:
    library, _ = _library_with_a_document()
    with library:
        path = index_path_for(library)
        assert path.exists()
        index = load_index(library)
        assert index.generation == library.embeddings_generation()
        assert index.size == library.db.execute("SELECT COUNT(*) FROM embeddings").fetchone()[0]


def test_missing_index_is_rebuilt() -> None:
    library, _ = _library_with_a_document()
    with library:
        path = index_path_for(library)
        path.unlink()
        forget_loaded()
        index = load_index(library)
        assert index.size > 0 and path.exists()


def test_damaged_index_is_rebuilt() -> None:
    library, _ = _library_with_a_document()
    with library:
        path = index_path_for(library)
        good_size = load_index(library).size
        data = bytearray(path.read_bytes())
        data[len(data) // 2] ^= 0xFF
        for damaged in (bytes(data), bytes(data[:100]), b"garbage"):  # flipped bits, truncated, junk
            path.write_bytes(damaged)
            forget_loaded()
            assert load_index(library).size == good_size
            assert path.read_bytes() != damaged, "the damaged file is replaced by a rebuilt one"


def test_stale_index_is_rebuilt() -> None:
    library, _ = _library_with_a_document()
    with library:
        from summarizer.library.vectors.vector_index import _build

        stale = _build(library)  # what the file holds before the next document (its own copy)
        ingest_path(library, CONTRACTS / "supply-16p.pdf")
        # Simulate a process that died after the embeddings were committed but before the
        # FAISS file was replaced: put the old file back.
        from summarizer.library.vectors.vector_index import save_index

        save_index(library, stale)
        forget_loaded()
        fresh = load_index(library)
        assert fresh.generation == library.embeddings_generation() != stale.generation
        assert fresh.size == library.db.execute("SELECT COUNT(*) FROM embeddings").fetchone()[0]


def test_leftover_temp_file_does_not_matter(tmp_path: Path) -> None:
    library, _ = _library_with_a_document()
    with library:
        path = index_path_for(library)
        (path.parent / f".{path.name}.99999.tmp").write_bytes(b"half-written")
        forget_loaded()
        assert load_index(library).size > 0


def test_changing_the_embedding_model_re_embeds() -> None:
    library, doc_id = _library_with_a_document()
    with library:
        n = library.db.execute("SELECT COUNT(*) FROM embeddings").fetchone()[0]
        # Pretend the vectors came from another model: the stored name no longer matches.
        library.db.execute("UPDATE embeddings SET model = 'some/other-model'")
        assert embed_missing(library, [doc_id]) == n
        models = library.db.execute("SELECT DISTINCT model FROM embeddings").fetchall()
        assert models == [("pagewise/clause-embedder",)]
        assert embed_missing(library, [doc_id]) == 0


def test_an_index_in_memory_grows_by_the_vectors_added_without_a_rebuild(monkeypatch: pytest.MonkeyPatch) -> None:
    import numpy as np

    from summarizer.library.vectors import vector_index

    library, _ = _library_with_a_document()
    with library:
        before = load_index(library)
        size_before = before.size
        rebuilt = vector_index._build

        def no_rebuild(_library: Library) -> vector_index.VectorIndex:
            raise AssertionError("the whole index was rebuilt: it should have grown by the new vectors")

        monkeypatch.setattr(vector_index, "_build", no_rebuild)
        ingest_path(library, CONTRACTS / "supply-16p.pdf")  # its refresh grows the index
        grown = load_index(library)
        assert grown.generation == library.embeddings_generation()
        assert grown.size == library.db.execute("SELECT COUNT(*) FROM embeddings").fetchone()[0] > size_before
        assert grown is before  # grown in place, not copied (a search on another thread waits its turn)
        assert (
            index_path_for(library).exists()
            and vector_index._file_generation(index_path_for(library)) == library.embeddings_generation()
        )
        whole = rebuilt(library)
        query = np.frombuffer(
            library.db.execute("SELECT vector FROM embeddings ORDER BY passage_id DESC LIMIT 1").fetchone()[0],
            dtype=np.float32,
        )
        assert grown.search(query, 10) == whole.search(query, 10)


def test_a_removed_document_rebuilds_the_index_in_memory() -> None:
    library, doc_id = _library_with_a_document()
    with library:
        ingest_path(library, CONTRACTS / "supply-16p.pdf")
        load_index(library)
        library.remove(doc_id)
        after = load_index(library)
        count = library.db.execute("SELECT COUNT(*) FROM embeddings").fetchone()[0]
        assert after.size == count > 0
        assert set(np_ids(after)) == {r[0] for r in library.db.execute("SELECT passage_id FROM embeddings").fetchall()}


def np_ids(index: object) -> list[int]:
    import faiss

    return [int(i) for i in faiss.vector_to_array(index.index.id_map)]  # type: ignore[attr-defined]

"""``Library.has_documents`` and ``reviewable_ids``: what the library holds, asked without reading
its records (the window asks on its GUI thread: before warming up the search, the room review)."""

from __future__ import annotations

from pathlib import Path

from summarizer.library.storage.store import Library
from tests.summarizer.doc_factory import add_document


def test_an_empty_library_has_none_and_one_added_has_some(tmp_path: Path) -> None:
    with Library.open(tmp_path / "library.db") as library:
        assert not library.has_documents()
        doc_id = add_document(library, ["This agreement is governed by the laws of New York."])
        assert library.has_documents()
        library.remove(doc_id)
        assert not library.has_documents()


def test_the_reviewable_ids_are_the_ready_documents_with_passages_in_the_librarys_order(tmp_path: Path) -> None:
    with Library.open(tmp_path / "library.db") as library:
        ids = [add_document(library, [f"Contract {n}: governed by the laws of New York."]) for n in range(3)]
        assert library.reviewable_ids() == [r.doc_id for r in library.documents()]
        assert sorted(library.reviewable_ids()) == sorted(ids)
        library.db.execute("UPDATE documents SET state = 'interrupted' WHERE doc_id = ?", [ids[0]])
        library.db.execute("DELETE FROM passages WHERE doc_id = ?", [ids[1]])
        assert library.reviewable_ids() == [ids[2]]

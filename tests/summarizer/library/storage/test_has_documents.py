"""``Library.has_documents``: whether the library holds any document, asked without reading them
(the window asks on its GUI thread before warming up the search)."""

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

"""Rewriting the vector index while another process reads it, under Windows' rule on open files.

Windows cannot replace a file that is open: the window reading ``vectors.faiss`` while the ingest
process, a re-index or ``pagewise remove`` rewrites it made the rewrite fail, and the failure was
swallowed (the index is a cache), leaving the file stale and a temporary file beside it (issue 54).
The reader here is this test holding the file open; it lets go when a rewrite is refused.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

import pytest

from summarizer.library.ingest import ingest_path
from summarizer.library.reindex import reindex_library
from summarizer.library.storage.store import Library
from summarizer.library.vectors import vector_index
from summarizer.library.vectors.vector_index import _file_generation, index_path_for, refresh_index
from tests.conftest import CONTRACTS
from tests.windows_files import Refusal, WindowsFileLocks


@pytest.fixture
def library() -> Iterator[Library]:
    with Library.open() as library:
        ingest_path(library, CONTRACTS / "endorsement-8p.pdf")
        yield library


class Reader:
    """Another process reading the index: it holds the file until a rewrite is refused ``patience``
    times (0: it never lets go). Three: longer than the one try of each of the two writes a
    ``refresh_index`` may make."""

    def __init__(self, path: Path, locks: WindowsFileLocks, patience: int = 3) -> None:
        self.handle: BinaryIO | None = path.open("rb")
        self.refused = 0
        self.patience = patience
        locks.on_refusal = self.refusal

    def refusal(self, refusal: Refusal) -> None:
        self.refused += 1
        if self.patience and self.refused >= self.patience and self.handle is not None:
            self.handle.close()
            self.handle = None


def leftovers(library: Library) -> list[str]:
    return sorted(p.name for p in library.path.parent.iterdir() if p.name.endswith(".tmp"))


def test_index_rewrite_waits_for_a_reader(library: Library, windows_file_locks: WindowsFileLocks) -> None:
    path = index_path_for(library)
    reader = Reader(path, windows_file_locks)
    ingest_path(library, CONTRACTS / "supply-16p.pdf")  # a second document: the index is rewritten
    assert _file_generation(path) == library.embeddings_generation() and reader.refused >= 3
    assert not leftovers(library)


def test_index_rewrite_gives_up_on_a_reader_that_holds_on(
    library: Library, windows_file_locks: WindowsFileLocks, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index is a cache: the old file stays (rebuilt when next read), with no temporary file."""
    monkeypatch.setattr(vector_index, "REPLACE_WAIT_S", 0.0)
    path = index_path_for(library)
    before = _file_generation(path)
    reader = Reader(path, windows_file_locks, patience=0)
    ingest_path(library, CONTRACTS / "supply-16p.pdf")
    assert reader.refused >= vector_index.REPLACE_TRIES  # each rewrite tried as often as it may
    assert _file_generation(path) == before != library.embeddings_generation()
    assert not leftovers(library)


def test_removing_a_document_rewrites_the_index_a_reader_held(
    library: Library, windows_file_locks: WindowsFileLocks
) -> None:
    from app.commands import remove

    doc_id = library.documents()[0].doc_id
    reader = Reader(index_path_for(library), windows_file_locks)
    assert remove.run(argparse.Namespace(doc_id=doc_id, json=True)) == 0
    assert _file_generation(index_path_for(library)) == library.embeddings_generation()
    assert reader.refused >= 3  # it waited for the reader
    assert not leftovers(library)


def test_reindex_rewrites_the_index_a_reader_held(library: Library, windows_file_locks: WindowsFileLocks) -> None:
    doc_id = library.documents()[0].doc_id
    library.db.execute("UPDATE documents SET passage_format = 1 WHERE doc_id = ?", [doc_id])  # an old cut:
    library.db.execute("UPDATE passages SET heading = ''")  # no heading paths, so new passages and vectors
    reader = Reader(index_path_for(library), windows_file_locks)
    result = reindex_library(library)
    assert [d.status for d in result.documents] == ["reindexed"]
    assert _file_generation(index_path_for(library)) == library.embeddings_generation()
    assert reader.refused >= 3  # it waited for the reader
    refresh_index(library)
    assert not leftovers(library)

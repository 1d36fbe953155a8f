"""The model file's identity (the key of stored summaries) and when a question must read it."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.services import answering
from inference.engines.fake import FakeEngine
from summarizer.library.storage.store import Library
from summarizer.llm import model_identity
from summarizer.llm.model_identity import NOT_HASHED, known_model_sha256, lookup_identity, model_sha256
from tests.summarizer.doc_factory import add_document, numbered_pages


@pytest.fixture
def library() -> Iterator[Library]:
    with Library.open() as lib:
        yield lib


class FileEngine(FakeEngine):
    """The scripted engine with a model file on disk (the fake plans none)."""

    def __init__(self, path: Path, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.file = path

    @property
    def model_path(self) -> str:
        return str(self.file)


@pytest.fixture
def hashed(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The files whose bytes were read to hash them."""
    read: list[Path] = []
    real = model_identity._hash_and_remember

    def counting(library: Library, file: Path, *args: Any) -> str:
        read.append(file)
        return real(library, file, *args)

    monkeypatch.setattr(model_identity, "_hash_and_remember", counting)
    return read


def test_a_first_question_with_a_model_never_hashed_does_not_read_the_file(
    library: Library, tmp_path: Path, hashed: list[Path]
) -> None:
    """Issue 47 on the GPU machine: a question asked 5 s after the window opened waited while the
    4.9 GB model file was hashed. No stored summary of the document can be that model's (none
    exists), so the answer starts without reading the file."""
    model = tmp_path / "model.gguf"
    model.write_bytes(b"GGUF" * 1000)
    doc_id = add_document(library, numbered_pages(3, words_per_page=200), title="Lease")
    engine = FileEngine(model, default_reply="Monthly (p. 1).")
    turn = answering.ask(engine, library, doc_id, "When is rent due?")
    assert turn.text.startswith("Monthly")
    assert hashed == []
    assert lookup_identity(library, engine, [doc_id]) == f"{NOT_HASHED}{model.stat().st_size}"


def test_a_stored_summary_by_a_model_of_the_same_size_is_found_through_the_digest(
    library: Library, tmp_path: Path, hashed: list[Path]
) -> None:
    """The same model moved to another folder keeps its summaries: a file of the size of a model
    that made a stored summary is hashed before the answer reads summaries; one of another size
    cannot be that model and is not read."""
    first = tmp_path / "a" / "model.gguf"
    first.parent.mkdir()
    first.write_bytes(b"GGUF" * 1000)
    doc_id = add_document(library, numbered_pages(12, words_per_page=1700), title="Long Lease")
    made = answering.summarize(FileEngine(first, default_reply="made by A", n_ctx=8192), library, doc_id)
    assert hashed == [first.resolve()]

    moved = tmp_path / "b" / "model.gguf"
    moved.parent.mkdir()
    moved.write_bytes(first.read_bytes())
    engine = FileEngine(moved, n_ctx=8192, default_reply="From the summary (p. 1).")
    answering.ask(engine, library, doc_id, "What is this lease about?")
    assert hashed[-1] == moved.resolve()
    assert made.super_summary in str(engine.last_prompt)  # the summary made by the same bytes, found
    assert lookup_identity(library, engine, [doc_id]) == known_model_sha256(library, first)

    other = tmp_path / "c" / "model.gguf"
    other.parent.mkdir()
    other.write_bytes(b"GGUF" * 999)
    reads = len(hashed)
    assert lookup_identity(library, FileEngine(other), [doc_id]).startswith(NOT_HASHED)
    assert len(hashed) == reads


def test_two_callers_read_a_model_file_once(
    library: Library, tmp_path: Path, hashed: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The window's background load hashes the file beside the load; a summary started meanwhile
    waits for that digest instead of reading gigabytes a second time."""
    model = tmp_path / "model.gguf"
    model.write_bytes(b"GGUF" * 100_000)
    reading = threading.Event()
    counting = model_identity._hash_and_remember

    def slow(*args: Any) -> str:  # a read long enough for the second caller to arrive during it
        reading.set()
        time.sleep(0.3)
        return counting(*args)

    monkeypatch.setattr(model_identity, "_hash_and_remember", slow)
    thread = model_identity.hash_in_background(library.path, model, model_identity.NEVER_CANCELLED)
    assert reading.wait(5)
    digest = model_sha256(library, model)  # arrives while the background thread reads
    thread.join()
    assert digest == known_model_sha256(library, model)
    assert hashed == [model.resolve()]

"""A full disk is not a damaged library (issue 24, item 6): the message says to free space and
that nothing was lost, never to move the library away; the library stays whole and the same
ingest finishes once there is room. The disk is made full by a faked ENOSPC / SQLite error and
a faked free-space reading."""

from __future__ import annotations

import errno
import json
import shutil
import sqlite3
from collections import namedtuple
from pathlib import Path
from typing import Any

import pytest

from app.cli import main
from summarizer.errors import LibraryError
from summarizer.library.ingest import IngestOptions, Ingestor, ingest_path
from summarizer.library.storage.store import Library
from tests.pdf_factory import make_pdf, text_pages

Usage = namedtuple("Usage", "total used free")


def _free(monkeypatch: pytest.MonkeyPatch, free: int) -> None:
    monkeypatch.setattr(shutil, "disk_usage", lambda _path: Usage(40 * 1024**2, 40 * 1024**2 - free, free))


def _failing_connect(message: str) -> Any:
    def connect(*_args: Any, **_kwargs: Any) -> Any:
        raise sqlite3.OperationalError(message)

    return connect


def test_opening_a_library_on_a_full_disk_says_to_free_space(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The reported case: `disk I/O error` on open, with the disk full."""
    _free(monkeypatch, 12 * 1024)
    monkeypatch.setattr(sqlite3, "connect", _failing_connect("disk I/O error"))
    with pytest.raises(LibraryError) as caught:
        Library.open(tmp_path / "library.sqlite")
    message = str(caught.value)
    assert message.startswith(f"No space left on the disk holding {tmp_path} (0 MiB free): free some space")
    assert "Nothing in the library was lost" in message and "move it away" not in message


def test_an_io_error_with_room_on_the_disk_is_still_a_damaged_library(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _free(monkeypatch, 10 * 1024**3)
    monkeypatch.setattr(sqlite3, "connect", _failing_connect("disk I/O error"))
    with pytest.raises(LibraryError) as caught:
        Library.open(tmp_path / "library.sqlite")
    assert "No space left" not in str(caught.value) and "move it away" in str(caught.value)


def test_which_errors_are_a_question_of_space(tmp_path: Path) -> None:
    from summarizer.library.storage import disk_space

    assert disk_space.space_error(sqlite3.OperationalError("database or disk is full"), tmp_path) is not None
    assert disk_space.space_error(OSError(errno.ENOSPC, "No space left on device"), tmp_path) is not None
    assert disk_space.space_error(OSError(errno.EACCES, "Permission denied"), tmp_path) is None


def test_an_ingest_that_runs_out_of_space_loses_nothing_and_finishes_later(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pdf = make_pdf(tmp_path / "contract.pdf", text_pages(4))
    other = make_pdf(tmp_path / "other.pdf", text_pages(2, tag="other"))
    with Library.open() as library:
        ingest_path(library, other, IngestOptions(embed=False))
    real_chunk, real_disk_usage = Ingestor._chunk, shutil.disk_usage

    def full_disk(self: Ingestor, doc_id: str) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(Ingestor, "_chunk", full_disk)
    _free(monkeypatch, 3 * 1024**2)
    assert main(["ingest", str(pdf), "--json"]) != 0
    out = json.loads(capsys.readouterr().out)
    reported = json.dumps(out)
    assert "No space left on the disk holding" in reported and "add contract.pdf again to finish it" in reported
    assert "move it away" not in reported
    monkeypatch.setattr(Ingestor, "_chunk", real_chunk)  # space freed
    monkeypatch.setattr(shutil, "disk_usage", real_disk_usage)
    with Library.open() as library:
        assert library.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        result = ingest_path(library, pdf, IngestOptions(embed=False))
        assert library.document(result.doc_id).state == "ready" and result.pages == 4 and result.passages > 0
        assert len(library.documents()) == 2


def test_a_batch_stopped_by_a_full_disk_says_how_much_to_free(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The files left at what each document took (the library's files, not the models beside it)."""
    from summarizer.library.storage.disk_space import batch_space_error

    _free(monkeypatch, 5 * 1024**2)
    for name, size in (("library.sqlite", 25 * 1024**2), ("vectors.faiss", 5 * 1024**2), ("models/m.gguf", 10**9)):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        with (tmp_path / name).open("wb") as handle:
            handle.truncate(size)  # sparse: no disk used
    message = str(batch_space_error(tmp_path, documents=3, added=2, pending=10))
    assert message == (
        f"No space left on the disk holding {tmp_path} (5 MiB free): free at least 100 MiB there, then continue; "
        "the 2 files added so far stay. The 10 files still to add take about 100 MiB in the library, going by the "
        "3 documents in it."
    )
    one = str(batch_space_error(tmp_path, documents=1, added=1, pending=1))
    assert "then continue; the file added so far stays. The 1 file still to add takes about" in one
    empty = str(batch_space_error(tmp_path / "new", documents=0, added=0, pending=1))
    assert empty.endswith("free at least 64 MiB there, then continue; nothing in the library was lost.")

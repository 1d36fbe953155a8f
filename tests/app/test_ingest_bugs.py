"""An unexpected exception while adding a PDF is a bug: it reaches the crash report (and fails
the tests), while a typed error stays a message for the user."""

from __future__ import annotations

import queue
import threading
from pathlib import Path
from typing import Any

import pytest

import summarizer.library.ingest
from app.jobs.ingest_process import IngestBatch, IngestRequest, _run_batch
from app.jobs.runner import IngestBug, IngestJob
from summarizer.errors import DocumentError


def _run_child(monkeypatch: pytest.MonkeyPatch, error: BaseException, tmp_path: Path) -> list[tuple[Any, ...]]:
    def broken(*args: Any, **kwargs: Any) -> None:
        raise error

    monkeypatch.setattr(summarizer.library.ingest, "ingest_path", broken)
    sent: queue.Queue[tuple[Any, ...]] = queue.Queue()
    batch = IngestBatch([IngestRequest(str(tmp_path / "a.pdf"))], embed=False)
    _run_batch(batch, sent, threading.Event())  # type: ignore[arg-type]
    return [sent.get_nowait() for _ in range(sent.qsize())]


def test_the_ingest_process_sends_a_bug_with_its_traceback(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    messages = _run_child(monkeypatch, ZeroDivisionError("division by zero"), tmp_path)
    assert messages[0][0] == "bug" and messages[0][2] == "ZeroDivisionError: division by zero"
    assert "Traceback" in messages[0][3] and messages[-1] == ("finished",)
    typed = _run_child(monkeypatch, DocumentError("a.pdf is damaged."), tmp_path)
    assert typed[0] == ("error", str(tmp_path / "a.pdf"), "document", "a.pdf is damaged.")


def test_the_window_reports_an_ingest_bug_as_a_bug(qtbot: Any, tmp_path: Path) -> None:
    job = IngestJob([IngestRequest(str(tmp_path / "a.pdf"))], home=None, embed=False, embedding_model=None)
    bugs: list[IngestBug] = []
    failed: list[str] = []
    job.bug.connect(bugs.append)
    job.file_failed.connect(lambda path, kind, text: failed.append(kind))
    job.pending.add(str(tmp_path / "a.pdf"))
    job._handle([("bug", str(tmp_path / "a.pdf"), "ZeroDivisionError: x", "Traceback ...")])
    assert len(bugs) == 1 and "ZeroDivisionError" in str(bugs[0]) and failed == []
    from app.widgets.messages import MessageCenter

    center = MessageCenter()
    center.raise_unexpected = True
    with pytest.raises(IngestBug):
        center.report(bugs[0], "adding documents")


def test_an_exception_on_one_file_of_a_folder_is_that_file_s_error_and_the_batch_ends(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A file that breaks a reader must not block the data room at every --resume (hostile-inputs
    report, section 2): its exception is its error, the batch goes on and ends."""
    from app.jobs.ingest_process import FolderBatch
    from summarizer.library.batches import run_batch
    from summarizer.library.batches.batch_store import unfinished_batch
    from summarizer.library.storage.store import Library
    from tests.pdf_factory import make_pdf, text_pages

    def broken(*args: Any, **kwargs: Any) -> None:
        raise ZeroDivisionError("division by zero")

    (tmp_path / "room").mkdir()
    make_pdf(tmp_path / "room" / "a.pdf", text_pages(1))
    monkeypatch.setattr(run_batch, "ingest_path", broken)
    sent: queue.Queue[tuple[Any, ...]] = queue.Queue()
    _run_batch(IngestBatch([], embed=False, folder=FolderBatch([str(tmp_path / "room")])), sent, threading.Event())  # type: ignore[arg-type]
    messages = [sent.get_nowait() for _ in range(sent.qsize())]
    error = next(m for m in messages if m[0] == "error")
    assert error[1].endswith("a.pdf") and "Pagewise failed on it (ZeroDivisionError: division by zero)" in error[3]
    assert messages[-2][0] == "batch_summary" and messages[-2][1]["pending"] == 0 and messages[-1] == ("finished",)
    with Library.open() as library:
        assert unfinished_batch(library) is None


@pytest.mark.parametrize("error", [DocumentError("room.zip cannot be read."), FileNotFoundError("room/.unpacked")])
def test_a_folder_that_fails_to_unpack_or_walk_is_said(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, error: Exception
) -> None:
    from app.jobs.ingest_process import FolderBatch
    from summarizer.library.batches import run_batch

    def broken(*args: Any, **kwargs: Any) -> None:
        raise error

    monkeypatch.setattr(run_batch, "start_batch", broken)
    sent: queue.Queue[tuple[Any, ...]] = queue.Queue()
    _run_batch(IngestBatch([], embed=False, folder=FolderBatch([str(tmp_path / "room")])), sent, threading.Event())  # type: ignore[arg-type]
    messages = [sent.get_nowait() for _ in range(sent.qsize())]
    assert messages[0][0] == ("error" if isinstance(error, DocumentError) else "bug")
    assert messages[0][1] == str(tmp_path / "room") and messages[-1] == ("finished",)

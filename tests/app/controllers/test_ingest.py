"""Adding a data room in the window (issue 46): one progress over the set, a summary at the end,
failed files' rows, and a batch the window was closed in the middle of offered at the next start.

The bad input of a batch half-way (the disk filling up, the ingest process killed) is driven
through the real controller, job and ingest process: the worker is the real one
(``ingest_process._child``) with one fault put into the third document it reads
(``child_with_a_fault``), started before the batch so the runner takes it as an idle worker."""

from __future__ import annotations

import multiprocessing
import os
import signal
import sqlite3
from collections import namedtuple
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from app.jobs.ingest_process import IngestProcess
from inference.cancel import Cancelled, CancelToken
from inference.progress import Progress
from summarizer.library.batches.batch_store import unfinished_batch
from summarizer.library.batches.run_batch import run_batch, start_batch
from summarizer.library.ingest import IngestOptions
from summarizer.library.storage.store import Library
from tests.summarizer.library.batches.conftest import data_room  # noqa: F401  (a fixture)


def _wait_idle(qtbot: Any, window: Any) -> None:
    qtbot.waitUntil(lambda: not window.runner.ingests, timeout=90_000)


def test_a_dropped_folder_is_added_as_one_batch_with_a_summary(
    qtbot: Any,
    make_window: Any,
    data_room: Path,  # noqa: F811
) -> None:
    window = make_window()
    seen: list[Progress] = []
    job = window.add_paths([data_room])
    job.batch_progress.connect(seen.append)
    labels: list[str] = []
    job.batch_progress.connect(lambda _p: labels.append(window.ingest_progress.label.text()))
    _wait_idle(qtbot, window)
    assert [p.done for p in seen] == list(range(10)) and {p.total for p in seen} == {9}
    assert any(label.startswith("Adding files 3/9 · ") and "pages/s" in label for label in labels), labels
    summary = window.messages.history[-1]
    assert summary.text.startswith(f"Added {data_room.name}: 6 added, 1 skipped as duplicate, 2 failed")
    panel = window.library_panel
    assert panel.file_state(str(data_room / "broken.pdf")) == "error · could not be added"
    assert panel.file_state(str(data_room / "services" / "locked.pdf")) == "encrypted · needs its password"
    qtbot.waitUntil(lambda: len([k for k in panel.row_keys() if not k.startswith("path:")]) == 6, timeout=5000)
    with Library.open() as library:
        assert unfinished_batch(library) is None


def test_the_window_closed_mid_batch_offers_to_continue_at_the_next_start(
    qtbot: Any,
    make_window: Any,
    data_room: Path,  # noqa: F811
) -> None:
    """The library as a window closed after two files leaves it (each file's outcome is committed
    as it ends; the process killed mid-file leaves that file pending, resumed by ingest)."""
    token = CancelToken()

    def close_after_two(file: Any, _outcome: str, _reason: str, _result: Any) -> None:
        if file.seq == 1:
            token.cancel()

    with Library.open() as library:
        batch_id = start_batch(library, [data_room])
        with pytest.raises(Cancelled):
            run_batch(library, batch_id, IngestOptions(embed=False), on_file=close_after_two, cancel=token)
    again = make_window()
    offer = next(m for m in again.messages.history if m.key == "ingest-batch")
    assert offer.text == f"Adding {data_room.name} was stopped before it finished: 2 of 9 files done, 7 to add."
    assert offer.action == "Continue"
    assert offer.on_action is not None
    offer.on_action()
    _wait_idle(qtbot, again)
    assert "6 added, 1 skipped as duplicate, 2 failed" in again.messages.history[-1].text
    with Library.open() as library:
        assert unfinished_batch(library) is None and len(library.documents()) == 6


Usage = namedtuple("Usage", "total used free")
FAULTY_DOCUMENT = 3  # the fault is put into the third document the worker reads
LOW_FREE_BYTES = 3 * 1024**2


def child_with_a_fault(fault: str, *args: Any) -> None:
    """``ingest_process._child`` with one fault, in the spawned child (so importable from here):
    "disk": the third document's passages cannot be written, as on a full disk (SQLite's words,
    3 MiB left on the disk), once, then there is room again; "hang": the third document never
    ends (for the test to kill the process there); "hang-walk": finding the folder's documents
    never ends."""
    import shutil
    import time

    from app.jobs.ingest_process import _child
    from summarizer.library import ingest
    from summarizer.library.batches import run_batch as run_batch_module

    real_chunk, real_disk_usage, real_find = ingest.Ingestor._chunk, shutil.disk_usage, run_batch_module.find_documents
    chunked = 0

    def chunk(self: Any, doc_id: str) -> None:
        nonlocal chunked
        chunked += 1
        shutil.disk_usage = real_disk_usage  # (space was freed: the user pressed Continue)
        if chunked == FAULTY_DOCUMENT and fault == "disk":
            shutil.disk_usage = lambda _path: Usage(10 * 1024**3, 10 * 1024**3 - LOW_FREE_BYTES, LOW_FREE_BYTES)
            raise sqlite3.OperationalError("database or disk is full")
        if chunked == FAULTY_DOCUMENT and fault == "hang":
            time.sleep(600)
        real_chunk(self, doc_id)

    def find_documents(*find_args: Any, **kwargs: Any) -> Any:
        if fault == "hang-walk":
            time.sleep(600)
        return real_find(*find_args, **kwargs)

    ingest.Ingestor._chunk = chunk  # type: ignore[method-assign]
    run_batch_module.find_documents = find_documents
    _child(*args)


def faulty_worker(window: Any, fault: str) -> IngestProcess:
    """A started ingest worker with ``fault``, taken by the window's next add."""
    home = os.environ.get("PAGEWISE_HOME")
    worker = IngestProcess(home=home)
    worker.process = multiprocessing.get_context("spawn").Process(
        target=partial(child_with_a_fault, fault),
        args=(worker.inbox, worker.queue, worker.cancel_flag, home),
        name="pagewise-ingest",
        daemon=True,
    )
    worker.start()
    window.runner.idle_ingest_workers.append(worker)
    return worker


def _shown(window: Any) -> list[str]:
    return [item.message.text for item in window.message_bar.items()]


def _rows_still_adding(window: Any) -> list[str]:
    """The rows of files that say they are being added (a failed file's row stays: it says why)."""
    panel = window.library_panel
    states = [panel.state_of(key) or "" for key in panel.row_keys() if key.startswith("path:")]
    return [state for state in states if not state.startswith(("error", "encrypted"))]


def _documents_listed(window: Any) -> set[str]:
    return {key for key in window.library_panel.row_keys() if not key.startswith("path:")}


def test_a_full_disk_half_way_keeps_the_documents_added_and_offers_to_continue(
    qtbot: Any,
    make_window: Any,
    data_room: Path,  # noqa: F811
    pagewise_home: Path,
) -> None:
    window = make_window()
    faulty_worker(window, "disk")
    window.add_paths([data_room])
    _wait_idle(qtbot, window)
    full = next(m for m in window.messages.history if m.key == "ingest-batch-disk")
    # Where (the disk holding the library, with what is left on it) and what to do.
    assert full.level == "warning" and full.action == "Continue" and full.on_action is not None
    assert full.text.startswith(
        f"No space left on the disk holding {pagewise_home} (3 MiB free): free at least 64 MiB there, then "
        "continue; the 2 files added so far stay. The 6 files still to add take about "
    )
    summary = window.messages.history[-1]
    assert summary.key == "ingest-batch" and summary.action == "Continue"
    assert summary.text.startswith(f"Added {data_room.name}: 2 added") and "still to add" in summary.text
    assert full.text in _shown(window) and summary.text in _shown(window)  # both stay on screen
    assert _rows_still_adding(window) == []
    with Library.open() as library:
        kept = {document.doc_id for document in library.documents() if document.state == "ready"}
        assert len(kept) == 2 and unfinished_batch(library) is not None
    qtbot.waitUntil(lambda: kept <= _documents_listed(window), timeout=5000)  # listed, not only stored
    assert not window.ingest_progress.isVisible()

    full.on_action()  # space was freed: Continue
    _wait_idle(qtbot, window)
    assert window.messages.history[-1].text.startswith(
        f"Added {data_room.name}: 6 added, 1 skipped as duplicate, 2 failed"
    )
    assert full.text not in _shown(window)  # the full disk's message went with the batch it stopped
    with Library.open() as library:
        assert unfinished_batch(library) is None and len(library.documents()) == 6
        assert kept <= {document.doc_id for document in library.documents()}


def _states() -> list[str]:
    with Library.open() as library:
        return sorted(document.state for document in library.documents())


def _kill_when(qtbot: Any, window: Any, worker: IngestProcess, ready: Any) -> None:
    qtbot.waitUntil(ready, timeout=60_000)
    assert worker.pid is not None and worker.alive
    os.kill(worker.pid, signal.SIGKILL)
    _wait_idle(qtbot, window)


def test_the_ingest_process_killed_mid_batch_is_said_and_continued_at_the_next_start(
    qtbot: Any,
    make_window: Any,
    data_room: Path,  # noqa: F811
) -> None:
    window = make_window()
    worker = faulty_worker(window, "hang")
    job = window.add_paths([data_room])
    # Killed in the middle of the third document (its pages stored, its passages not).
    _kill_when(qtbot, window, worker, lambda: _states() == ["chunking", "ready", "ready"])
    assert job.batch_id is not None
    stopped = next(m for m in window.messages.history if m.key == "ingest-batch-stopped")
    assert stopped.text.startswith("The PDF reader was ended by the system (SIGKILL, as when memory runs out) with ")
    assert "files still to add; the files added so far stay" in stopped.text
    assert stopped.action == "Continue" and stopped.text in _shown(window)
    assert window.isVisible() and not window.ingest_progress.isVisible() and not window.runner.ingests
    assert _states() == ["chunking", "ready", "ready"]
    assert _rows_still_adding(window) == []  # the file it was reading shows as the partial document it is
    with Library.open() as library:
        (partial_id,) = [document.doc_id for document in library.documents() if document.state != "ready"]
    qtbot.waitUntil(lambda: window.library_panel.state_of(partial_id) == "interrupted · add it again to finish")
    window.close()

    again = make_window()  # the next start, on the same library
    offer = next(m for m in again.messages.history if m.key == "ingest-batch")
    assert offer.text.startswith(f"Adding {data_room.name} was stopped before it finished: ")
    assert offer.action == "Continue" and offer.on_action is not None and offer.text in _shown(again)
    offer.on_action()
    _wait_idle(qtbot, again)
    assert again.messages.history[-1].text.startswith(
        f"Added {data_room.name}: 6 added, 1 skipped as duplicate, 2 failed"
    )
    with Library.open() as library:
        assert unfinished_batch(library) is None and len(library.documents()) == 6
        assert all(document.state == "ready" for document in library.documents())


def test_the_ingest_process_killed_while_finding_the_documents_is_said(
    qtbot: Any,
    make_window: Any,
    data_room: Path,  # noqa: F811
) -> None:
    """Before the batch is stored there is nothing to continue: the message says to add the folder
    again (a zip that filled the memory as it was unpacked ends so)."""
    window = make_window()
    worker = faulty_worker(window, "hang-walk")
    job = window.add_paths([data_room])
    _kill_when(qtbot, window, worker, lambda: worker.alive and job.batch_id is None and bool(window.runner.ingests))
    stopped = next(m for m in window.messages.history if m.key == "ingest-batch-stopped")
    assert stopped.text.startswith("The PDF reader was ended by the system (SIGKILL, as when memory runs out) while ")
    assert f"Add {data_room.name} again" in stopped.text
    assert stopped.text in _shown(window) and not window.ingest_progress.isVisible()


def test_the_window_s_batch_summary_names_a_file_not_added_and_what_to_do() -> None:
    """Walk 2026-12-06, finding 9: a .doc in a dropped folder was "1 not added (not documents)"."""
    from app.controllers.ingest import describe_summary

    reason = "an old Word 97–2003 document (.doc), which Pagewise does not read: open it and save it as .docx"
    summary = {"added": 2, "duplicates": 0, "failed": [], "pending": 0}
    line = describe_summary({**summary, "skipped": [{"path": "/room/old.doc", "reason": reason}]})
    assert line == f"2 added, 1 not added: old.doc ({reason})"

"""Closing the window while work runs (issue 24): it asks first, and once closed no job's
signal reaches the closed library (there were four "Cannot operate on a closed database")."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.pdf_factory import make_pdf, text_pages


def test_closing_during_an_ingest_asks_then_stops_cleanly(
    qtbot: Any, make_window: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    window = make_window()
    asked: list[list[str]] = []
    answers = [False, True]
    window.confirm_close = lambda running: asked.append(running) or answers.pop(0)
    window.add_paths([make_pdf(tmp_path / "long.pdf", text_pages(600, 200))])
    qtbot.waitUntil(lambda: any(job.pending for job in window.runner.ingests), timeout=20_000)
    qtbot.wait(300)  # into the pages
    window.close()
    assert window.isVisible() and asked == [["adding 1 document"]]  # Cancel: nothing stopped
    assert window.runner.ingests
    window.close()
    assert not window.isVisible() and len(asked) == 2
    with caplog.at_level(logging.ERROR):
        qtbot.wait(1500)  # the killed process's last messages would arrive now
    assert not [r for r in caplog.records if "closed database" in r.getMessage()]


def test_quitting_while_idle_asks_nothing(qtbot: Any, make_window: Any) -> None:
    window = make_window()
    window.confirm_close = lambda running: pytest.fail(f"asked although idle: {running}")
    window.close()
    assert not window.isVisible()


def test_closed_window_holds_no_file_of_its_library(
    qtbot: Any, make_window: Any, tmp_path: Path, pagewise_home: Path, windows_file_locks: Any
) -> None:
    """Once closed, the window, its LLM thread and its ingest process hold none of the library's
    files, so its folder can be deleted on Windows (issue 54: the self-test's folder was not)."""
    window = make_window()
    window.add_paths([make_pdf(tmp_path / "short.pdf", text_pages(2, 50))])
    qtbot.waitUntil(lambda: window.doc_id is not None and not window.runner.ingests, timeout=60_000)
    done: list[int] = []
    job = window.runner.submit_llm("count", lambda _job: len(window.worker_library().documents()))
    job.succeeded.connect(done.append)
    qtbot.waitUntil(lambda: done == [1], timeout=10_000)
    assert window.runner.idle_ingest_workers  # kept for the next add, until the window closes
    window.close()
    shutil.rmtree(pagewise_home)
    assert not windows_file_locks.refusals and not pagewise_home.exists()

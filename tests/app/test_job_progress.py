"""The progress line of a job: a stop is acknowledged at once."""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot

from app.job_progress import JobProgress
from inference.progress import Progress

pytestmark = pytest.mark.gui


def test_stop_says_stopping_at_once_and_later_progress_does_not_hide_it(qtbot: QtBot) -> None:
    bar = JobProgress("Stop the answer")
    qtbot.addWidget(bar)
    bar.start("Reading the prompt")
    with qtbot.waitSignal(bar.cancel_requested, timeout=1000):
        bar.cancel_button.click()
    assert bar.label.text() == "Stopping…"
    assert not bar.cancel_button.isEnabled()
    # The model finishes its running micro-batch and may still report progress meanwhile.
    bar.update_progress(Progress("Reading the prompt", 3, 8))
    assert bar.label.text() == "Stopping…"
    bar.start("Answering")  # the next job starts clean
    assert bar.label.text() == "Answering"
    assert bar.cancel_button.isEnabled()

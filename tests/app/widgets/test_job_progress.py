"""The progress line of a job: a stop is acknowledged at once."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QPoint
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from app.widgets.job_progress import JobProgress
from inference.progress import Progress, Stage

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
    bar.update_progress(Progress(Stage.GENERATE, 3, 8))
    assert bar.label.text() == "Stopping…"
    bar.start("Answering")  # the next job starts clean
    assert bar.label.text() == "Answering"
    assert bar.cancel_button.isEnabled()


def test_small_words_read_right() -> None:
    """Findings: "1 pages", "~0 s left"."""
    from app.widgets.job_progress import format_eta, plural

    assert plural(1, "page") == "1 page" and plural(2, "page") == "2 pages" and plural(1200, "page") == "1,200 pages"
    assert format_eta(0.3) == "almost done" and format_eta(5) == "~5 s left"


def test_about_names_the_version(make_window: Any) -> None:
    from app import version

    window = make_window()
    assert version() in window.about_text() and version() != ""
    assert "CUAD" in window.about_text() and "CC BY 4.0" in window.about_text()  # the ranker's data, credited


def test_a_review_says_its_total_counts_readings() -> None:
    from app.widgets.job_progress import describe

    line = describe(Progress(Stage.REVIEW, 3, 18, "1/9 cells done · a.pdf: Parties"))
    assert line == "Reviewing 3/18 readings · 1/9 cells done · a.pdf: Parties"


def test_a_progress_line_too_long_for_its_pane_ends_between_words(qtbot: QtBot) -> None:
    """Issue 24: "sample-contrac" was cut mid-word in the Review tab's progress line."""
    progress = JobProgress()
    qtbot.addWidget(progress)
    progress.resize(260, 30)
    progress.start("Finding the clauses…")
    progress.show()
    text = "Finding the clauses 3/41 · sample-contract: Non-Compete and Exclusivity clauses"
    progress.update_progress(
        Progress(Stage.FIND_CLAUSES, 3, 41, "sample-contract: Non-Compete and Exclusivity clauses")
    )
    shown = progress.label.shown_text()
    assert progress.label.text() == text and progress.label.toolTip() == text
    assert shown.endswith("…") and text.startswith(shown[:-1].rstrip()) and text[len(shown) - 1] in " ·:"


def test_no_estimate_before_a_tenth_of_the_work_and_the_time_so_far_meanwhile(qtbot: QtBot) -> None:
    """Issue 24: "~44 s left" at 9/154 pages when the reading took 100 s; a summary said nothing
    for minutes until its first segment ended."""
    import time as clock

    early = Progress(Stage.READ_PAGES, 9, 154, "a.pdf", rate=3.4)
    assert early.eta_seconds() is None
    assert Progress(Stage.READ_PAGES, 16, 154, "a.pdf", rate=3.4).eta_seconds() == pytest.approx(138 / 3.4)
    progress = JobProgress()
    qtbot.addWidget(progress)
    progress.start("Summarizing…")
    progress._started = clock.monotonic() - 75  # started 75 s ago, no segment finished yet
    progress.update_progress(Progress(Stage.SUMMARIZE_SEGMENTS, 0, 12))
    assert progress.eta.text() == "1 min 15 s so far"


def test_a_finished_stage_is_not_called_almost_done(qtbot: QtBot) -> None:
    """Walk 2026-12-05, finding 15: "Reading pages 8/8 · almost done" stayed ~25 s on a scan,
    then "Recognizing page 2 of 8 · ~3 min 24 s left": a stage's end is not the job's."""
    from app.widgets.job_progress import row_state

    bar = JobProgress("Stop adding documents")
    qtbot.addWidget(bar)
    bar.start("Adding scan.pdf")
    read = Progress(Stage.READ_PAGES, 8, 8, rate=20.0)
    bar.update_progress(read)
    assert "almost done" not in bar.eta.text() and "left" not in bar.eta.text()
    assert row_state(read) == "indexing 8/8 pages"
    halfway = Progress(Stage.RECOGNIZE_PAGES, 4, 8, rate=0.05)
    bar.update_progress(halfway)
    assert bar.eta.text() == "~1 min 20 s left"
    assert row_state(halfway) == "recognizing page 4 of 8 · ~1 min 20 s left"


def test_a_progress_line_that_keeps_its_space_moves_nothing_when_it_ends(qtbot: QtBot) -> None:
    """The walk of 2026-12-06, finding 15: when the review's progress line went, the table moved up
    a row under the pointer and a click meant for one row hit the next."""
    from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

    pane = QWidget()
    layout = QVBoxLayout(pane)
    progress = JobProgress("Stop the review", keep_space=True)
    below = QLabel("the table")
    layout.addWidget(progress)
    layout.addWidget(below)
    layout.addStretch(1)
    qtbot.addWidget(pane)
    pane.resize(400, 300)
    pane.show()
    qtbot.waitExposed(pane)
    progress.start("Finding the clauses")
    qtbot.waitUntil(lambda: below.y() > progress.y())
    while_running = below.y()
    progress.stop()
    qtbot.wait(50)  # the layout settles
    assert progress.isHidden() and below.y() == while_running


def test_a_word_file_is_indexed_by_paragraphs_not_pages() -> None:
    """Walk 2026-12-06, finding 20: a Word file's row said "indexing 14/14 pages"."""
    from app.widgets.job_progress import row_state

    assert row_state(Progress(Stage.READ_PAGES, 14, 14, "supply.docx")) == "indexing 14/14 paragraphs"
    assert row_state(Progress(Stage.READ_PAGES, 14, 14, "supply.pdf")) == "indexing 14/14 pages"


# A pane's progress line keeps its space when it ends (the walk of 2026-12-06, finding 15: when the
# review's progress line went, the grid moved up a row and a click meant for Change of Control landed
# on Anti-Assignment; the Ask pane's answer moved the same way).
def _settled(pane: QWidget) -> None:
    """The pane's layouts applied now (what the event loop would do next)."""
    QApplication.processEvents()
    for layout in [w.layout() for w in pane.findChildren(QWidget)] + [pane.layout()]:
        if layout is not None:
            layout.activate()
    QApplication.processEvents()


def _stays_in_place(pane: QWidget, progress: JobProgress, below: QWidget) -> None:
    """``below`` keeps its place and height in ``pane`` when ``progress``, shown, ends."""
    pane.resize(520, 700)
    pane.show()
    progress.start("Finding the clauses")
    _settled(pane)
    assert progress.isVisible()
    while_running = below.mapTo(pane, QPoint(0, 0)).y(), below.height()
    progress.stop()
    _settled(pane)
    assert progress.isHidden()
    assert (below.mapTo(pane, QPoint(0, 0)).y(), below.height()) == while_running


def test_the_review_grid_and_the_answer_stay_in_place_when_their_progress_line_ends(qtbot: Any) -> None:
    from app.views.conversation_view import ConversationView
    from app.views.review_view import ReviewPanel

    review = ReviewPanel()
    qtbot.addWidget(review)
    _stays_in_place(review, review.progress, review.views)

    conversation = ConversationView()
    qtbot.addWidget(conversation)
    _stays_in_place(conversation, conversation.progress, conversation.browser)

"""A pane's progress line keeps its space when it ends (the walk of 2026-12-06, finding 15: when the
review's progress line went, the grid moved up a row and a click meant for Change of Control landed
on Anti-Assignment; the Ask pane's answer moved the same way)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QPoint
from PySide6.QtWidgets import QApplication, QWidget

from app.widgets.job_progress import JobProgress


def _settled(pane: QWidget) -> None:
    """The pane's layouts applied now (what the event loop would do next)."""
    QApplication.processEvents()
    for layout in [w.layout() for w in pane.findChildren(QWidget)] + [pane.layout()]:
        if layout is not None:
            layout.activate()
    QApplication.processEvents()


def _place(pane: QWidget, progress: JobProgress, below: QWidget) -> tuple[int, int]:
    """Where ``below`` is in the pane (its top and its height), with ``progress`` shown and then ended."""
    pane.resize(520, 700)
    pane.show()
    progress.start("Finding the clauses")
    _settled(pane)
    assert progress.isVisible()
    return below.mapTo(pane, QPoint(0, 0)).y(), below.height()


def test_the_review_grid_and_the_answer_stay_in_place_when_their_progress_line_ends(qtbot: Any) -> None:
    from app.views.conversation_view import ConversationView
    from app.views.review_view import ReviewPanel

    review = ReviewPanel()
    qtbot.addWidget(review)
    while_running = _place(review, review.progress, review.views)
    review.progress.stop()
    _settled(review)
    assert review.progress.isHidden()
    assert (review.views.mapTo(review, QPoint(0, 0)).y(), review.views.height()) == while_running

    conversation = ConversationView()
    qtbot.addWidget(conversation)
    while_running = _place(conversation, conversation.progress, conversation.browser)
    conversation.progress.stop()
    _settled(conversation)
    assert conversation.progress.isHidden()
    assert (conversation.browser.mapTo(conversation, QPoint(0, 0)).y(), conversation.browser.height()) == while_running

"""A progress row: what is running, a bar, the ETA, and a cancel button."""

from __future__ import annotations

import time

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QToolButton, QWidget

from app.widgets.elided_label import ElidedLabel
from inference.progress import Progress, Stage


def plural(n: int, word: str) -> str:
    """'1 page', '2 pages'."""
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"


def format_eta(seconds: float | None) -> str:
    if seconds is None:
        return ""
    seconds = round(seconds)
    if seconds < 1:
        return "almost done"
    if seconds < 60:
        return f"~{seconds} s left"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"~{minutes} min {seconds:02d} s left"
    hours, minutes = divmod(minutes, 60)
    return f"~{hours} h {minutes:02d} min left"


def stage_eta(progress: Progress) -> float | None:
    """Seconds left in ``progress``'s stage (the summarizer's own estimate when it gives one);
    None once the stage's work is all done: another stage may follow, and "almost done" after
    reading a scan's pages came minutes before its OCR ended (walk 2026-12-05)."""
    if progress.total and progress.done >= progress.total:
        return None
    eta = getattr(progress, "eta_s", None)
    return eta if eta is not None else progress.eta_seconds()


ROW_STAGES = {
    Stage.READ_PAGES: ("indexing", " pages"),
    Stage.RECOGNIZE_PAGES: ("recognizing", " pages"),
    Stage.EMBED_PASSAGES: ("embedding", " passages"),
    Stage.SUMMARIZE_SEGMENTS: ("summarizing", " segments"),
}


def row_state(progress: Progress, *, every_stage: bool = True) -> str | None:
    """What a document's row in the library says while a job works on it ("indexing 17/154
    pages", "summarizing 3/7 segments"). ``every_stage=False``: None for a stage without its
    own words."""
    known = ROW_STAGES.get(progress.stage)
    if known is None and not every_stage:
        return None
    word, unit = known or (progress.stage.lower(), "")
    if progress.stage == Stage.READ_PAGES and progress.message.lower().endswith(".docx"):
        unit = " paragraphs"  # a Word file's "pages" are its paragraphs (its message is the file's name)
    state = f"{word} {progress.done}/{progress.total}{unit}" if progress.total else word
    if progress.stage == Stage.RECOGNIZE_PAGES and progress.total:
        state = f"recognizing page {progress.done} of {progress.total}"
    eta = format_eta(stage_eta(progress))
    return state + (f" · {eta}" if eta else "")


UNITS = {Stage.REVIEW: " readings"}  # a review's total counts readings (items x reading units), not cells


def describe(progress: Progress) -> str:
    if progress.stage == Stage.RECOGNIZE_PAGES and progress.total:
        return f"Recognizing page {progress.done} of {progress.total}" + (
            f" · {progress.message}" if progress.message else ""
        )
    text = progress.stage[:1].upper() + progress.stage[1:]
    if progress.total:
        text += f" {progress.done}/{progress.total}{UNITS.get(progress.stage, '')}"
    if progress.message:
        text += f" · {progress.message}"
    return text


class JobProgress(QWidget):
    """Hidden until ``start``; ``cancel_requested`` when its button is pressed. ``keep_space``:
    once shown, its row stays empty when it hides, so what is below does not move up under the
    pointer (the walk of 2026-12-06, finding 15: a click meant for one review row hit the next)."""

    cancel_requested = Signal()

    def __init__(self, cancel_tip: str = "Cancel", parent: QWidget | None = None, *, keep_space: bool = False) -> None:
        super().__init__(parent)
        self._keep_space = keep_space
        self.label = ElidedLabel("")  # a narrow pane ends it in "…" between words, whole in the tooltip
        self.bar = QProgressBar()
        self.bar.setMaximumWidth(180)
        self.bar.setTextVisible(False)
        self.bar.setMaximumHeight(12)
        self.eta = QLabel("")
        self.cancel_button = QToolButton()
        self.cancel_button.setText("Cancel")
        self.cancel_button.setToolTip(cancel_tip)
        self.cancel_button.clicked.connect(self.mark_stopping)
        self.cancel_button.clicked.connect(self.cancel_requested)
        self._stopping = False
        self._started = time.monotonic()
        self._has_eta = False
        self._clock = QTimer(self)
        self._clock.setInterval(1000)
        self._clock.timeout.connect(self._tick)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 0, 4, 0)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.bar)
        layout.addWidget(self.eta)
        layout.addWidget(self.cancel_button)
        self.hide()

    def start(self, text: str) -> None:
        self._started = time.monotonic()
        self._has_eta = False
        self._clock.start()
        self.label.setText(text)
        self.bar.setRange(0, 0)  # busy until a total is known
        self.eta.setText("")
        self.cancel_button.setEnabled(True)
        self._stopping = False
        if self._keep_space:
            policy = self.sizePolicy()
            policy.setRetainSizeWhenHidden(True)
            self.setSizePolicy(policy)
        self.show()

    def mark_stopping(self) -> None:
        """Say at once that the stop was heard: a model stops at the end of its running
        micro-batch (tens of milliseconds to a few seconds with layers in CPU memory)."""
        if self.isHidden():
            return
        self._stopping = True
        self.label.setText("Stopping…")
        self.eta.setText("")
        self.cancel_button.setEnabled(False)

    def update_progress(self, progress: Progress) -> None:
        if self._stopping:
            return
        self.label.setText(describe(progress))
        if progress.total:
            self.bar.setRange(0, progress.total)
            self.bar.setValue(min(progress.done, progress.total))
        else:
            self.bar.setRange(0, 0)
        text = format_eta(stage_eta(progress))
        self._has_eta = bool(text)
        self.eta.setText(text or self._elapsed())

    def _elapsed(self) -> str:
        """Until there is an estimate, how long it has run (so a first step that takes minutes
        is seen to be alive)."""
        seconds = round(time.monotonic() - self._started)
        if seconds < 3:
            return ""
        minutes, seconds = divmod(seconds, 60)
        return f"{minutes} min {seconds:02d} s so far" if minutes else f"{seconds} s so far"

    def _tick(self) -> None:
        if not self._has_eta and not self._stopping and not self.isHidden():
            self.eta.setText(self._elapsed())

    def stop(self) -> None:
        self._clock.stop()
        self.hide()

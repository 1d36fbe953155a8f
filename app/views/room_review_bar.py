"""The Review tab's model review of a data room (issue 57): the "Review with the model" button,
the model loading ("Loading <model>…" with the loader's steps), then the progress over the whole
set (contracts done of the total, items per minute, time left, the contracts skipped because this
model and checklist reviewed them before) with Pause/Resume and Stop, and one notice line with its
button: a review left unfinished ("Continue"), or a server that stopped answering ("Resume"). It
only shows state and says what was asked for; the room review controller
(``app.controllers.room_review``) does the work."""

from __future__ import annotations

import time

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QVBoxLayout, QWidget

from app.widgets.job_progress import format_eta, plural
from inference.progress import Progress, Stage
from summarizer.review.room_review import RoomStatus


def status_text(status: RoomStatus) -> str:
    """The progress line: "120 of 449 contracts · 310 items/min · ~1 h 12 min left · 12 already
    reviewed by this model and checklist, skipped"."""
    parts = [f"{status.contracts_done:,} of {plural(status.contracts, 'contract')}"]
    if status.items_per_min:
        parts.append(f"{status.items_per_min:,.0f} items/min")
    if status.eta_s is not None and status.contracts_done < status.contracts:
        parts.append(format_eta(status.eta_s))
    if status.skipped:
        parts.append(f"{status.skipped:,} already reviewed by this model and checklist, skipped")
    return " · ".join(parts)


class RoomReviewBar(QWidget):
    """The progress row and the notice row (both hidden until needed); ``button`` is laid out
    by the Review tab beside its Review button."""

    start_requested = Signal()
    pause_requested = Signal()
    resume_requested = Signal()
    stop_requested = Signal()
    notice_accepted = Signal(str)  # the notice's kind: "continue" or "resume"
    notice_dismissed = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("room-review")
        self.notice_kind = ""  # the notice shown: "continue", "resume" or ""
        self.paused = False
        self.loading_words = "Loading the model…"  # the controller names the model ("Loading Qwen2.5-14B…")
        self.loading: tuple[Progress | None, float] = (None, 0.0)  # the loader's last word, and since when
        self._load_clock = QTimer(self)  # the seconds go on while a step of the load takes long
        self._load_clock.setInterval(1000)
        self._load_clock.timeout.connect(self._show_loading)
        self.button = QPushButton("Review with the model…")
        self.button.setObjectName("room-review-start")
        self.button.clicked.connect(self.start_requested)
        self.label = QLabel("")
        self.label.setObjectName("room-review-status")
        self.bar = QProgressBar()
        self.bar.setMaximumWidth(220)
        self.bar.setMaximumHeight(14)
        self.bar.setFormat("%v/%m")
        self.pause_button = QPushButton("Pause")
        self.pause_button.setObjectName("room-review-pause")
        self.pause_button.setToolTip("No new item starts; those being read finish and are kept")
        self.pause_button.clicked.connect(self._pause_clicked)
        self.stop_button = QPushButton("Stop")
        self.stop_button.setObjectName("room-review-stop")
        self.stop_button.setToolTip("Stop the review: every contract and item finished so far is kept")
        self.stop_button.clicked.connect(self.stop_requested)
        self.notice = QLabel("")
        self.notice.setObjectName("room-review-notice")
        self.notice.setWordWrap(True)
        self.notice.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.notice_button = QPushButton("")
        self.notice_button.setObjectName("room-review-notice-action")
        self.notice_button.clicked.connect(lambda: self.notice_accepted.emit(self.notice_kind))
        self.dismiss_button = QPushButton("Dismiss")
        self.dismiss_button.clicked.connect(self._dismiss)
        self.progress_row = QWidget()
        row = QHBoxLayout(self.progress_row)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.label, 1)
        row.addWidget(self.bar)
        row.addWidget(self.pause_button)
        row.addWidget(self.stop_button)
        self.notice_row = QWidget()
        notice = QHBoxLayout(self.notice_row)
        notice.setContentsMargins(0, 0, 0, 0)
        notice.addWidget(self.notice, 1)
        notice.addWidget(self.notice_button, 0, Qt.AlignmentFlag.AlignTop)
        notice.addWidget(self.dismiss_button, 0, Qt.AlignmentFlag.AlignTop)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 0, 4, 0)
        layout.addWidget(self.progress_row)
        layout.addWidget(self.notice_row)
        self.progress_row.hide()
        self.notice_row.hide()

    def set_target(self, text: str, tip: str) -> None:
        """What the button reviews ("Review the library with the model…", "… the 37 filtered …")."""
        self.button.setText(text)
        self.button.setToolTip(tip)

    # --- a review running ----------------------------------------------------------------

    def start(self, text: str, contracts: int) -> None:
        self.button.setEnabled(False)
        self.label.setText(text)
        self._loading_done()
        self.bar.setRange(0, max(1, contracts))
        self.bar.setValue(0)
        self.set_paused(False)
        self.pause_button.setEnabled(True)
        self.stop_button.setEnabled(True)
        self.progress_row.show()
        self.hide_notice()

    def show_loading(self, progress: Progress) -> None:
        """The model loading before the first reading ("Loading Qwen2.5-14B… step 2 of 3 · loading
        the file · 12 s", the seconds going on while a step takes long), the bar the loader's share
        done, or busy while it gives none."""
        self.loading = (progress, self.loading[1] or time.monotonic())
        self._load_clock.start()
        self._show_loading()

    def _show_loading(self) -> None:
        progress, since = self.loading
        if progress is None or not self.progress_row.isVisible():
            self._load_clock.stop()
            return
        words = self.loading_words
        if progress.stage == Stage.HASH_MODEL:
            words += " reading its file once (to know its answers again)"
        elif progress.total and progress.done < progress.total:
            words += f" step {progress.done + 1} of {progress.total}"
        words += f" · {progress.message}" if progress.message and progress.stage == Stage.LOAD else ""
        seconds = round(time.monotonic() - since)
        text = words + (f" · {seconds} s" if seconds >= 2 else "")
        self.label.setText(f"Paused · {text}" if self.paused else text)
        self.label.setToolTip(text)
        self.bar.setFormat("%p%")
        if not progress.total:
            self.bar.setRange(0, 0)  # busy: the loader says nothing of how far it is
        else:
            self.bar.setRange(0, 100)
            self.bar.setValue(round(100 * min(1.0, progress.done / progress.total)))

    def _loading_done(self) -> None:
        self.loading = (None, 0.0)
        self._load_clock.stop()
        self.bar.setFormat("%v/%m")

    def show_status(self, status: RoomStatus) -> None:
        if self.loading[0] is not None:
            self._loading_done()
        self.bar.setRange(0, max(1, status.contracts))
        self.bar.setValue(min(status.contracts_done, status.contracts))
        text = status_text(status)
        self.label.setText(f"Paused · {text}" if self.paused else text)
        self.label.setToolTip(text)

    def set_paused(self, paused: bool) -> None:
        self.paused = paused
        self.pause_button.setText("Resume" if paused else "Pause")
        self.pause_button.setToolTip(
            "Go on with the review" if paused else "No new item starts; those being read finish and are kept"
        )
        text = self.label.text().removeprefix("Paused · ")
        self.label.setText(f"Paused · {text}" if paused else text)

    def _pause_clicked(self) -> None:
        (self.resume_requested if self.paused else self.pause_requested).emit()

    def mark_stopping(self) -> None:
        self.label.setText("Stopping: the items being read finish and are kept…")
        self.pause_button.setEnabled(False)
        self.stop_button.setEnabled(False)

    def finish(self) -> None:
        self._loading_done()
        self.progress_row.hide()
        self.button.setEnabled(True)
        self.set_paused(False)
        if self.notice_kind == "resume":
            self.hide_notice()

    # --- the notice ----------------------------------------------------------------------

    def show_notice(self, kind: str, text: str, action: str) -> None:
        """``text`` with the button ``action``; ``kind`` ("continue", "resume") comes back with
        ``notice_accepted`` when it is pressed."""
        self.notice_kind = kind
        self.notice.setText(text)
        self.notice_button.setText(action)
        self.dismiss_button.setVisible(kind == "continue")  # a paused job waits for Resume or Stop
        self.notice_row.show()

    def hide_notice(self) -> None:
        self.notice_kind = ""
        self.notice_row.hide()

    def _dismiss(self) -> None:
        kind = self.notice_kind
        self.hide_notice()
        self.notice_dismissed.emit(kind)

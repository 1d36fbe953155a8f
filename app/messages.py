"""The one place that turns errors into messages for the user (non-modal).

``MessageCenter.report(error)``: ``Cancelled`` is ignored (the user asked for it); a
``PagewiseError`` is shown as written (its message names the file and the next step);
anything else is a bug: shown as "Unexpected error", logged with its traceback, and
re-raised when ``raise_unexpected`` is on (the test suite turns it on, so bugs fail tests
instead of becoming a message nobody reads).

``MessageBar`` shows the messages in a strip above the window's content, each with a close
button; information fades after a few seconds, errors stay until closed.
"""

from __future__ import annotations

import logging
import traceback
from dataclasses import dataclass

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QToolButton, QVBoxLayout, QWidget

from inference.cancel import Cancelled
from inference.errors import PagewiseError

log = logging.getLogger("pagewise.app")

INFO_TIMEOUT_MS = 8000
MAX_SHOWN = 4


@dataclass(frozen=True, slots=True)
class Message:
    level: str  # "info", "warning", "error"
    text: str


class MessageCenter(QObject):
    posted = Signal(object)  # Message

    raise_unexpected = False

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.history: list[Message] = []

    def info(self, text: str) -> None:
        self._post(Message("info", text))

    def warning(self, text: str) -> None:
        self._post(Message("warning", text))

    def error(self, text: str) -> None:
        self._post(Message("error", text))

    def report(self, error: BaseException, context: str = "") -> None:
        if isinstance(error, Cancelled):
            return
        if isinstance(error, PagewiseError):
            self.error(str(error))
            return
        log.error("Unexpected error%s", f" while {context}" if context else "",
                  exc_info=(type(error), error, error.__traceback__))  # fmt: skip
        detail = "".join(traceback.format_exception_only(type(error), error)).strip()
        self.error(
            f"Unexpected error{f' while {context}' if context else ''}: {detail}. "
            "Pagewise keeps running; if it happens again, please report it with the log."
        )
        if self.raise_unexpected:
            raise error

    def _post(self, message: Message) -> None:
        self.history.append(message)
        log.info("%s: %s", message.level, message.text)
        self.posted.emit(message)


class _MessageItem(QFrame):
    def __init__(self, message: Message, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.message = message
        self.setObjectName(f"message-{message.level}")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        colors = {"info": "#2e7d32", "warning": "#ef6c00", "error": "#c62828"}
        self.setStyleSheet(
            f"QFrame#{self.objectName()} {{ border-left: 4px solid {colors[message.level]}; border-radius: 3px; }}"
        )
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 4, 4)
        label = QLabel(message.text)
        label.setWordWrap(True)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(label, 1)
        close = QToolButton()
        close.setText("✕")
        close.setAutoRaise(True)
        close.setToolTip("Dismiss")
        close.clicked.connect(self.deleteLater)
        layout.addWidget(close, 0, Qt.AlignmentFlag.AlignTop)
        if message.level == "info":
            QTimer.singleShot(INFO_TIMEOUT_MS, self.deleteLater)


class MessageBar(QWidget):
    """Non-modal messages stacked above the window's content."""

    def __init__(self, center: MessageCenter, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(6, 4, 6, 0)
        self._layout.setSpacing(3)
        center.posted.connect(self.show_message)

    def items(self) -> list[_MessageItem]:
        return self.findChildren(_MessageItem)

    def show_message(self, message: Message) -> None:
        items = [w for w in self.items() if not w.isHidden()]
        for old in items[: max(0, len(items) - MAX_SHOWN + 1)]:
            old.hide()
            old.deleteLater()
        item = _MessageItem(message, self)
        self._layout.addWidget(item)

"""The one place that turns errors into messages for the user (non-modal).

``MessageCenter.report(error)``: ``Cancelled`` is ignored (the user asked for it); a
``PagewiseError`` is shown as written (its message names the file and the next step);
anything else is a bug: shown as "Unexpected error", logged with its traceback, and
re-raised when ``raise_unexpected`` is on (the test suite turns it on, so bugs fail tests
instead of becoming a message nobody reads).

``MessageBar`` shows the messages floating over the bottom of the document pane (nothing under
the pointer moves when one comes or goes, and no button is covered: the pane's bottom is only
page), each opaque, with a close button, sized to its text and stacked one above the other: at
most ``MAX_SHOWN`` at once (the newest), the same text once; a text longer than ``MAX_LINES``
wrapped lines ends in "…" at a word boundary (never mid-word), whole in its tooltip.
Information fades after a few seconds; warnings and errors stay until closed, or until the
condition they describe ends: a message posted with a ``key`` ("model", "viewer") is replaced by
the next one with that key and taken away by ``resolve(key)``. A warning or an information may
carry one action (a button such as "Reindex" or "Show"): pressing it closes the message and calls
the action. An information with an action stays longer (``ACTION_INFO_TIMEOUT_MS``) and never
goes while the pointer is on it (a button that vanishes while the pointer moves to it is a trap);
it went only when closed before, and "X is ready. Show" banners stayed for minutes (the walk of
2026-12-06, finding 21).
"""

from __future__ import annotations

import logging
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field

from PySide6.QtCore import QEvent, QObject, QRect, Qt, QTimer, Signal
from PySide6.QtGui import QFontMetrics, QResizeEvent
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QToolButton, QVBoxLayout, QWidget

from inference.cancel import Cancelled
from inference.errors import PagewiseError, shorten_message

log = logging.getLogger("pagewise.app")

INFO_TIMEOUT_MS = 8000
ACTION_INFO_TIMEOUT_MS = 30000  # an information with a button: time to reach it
MAX_SHOWN = 2
MAX_LINES = 3  # lines of one banner


@dataclass(frozen=True, slots=True)
class Message:
    level: str  # "info", "warning", "error"
    text: str
    key: str = ""  # the condition it describes: a later message or ``resolve`` with that key ends it
    action: str = ""  # the label of the message's one button ("Reindex"); "" for none
    on_action: Callable[[], object] | None = field(default=None, compare=False)


class MessageCenter(QObject):
    posted = Signal(object)  # Message
    resolved = Signal(str)  # key

    raise_unexpected = False

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.history: list[Message] = []

    def info(self, text: str, key: str = "", action: str = "", on_action: Callable[[], object] | None = None) -> None:
        self._post(Message("info", text, key, action, on_action))

    def warning(
        self, text: str, key: str = "", action: str = "", on_action: Callable[[], object] | None = None
    ) -> None:
        self._post(Message("warning", text, key, action, on_action))

    def error(self, text: str, key: str = "") -> None:
        self._post(Message("error", text, key))

    def resolve(self, key: str) -> None:
        """The condition ``key`` ended: its message goes away."""
        self.resolved.emit(key)

    def report(self, error: BaseException, context: str = "", key: str = "") -> None:
        if isinstance(error, Cancelled):
            return
        if isinstance(error, PagewiseError):
            self.error(str(error) + (f"\n{error.detail}" if error.detail else ""), key)
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


def fit_lines(text: str, metrics: QFontMetrics, width: int, lines: int) -> str:
    """``text`` whole if it fits in ``lines`` lines of ``width`` pixels, word-wrapped; otherwise the
    longest ``shorten_message`` of it that does (cut at a word boundary, ending in "…")."""
    if width <= 0:
        return text
    room = metrics.lineSpacing() * lines

    def fits(candidate: str) -> bool:
        box = metrics.boundingRect(QRect(0, 0, width, 1 << 20), int(Qt.TextFlag.TextWordWrap), candidate)
        return box.height() <= room

    if fits(text):
        return text
    low, high = 1, len(text) - 1  # the longest limit whose shortened text still fits
    while low < high:
        middle = (low + high + 1) // 2
        if fits(shorten_message(text, middle)):
            low = middle
        else:
            high = middle - 1
    return shorten_message(text, low)


class _BannerText(QLabel):
    """A message's text on at most ``MAX_LINES`` wrapped lines, refitted when its width changes."""

    def __init__(self, text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.full_text = text
        self.setTextFormat(Qt.TextFormat.PlainText)  # an error's words are never markup
        self.setWordWrap(True)
        self.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.setToolTip(text)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.setText(text)

    def fit(self, width: int) -> int:
        """Show as much of the text as ``MAX_LINES`` lines of ``width`` pixels hold; the height
        that takes."""
        fitted = fit_lines(self.full_text, self.fontMetrics(), width, MAX_LINES)
        if fitted != self.text():
            self.setText(fitted)
        flags = int(Qt.TextFlag.TextWordWrap)
        return self.fontMetrics().boundingRect(QRect(0, 0, max(1, width), 1 << 20), flags, fitted).height() + 2

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.fit(self.contentsRect().width())


class _MessageItem(QFrame):
    def __init__(self, message: Message, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.message = message
        self.dismissed = False
        self.setObjectName(f"message-{message.level}")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        # Opaque over the page it floats on: a style sheet's frame paints no background of its own
        # (autoFillBackground is ignored once a style sheet styles the widget), so it names one.
        colors = {"info": "#2e7d32", "warning": "#ef6c00", "error": "#c62828"}
        self.setStyleSheet(
            f"QFrame#{self.objectName()} {{ background-color: palette(window); border: 1px solid palette(mid);"
            f" border-left: 4px solid {colors[message.level]}; border-radius: 3px; }}"
        )
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 4, 4)
        self._layout = layout
        self.label = _BannerText(message.text)
        layout.addWidget(self.label, 1)
        self.action_button: QPushButton | None = None
        if message.action and message.on_action is not None:
            self.action_button = QPushButton(message.action)
            self.action_button.clicked.connect(self._act)
            layout.addWidget(self.action_button, 0, Qt.AlignmentFlag.AlignTop)
        close = QToolButton()
        close.setText("✕")
        close.setAutoRaise(True)
        close.setToolTip("Dismiss")
        close.clicked.connect(self.dismiss)
        layout.addWidget(close, 0, Qt.AlignmentFlag.AlignTop)
        if message.level == "info":
            timeout = INFO_TIMEOUT_MS if self.action_button is None else ACTION_INFO_TIMEOUT_MS
            QTimer.singleShot(timeout, self, self._expire)

    def fit(self, width: int) -> int:
        """Fit the text to a banner ``width`` pixels wide; the banner's height (its text whole up
        to ``MAX_LINES`` lines, never a line cut in half)."""
        margins = self._layout.contentsMargins()
        buttons: list[QWidget] = [*self.findChildren(QPushButton), *self.findChildren(QToolButton)]
        taken = sum(w.sizeHint().width() for w in buttons) + self._layout.spacing() * len(buttons)
        frame = 2 * self.frameWidth() + 4  # the style sheet's borders
        text_width = width - margins.left() - margins.right() - taken - frame
        text_height = self.label.fit(text_width)
        tallest_button = max((w.sizeHint().height() for w in buttons), default=0)
        return max(text_height, tallest_button) + margins.top() + margins.bottom() + frame

    def _expire(self) -> None:
        """An information's time is up: it goes, unless the pointer is on it (then it waits again)."""
        if self.dismissed:
            return
        if self.underMouse():
            QTimer.singleShot(INFO_TIMEOUT_MS, self, self._expire)
            return
        self.dismiss()

    def _act(self) -> None:
        self.dismiss()
        if self.message.on_action is not None:
            self.message.on_action()

    def dismiss(self) -> None:
        self.dismissed = True
        self.hide()
        self.deleteLater()


class MessageBar(QWidget):
    """Non-modal messages floating over the bottom of ``area`` (the document pane; ``parent`` when
    none is given or it is too narrow), centred, at most ``WIDTH`` wide: they take no room in the
    layout, so nothing moves when one comes or goes, and cover no button."""

    WIDTH = 640
    MIN_AREA_WIDTH = 360  # narrower than this, the messages use the whole window's width
    MARGIN = 10
    SIDE_MARGIN = 24  # clear of the document pane's scroll bar on the right

    def __init__(self, center: MessageCenter, parent: QWidget | None = None, area: QWidget | None = None) -> None:
        super().__init__(parent)
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.setSpacing(3)
        self._items: list[_MessageItem] = []
        self._area = area
        center.posted.connect(self.show_message)
        center.resolved.connect(self.resolve)
        for watched in (parent, area):
            if watched is not None:
                watched.installEventFilter(self)
        self.hide()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in (QEvent.Type.Resize, QEvent.Type.Move) and (
            watched is self.parentWidget() or watched is self._area
        ):
            self.place()
        return False

    def _room(self, parent: QWidget) -> QRect:
        """Where the messages may go, in ``parent``'s coordinates."""
        area = self._area
        if area is not None and area.isVisible() and area.width() >= self.MIN_AREA_WIDTH:
            return QRect(area.mapTo(parent, area.rect().topLeft()), area.size())
        return parent.rect()

    def place(self) -> None:
        """Fit the messages shown to their text and float them over the bottom of the room."""
        items = self.items()
        self.setVisible(bool(items))
        parent = self.parentWidget()
        if parent is None or not items:
            return
        room = self._room(parent)
        width = max(1, min(self.WIDTH, room.width() - 2 * self.SIDE_MARGIN))
        heights = [item.fit(width) for item in items]
        for item, item_height in zip(items, heights, strict=True):
            item.setFixedHeight(item_height)
        height = sum(heights) + self._layout.spacing() * (len(items) - 1)
        left = room.left() + (room.width() - width) // 2
        self.setGeometry(left, room.bottom() + 1 - height - self.MARGIN, width, height)
        self.raise_()

    def items(self) -> list[_MessageItem]:
        """The messages shown, oldest first."""
        self._items = [w for w in self._items if not w.dismissed]
        return list(self._items)

    def _drop(self, item: _MessageItem) -> None:
        item.dismiss()
        QTimer.singleShot(0, self, self.place)

    def show_message(self, message: Message) -> None:
        for old in self.items():
            if old.message.text == message.text or (message.key and old.message.key == message.key):
                self._drop(old)
        items = self.items()
        for old in items[: max(0, len(items) - MAX_SHOWN + 1)]:
            self._drop(old)
        item = _MessageItem(message, self)
        item.destroyed.connect(self.place)
        self._items.append(item)
        self._layout.addWidget(item)
        self.place()

    def resolve(self, key: str) -> None:
        for item in self.items():
            if item.message.key == key:
                self._drop(item)

"""A one-line label that ends in "…" between words when it is narrower than its text."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import QLabel

from inference.errors import shorten_message


class ElidedLabel(QLabel):
    """A one-line label that ends in "…" at a word boundary when it is narrower than its text
    (the full text is its tooltip: a caller wanting another sets it after ``setText``), instead
    of making the window wider or being cut mid-word."""

    def minimumSizeHint(self) -> QSize:
        return QSize(60, super().minimumSizeHint().height())

    def setText(self, text: str) -> None:
        super().setText(text)
        self.setToolTip(text)

    def shown_text(self) -> str:
        text, width = self.text(), self.contentsRect().width()
        metrics = self.fontMetrics()
        if width <= 0 or metrics.horizontalAdvance(text) <= width:
            return text
        low, high = 1, len(text) - 1  # the longest limit whose shortened text still fits
        while low < high:
            middle = (low + high + 1) // 2
            if metrics.horizontalAdvance(shorten_message(text, middle)) <= width:
                low = middle
            else:
                high = middle - 1
        return shorten_message(text, low)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        align = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
        self.style().drawItemText(painter, self.contentsRect(), align, self.palette(), self.isEnabled(),
                                  self.shown_text(), QPalette.ColorRole.WindowText)  # fmt: skip
        painter.end()

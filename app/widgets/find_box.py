"""The PDF viewer's find field: a line edit with its status ("1 of 3", "no match") drawn inside
it, at its right end, as browsers do."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QLineEdit, QWidget


class FindStatus(QLabel):
    """The find box's status, drawn inside the box at its right end (it takes no toolbar room)."""

    def setText(self, text: str) -> None:
        super().setText(text)
        box = self.parentWidget()
        if isinstance(box, FindBox):
            box.place_status()


class FindBox(QLineEdit):
    """The find field, its status ("1 of 3", "no match") shown inside it, as browsers do: beside the
    text in a separate label it needed room the toolbar of a narrow viewer did not have, and the
    find box was drawn over the page count (walk 2026-12-05, finding 22)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.status = FindStatus("", self)
        self.status.setObjectName("find-status")
        self.status.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.status.setEnabled(False)  # drawn in the disabled text colour: beside the text, not of it
        self.textChanged.connect(lambda _text: self.place_status())  # the clear button comes and goes
        self.place_status()

    def place_status(self) -> None:
        """Put the status at the box's right end, left of the clear button, and keep the text
        typed out of its way."""
        text = self.status.text()
        width = self.status.fontMetrics().horizontalAdvance(text) + 6 if text else 0
        clear = self.height() if self.text() else 0  # the clear button: a square at the right end
        self.status.setGeometry(max(0, self.width() - clear - width - 2), 0, width, self.height())
        self.status.setVisible(bool(text))
        self.setTextMargins(0, 0, width, 0)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.place_status()

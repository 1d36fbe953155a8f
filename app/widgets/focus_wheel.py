"""A combo box that takes the mouse wheel only when it has the focus.

Qt's combo box changes its value under a wheel that passes over it, so scrolling a form of
settings with the pointer in the fields column changed "Background summaries" and "GPU layers"
(walk 2026-12-05, finding 5). Unfocused, this one leaves the wheel to what it sits in (the
form's scroll area scrolls); clicked or tabbed to, it takes the wheel as usual.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QComboBox, QWidget


class FocusWheelComboBox(QComboBox):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # not focused by the wheel either

    def wheelEvent(self, event: QWheelEvent) -> None:
        if self.hasFocus():
            super().wheelEvent(event)
        else:
            event.ignore()  # the parent (the scroll area) gets it

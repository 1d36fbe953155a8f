"""Both versions side by side, in the document pane while the Compare tab is open: two of the
window's own viewers (``PdfViewer``: the pages of a PDF, the rich-text view of a Word document),
each under a line that names the version and the clause shown.

A PDF's pages fit the width of their text, the margins left out; where the pane is too narrow for
two readable versions beside each other, one is put above the other, each the pane's whole width
(walk 2026-12-06 finding 6: at the window's first size two PDFs opened at 27 % zoom side by side,
their changed words a dot on a page nobody could read, the toolbars' buttons cut to "F…h")."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QSplitter, QVBoxLayout, QWidget

from app.widgets.elided_label import ElidedLabel
from app.widgets.pdf_viewer import PdfViewer


class VersionPane(QWidget):
    """One version: a caption ("Old · title — 4.2 Fees") above a viewer."""

    def __init__(self, side: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.side = side
        self.caption = ElidedLabel(side)
        self.caption.setObjectName(f"compare-{side.lower()}-caption")
        self.caption.setStyleSheet("font-weight: bold; padding: 3px 6px;")
        self.viewer = PdfViewer()
        self.viewer.view.fit_text = True
        self.viewer.fit.setToolTip("Fit the width of the text (the page's margins left out) to the pane")
        self.doc_id: str | None = None  # the document the viewer shows
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.caption)
        layout.addWidget(self.viewer, 1)

    def set_caption(self, title: str, clause: str = "") -> None:
        text = f"{self.side} · {title}" + (f" — {clause}" if clause else "")
        self.caption.setText(text)
        self.caption.setToolTip(text)


SIDE_BY_SIDE_MIN = 450
"""The width (px) each version needs beside the other; in a narrower pane they are stacked."""


class CompareVersions(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.old = VersionPane("Old")
        self.new = VersionPane("New")
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.old)
        self.splitter.addWidget(self.new)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.setSizes([1, 1])
        self.hint = QLabel("")
        self.hint.setWordWrap(True)
        self.hint.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.hint)
        layout.addWidget(self.splitter, 1)
        for pane in (self.old, self.new):
            pane.viewer.setMinimumWidth(160)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.arrange()

    def arrange(self) -> None:
        """Side by side where each version has ``SIDE_BY_SIDE_MIN`` px, else one above the other."""
        wide = self.width() >= 2 * SIDE_BY_SIDE_MIN
        orientation = Qt.Orientation.Horizontal if wide else Qt.Orientation.Vertical
        if self.splitter.orientation() != orientation:
            self.splitter.setOrientation(orientation)
            self.splitter.setSizes([1, 1])

    @property
    def stacked(self) -> bool:
        return self.splitter.orientation() == Qt.Orientation.Vertical

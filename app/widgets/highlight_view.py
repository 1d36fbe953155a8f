"""The page view of the PDF viewer: QPdfView that also paints our own passage highlights, and
fits the page's width, or the text's (the margins left out: the versions of a comparison).

QPdfView only paints its own search results, so ``HighlightView`` paints cited passages
itself after QPdfView has painted the pages. Page positions are not public API: they are
computed as ``QPdfViewPrivate::calculateDocumentLayout`` does (Qt 6.6-6.12, qpdfview.cpp):
pages stacked top to bottom, ``pageSpacing`` apart, inside ``documentMargins``, centred
horizontally, each ``pagePointSize * logicalDpi/72 * zoomFactor`` pixels. The view always
runs in Custom zoom mode; "fit width" computes a zoom factor, so that formula holds exactly.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRect, QRectF, QSizeF, QTimer
from PySide6.QtGui import QColor, QGuiApplication, QPainter, QPaintEvent, QResizeEvent
from PySide6.QtPdf import QPdfDocument
from PySide6.QtPdfWidgets import QPdfView
from PySide6.QtWidgets import QWidget

HIGHLIGHT = QColor(255, 200, 0, 90)
HIGHLIGHT_EDGE = QColor(230, 140, 0, 200)
TEXT_PAGES = 24  # pages read for the text's width (spread through a longer document)
TEXT_MARGIN_PT = 10.0  # points of margin kept either side of the text when it is fitted


@dataclass(frozen=True, slots=True)
class Highlight:
    page: int  # 0-based, as QtPdf counts
    rects: tuple[QRectF, ...]  # in page points
    exact: bool


class HighlightView(QPdfView):
    """QPdfView that also paints ``highlights`` (rectangles in page points)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)  # type: ignore[arg-type]  # the stubs omit QPdfView's default nullptr
        self.highlights: list[Highlight] = []
        self.asked_page: int | None = None  # 0-based: the page scroll_to was last asked for
        self.scrolling_to = False  # inside scroll_to
        self.setPageMode(QPdfView.PageMode.MultiPage)
        self.setZoomMode(QPdfView.ZoomMode.Custom)
        self.fit_width = True
        # Fit the text's width, the pages' margins left out, and scroll to its left edge (the
        # versions of a comparison, side by side: walk 2026-12-06 finding 6).
        self.fit_text = False
        self._extent: tuple[float, float] | None = None
        self._extent_read = False  # the text's edges read for the document shown
        self._watching = False

    # Layout (mirrors QPdfViewPrivate::calculateDocumentLayout)

    def _resolution(self) -> float:
        screen = self.screen() or QGuiApplication.primaryScreen()
        return screen.logicalDotsPerInch() / 72.0 if screen is not None else 96.0 / 72.0

    def page_geometries(self) -> dict[int, QRect]:
        """Page rectangles in document pixels (before scrolling)."""
        document = self.document()
        if document is None or document.status() != QPdfDocument.Status.Ready:
            return {}
        scale = self._resolution() * self.zoomFactor()
        margins, spacing = self.documentMargins(), self.pageSpacing()
        sizes = {p: QSizeF(document.pagePointSize(p) * scale).toSize() for p in range(document.pageCount())}
        total_width = max((s.width() for s in sizes.values()), default=0) + margins.left() + margins.right()
        y = margins.top()
        out: dict[int, QRect] = {}
        for page, size in sizes.items():
            x = (max(total_width, self.viewport().width()) - size.width()) // 2
            out[page] = QRect(x, y, size.width(), size.height())
            y += size.height() + spacing
        return out

    def viewport_rect(self, page: int, rect: QRectF) -> QRectF:
        """A rectangle in page points, in viewport pixels."""
        geometry = self.page_geometries().get(page)
        if geometry is None:
            return QRectF()
        scale = self._resolution() * self.zoomFactor()
        offset = QPointF(geometry.x() - self.horizontalScrollBar().value(),
                         geometry.y() - self.verticalScrollBar().value())  # fmt: skip
        return QRectF(rect.x() * scale, rect.y() * scale, rect.width() * scale, rect.height() * scale).translated(
            offset
        )

    def scroll_to(self, page: int, y_points: float = 0.0, above_px: int = 60) -> None:
        geometry = self.page_geometries().get(page)
        if geometry is None:
            return
        self.pageNavigator().jump(page, QPointF(0, y_points), self.zoomFactor())
        self.show_text_left()
        scale = self._resolution() * self.zoomFactor()
        self.asked_page = page
        self.scrolling_to = True  # PdfViewer._scrolled keeps QPdfView from undoing this scroll
        try:
            self.verticalScrollBar().setValue(int(geometry.y() + y_points * scale - above_px))
        finally:
            self.scrolling_to = False

    def text_extent(self) -> tuple[float, float] | None:
        """The left and right edges, in points, of the text on the document's pages (some pages
        spread through a long one); None where no page has text (a scan) or the text is too
        narrow to stand for the page's."""
        document = self.document()
        if document is None or document.status() != QPdfDocument.Status.Ready:
            return None
        if not self._watching:  # another file in the same document: read its text again
            document.statusChanged.connect(self._forget_extent)
            self._watching = True
        if not self._extent_read:
            self._extent_read = True
            count = document.pageCount()
            pages = sorted({round(i * (count - 1) / max(1, TEXT_PAGES - 1)) for i in range(min(count, TEXT_PAGES))})
            boxes = [document.getAllText(p).boundingRectangle() for p in pages]
            boxes = [b for b in boxes if b.width() > 0]
            widest = max((document.pagePointSize(p).width() for p in pages), default=0.0)
            left = min((b.left() for b in boxes), default=0.0)
            right = max((b.right() for b in boxes), default=0.0)
            self._extent = (left, right) if boxes and right - left >= widest / 3 else None
        return self._extent

    def _forget_extent(self, *_status: object) -> None:
        self._extent, self._extent_read = None, False

    def apply_fit_width(self) -> None:
        document = self.document()
        if not self.fit_width or document is None or document.status() != QPdfDocument.Status.Ready:
            return
        widest = max((document.pagePointSize(p).width() for p in range(document.pageCount())), default=0.0)
        if widest <= 0:
            return
        margins = self.documentMargins()
        available = self.viewport().width() - margins.left() - margins.right()
        extent = self.text_extent() if self.fit_text else None
        if extent is not None:
            left, right = max(0.0, extent[0] - TEXT_MARGIN_PT), min(widest, extent[1] + TEXT_MARGIN_PT)
            available, widest = self.viewport().width(), right - left
        factor = max(0.1, available / (widest * self._resolution()))
        if abs(factor - self.zoomFactor()) > 0.005:
            self.setZoomFactor(factor)
        self.show_text_left()

    def show_text_left(self) -> None:
        """Fitted to the text's width: scrolled sideways to the text's left edge."""
        extent = self.text_extent() if self.fit_text and self.fit_width else None
        geometry = self.page_geometries().get(0)
        if extent is not None and geometry is not None:
            left = max(0.0, extent[0] - TEXT_MARGIN_PT) * self._resolution() * self.zoomFactor()
            self.horizontalScrollBar().setValue(int(geometry.x() + left))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self.fit_width:
            QTimer.singleShot(0, self.apply_fit_width)

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        if not self.highlights:
            return
        painter = QPainter(self.viewport())
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(HIGHLIGHT_EDGE)
        for highlight in self.highlights:
            for rect in highlight.rects:
                target = self.viewport_rect(highlight.page, rect).adjusted(-1, -1, 1, 1)
                if target.intersects(QRectF(event.rect())):
                    painter.fillRect(target, HIGHLIGHT)
                    painter.drawRect(target)
        painter.end()

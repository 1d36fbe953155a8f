"""The PDF viewer: a toolbar (zoom, page navigation, find) above the page view
(``highlight_view.HighlightView``: QtPdf's pages with our own passage highlights); a Word document
as text or as LibreOffice's pages (``word_pages.WordPages``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtCore import QModelIndex, QPointF, QRectF, QSignalBlocker, QSize, Qt, QTimer
from PySide6.QtGui import QKeySequence
from PySide6.QtPdf import QPdfDocument, QPdfSearchModel
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.services.text_match import locate
from app.widgets.find_box import FindBox
from app.widgets.highlight_view import Highlight, HighlightView
from app.widgets.word_pages import WordPages
from app.widgets.word_view import WordView

ZOOM_STEPS = (0.5, 0.67, 0.8, 1.0, 1.25, 1.5, 2.0, 3.0, 4.0)


FIND_WAIT_MS = 2000
"""How long Enter waits for QtPdf's background search before saying "no match"."""
FindInImages = Callable[[str], list[tuple[int, list[tuple[float, float, float, float]]]]]
"""text -> [(page 1-based, [(x0, y0, x1, y1) in points from the top left])] on pages without text."""


PLACEHOLDER = "Drop PDF or Word files or folders here, or use File → Open (Ctrl+O)."


class PdfViewer(WordPages, QWidget):
    """Toolbar (zoom, page, find) above a ``HighlightView``; a Word document as text or as pages
    (``WordPages``)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.document = QPdfDocument(self)
        self.view = HighlightView(self)
        self.view.setDocument(self.document)
        self.search_model = QPdfSearchModel(self)
        self.search_model.setDocument(self.document)
        self.view.setSearchModel(self.search_model)
        self.path: Path | None = None
        self.needs_password = False  # the last open() failed for a missing or wrong password
        self._find_pending = False  # Enter came before the (asynchronous) search had results
        # Pages without a text layer (scans read by OCR): the caller's search of their OCR text,
        # ``text -> [(page 1-based, [(x0, y0, x1, y1) in points from the top left])]``.
        self.find_in_images: FindInImages = lambda _text: []
        self._image_matches: tuple[str, list[Highlight]] | None = None
        self._image_index = -1
        self.search_model.rowsInserted.connect(self._results_arrived)
        self.search_model.modelReset.connect(self._results_arrived)

        bar = QHBoxLayout()
        bar.setContentsMargins(4, 2, 4, 2)
        zoom_out, zoom_in = QKeySequence.StandardKey.ZoomOut, QKeySequence.StandardKey.ZoomIn
        self.zoom_out = self._button("−", "Zoom out (Ctrl+-)", lambda: self.zoom_by(-1), zoom_out)
        self.zoom_in = self._button("+", "Zoom in (Ctrl++)", lambda: self.zoom_by(1), zoom_in)
        self.fit = self._button("Fit width", "Fit the page width to the window", self.fit_to_width)
        self.zoom_label = QLabel("100%")
        self.zoom_label.setMinimumWidth(44)
        self.page_box = QSpinBox()
        self.page_box.setMinimum(1)
        self.page_box.setKeyboardTracking(False)
        self.page_box.setToolTip("Go to page")
        self.page_box.valueChanged.connect(lambda page: self.go_to_page(page))
        self.page_count = QLabel("/ 0")
        self.find_box = FindBox()
        self.find_box.setPlaceholderText("Find in document (Ctrl+F)")
        self.find_box.setClearButtonEnabled(True)
        self.find_box.setMinimumWidth(120)  # room for a word or two in a narrow window
        self.find_box.returnPressed.connect(self.find_next)
        self.find_box.textChanged.connect(self._search_changed)
        self.find_status = self.find_box.status  # "1 of 3", "no match": inside the box, at its end
        # Room for the page count of a long document: at the viewer's narrowest (the Review tab
        # open) a text wider than the layout was sized for pushed the find box over it
        # ("/ 8mmencement", walk 2026-12-05 finding 22).
        self.page_count.setMinimumWidth(self.page_count.fontMetrics().horizontalAdvance("/ 999"))
        for widget in (self.zoom_out, self.zoom_label, self.zoom_in, self.fit):
            bar.addWidget(widget)
        bar.addSpacing(12)
        bar.addWidget(QLabel("Page"))
        bar.addWidget(self.page_box)
        bar.addWidget(self.page_count)
        bar.addStretch(1)
        bar.addWidget(self.find_box, 2)

        self.placeholder = QLabel(PLACEHOLDER)
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setWordWrap(True)
        self.placeholder.setObjectName("viewer-placeholder")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addLayout(bar)
        # A Word document is shown as rich text (app/widgets/word_view.py), or as the pages
        # LibreOffice laid out (``show_word_pages``); its bar (Open in Word, copy) is above either.
        self.word = WordView(self)
        self.word_bar = self.word.bar
        self.word.switch_view.clicked.connect(self.switch_word_view)
        layout.addWidget(self.word_bar)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.placeholder, 1)
        layout.addWidget(self.word, 1)
        self.word.hide()
        self.word_bar.hide()
        self.word_source: Path | None = None  # the Word file shown, as text or as pages
        self.view.hide()
        self.view.zoomFactorChanged.connect(lambda z: self.zoom_label.setText(f"{z * 100:.0f}%"))
        self.view.pageNavigator().currentPageChanged.connect(self._page_moved)
        self.view.verticalScrollBar().valueChanged.connect(self._scrolled)
        # A new zoom (fit width, once the window has its size) moves the pages under the same
        # scroll position: the page shown is read again from where the view is.
        self.view.zoomFactorChanged.connect(lambda _z: QTimer.singleShot(0, self._resync_page))

    def _button(
        self, text: str, tip: str, slot: object, shortcut: QKeySequence.StandardKey | str | None = None
    ) -> QToolButton:
        button = QToolButton()
        button.setText(text)
        button.setToolTip(tip)
        button.setAutoRaise(True)
        button.clicked.connect(slot)
        if shortcut is not None:
            button.setShortcut(QKeySequence(shortcut))
        return button

    # Documents

    def open(self, path: Path, password: str | None = None) -> bool:
        """Show ``path``; False when QtPdf cannot load it (``needs_password`` tells whether the
        file is encrypted and the password was missing or wrong)."""
        self.clear_highlights()
        self.find_in_images = lambda _text: []  # the caller sets the new document's own
        self._image_matches = None
        self.find_box.clear()  # each document starts without the last one's search...
        self.find_status.setText("")
        # QtPdf drops a password set while another file is open: close it first.
        self.document.close()
        self.document.setPassword(password or "")
        error = self.document.load(str(path))
        self.needs_password = error == QPdfDocument.Error.IncorrectPassword
        if error != QPdfDocument.Error.None_:
            self.close_document()
            return False
        self.path = path
        self.word.hide()
        self.word_bar.hide()
        self.word_source = None
        self._word_mode(False)
        self.page_box.setMaximum(max(1, self.document.pageCount()))
        self.page_count.setText(f"/ {self.document.pageCount()}")
        self.placeholder.hide()
        self.view.show()
        self.view.fit_width = True
        self.view.apply_fit_width()
        self.view.scroll_to(0, 0.0, above_px=0)  # ...and on its first page
        self._page_moved(0)
        return True

    def close_document(self, notice: str = "") -> None:
        """Show no document: the drop hint, or ``notice`` (why the selected one is not shown)."""
        self.word.hide()
        self.word_bar.hide()
        self.word_source = None
        self.word.status.setText("")
        self._word_mode(False)
        self.clear_highlights()
        self.document.close()
        self.path = None
        self.page_count.setText("/ 0")
        self.view.hide()
        self.placeholder.setText(notice or PLACEHOLDER)
        self.placeholder.show()

    def current_page(self) -> int:
        """1-based."""
        return self.view.pageNavigator().currentPage() + 1

    def go_to_page(self, page: int) -> None:
        if 1 <= page <= self.document.pageCount():
            self.view.scroll_to(page - 1, 0.0, above_px=0)

    # Zoom

    def zoom_by(self, direction: int) -> None:
        if self.showing_word_text:  # the text view's font, a step at a time
            if direction > 0:
                self.word.browser.zoomIn(1)
            else:
                self.word.browser.zoomOut(1)
            return
        self.view.fit_width = False
        current = self.view.zoomFactor()
        steps = [z for z in ZOOM_STEPS if (z > current + 0.01 if direction > 0 else z < current - 0.01)]
        if steps:
            self.view.setZoomFactor(steps[0] if direction > 0 else steps[-1])

    def fit_to_width(self) -> None:
        self.view.fit_width = True
        self.view.apply_fit_width()

    # Highlights

    def clear_highlights(self) -> None:
        self.view.highlights = []
        self.view.viewport().update()

    def highlight_passage(
        self,
        pieces: list[tuple[int, str, float]],
        focus_page: int | None = None,
        boxes: Sequence[tuple[int, list[tuple[float, float, float, float]]]] = (),
    ) -> list[Highlight]:
        """Highlight ``(page 1-based, passage text on that page, position hint 0..1)`` pieces
        and scroll to the one on ``focus_page`` (default: the first). A passage crossing pages
        gives one piece per page, and each is highlighted. ``boxes``: ``(page 1-based, [(x0, y0,
        x1, y1) in points from the top left])`` drawn as they are (the words OCR read on a
        scanned page, where QtPdf has no text to search)."""
        found: list[Highlight] = [
            Highlight(page - 1, tuple(QRectF(x0, y0, x1 - x0, y1 - y0) for x0, y0, x1, y1 in rects), True)
            for page, rects in boxes
            if rects and 0 <= page - 1 < self.document.pageCount()
        ]
        for page, text, hint in pieces:
            index = page - 1
            if not 0 <= index < self.document.pageCount():
                continue
            page_text = self.document.getAllText(index).text()
            match = locate(text, page_text, hint)
            if match is None:
                continue
            selection = self.document.getSelectionAtIndex(index, match.start, match.end - match.start)
            rects = tuple(polygon.boundingRect() for polygon in selection.bounds())
            if rects:
                found.append(Highlight(index, rects, match.exact))
        found.sort(key=lambda h: h.page)
        self.view.highlights = found
        focus = next((h for h in found if focus_page is not None and h.page == focus_page - 1), None)
        focus = focus or (found[0] if found else None)
        if focus is not None:
            self.view.scroll_to(focus.page, min(r.top() for r in focus.rects))
        elif pieces:
            self.go_to_page(focus_page or pieces[0][0])
        self.view.viewport().update()
        return found

    def highlight_words(self, words: str, hint: float | None = None) -> list[Highlight]:
        """Highlight ``words`` wherever they are in the document (the nearest to ``hint``, 0..1
        of the way through, when they are there more than once), across a page break too, and
        scroll to them: a Word citation on the pages LibreOffice laid out, whose page the
        library does not know."""
        texts = [self.document.getAllText(index).text() for index in range(self.document.pageCount())]
        starts = [0]
        for text in texts:
            starts.append(starts[-1] + len(text))
        match = locate(words, "".join(texts), hint) if words.strip() else None
        if match is None:
            self.clear_highlights()
            return []
        pieces = []
        for index, text in enumerate(texts):
            first, last = max(match.start, starts[index]), min(match.end, starts[index + 1])
            if first < last:
                at = first - starts[index]
                pieces.append((index + 1, text[at : last - starts[index]], at / max(1, len(text))))
        return self.highlight_passage(pieces, focus_page=pieces[0][0] if pieces else None)

    # Find

    def focus_find(self) -> None:
        self.find_box.setFocus()
        self.find_box.selectAll()

    def _search_changed(self, text: str) -> None:
        if self.showing_word_text:
            self.find_status.setText("")
            return
        self.search_model.setSearchString(text)
        self.view.setCurrentSearchResultIndex(-1)
        self.find_status.setText("")
        self._find_pending = False

    def _results_arrived(self, *args: object) -> None:
        if self._find_pending and self.search_model.rowCount(QModelIndex()):
            self._find_pending = False
            self.find_next()

    def _give_up_finding(self) -> None:
        if self._find_pending:
            self._find_pending = False
            self.find_status.setText("no match")

    def _matches_in_images(self, text: str) -> list[Highlight]:
        """The find box's text on the pages read by OCR (``find_in_images``), asked once per text."""
        if self._image_matches is None or self._image_matches[0] != text:
            found = [
                Highlight(page - 1, tuple(QRectF(x0, y0, x1 - x0, y1 - y0) for x0, y0, x1, y1 in boxes), True)
                for page, boxes in self.find_in_images(text)
                if 0 <= page - 1 < self.document.pageCount()
            ]
            self._image_matches, self._image_index = (text, found), -1
        return self._image_matches[1]

    def _next_in_images(self, matches: list[Highlight]) -> None:
        self._image_index = (self._image_index + 1) % len(matches)
        match = matches[self._image_index]
        self.view.highlights = [match]
        self.view.scroll_to(match.page, min(r.top() for r in match.rects))
        self.view.viewport().update()
        self.find_status.setText(f"{self._image_index + 1} of {len(matches)}")

    def find_next(self) -> None:
        if self.showing_word_text:  # Ctrl+F in a Word document shown as text: its text is searched
            place, count = self.word.find_text(self.find_box.text())
            self.find_status.setText(f"{place} of {count}" if count else "no match" if self.find_box.text() else "")
            return
        count = self.search_model.rowCount(QModelIndex())
        if not self.find_box.text():
            self.find_status.setText("")
            return
        in_images = self._matches_in_images(self.find_box.text()) if count == 0 else []
        if in_images:  # a scanned page: QtPdf has no text there, its OCR text is searched
            self._find_pending = False
            self._next_in_images(in_images)
            return
        if count == 0:  # QtPdf searches in the background: wait a moment for its first results
            self._find_pending = True
            self.find_status.setText("searching…")
            QTimer.singleShot(FIND_WAIT_MS, self._give_up_finding)
            return
        index = (self.view.currentSearchResultIndex() + 1) % count
        self.view.setCurrentSearchResultIndex(index)
        link = self.search_model.resultAtIndex(index)
        rects = link.rectangles()
        self.view.scroll_to(link.page(), rects[0].top() if rects else 0.0)
        self.find_status.setText(f"{index + 1} of {count}")

    def _page_moved(self, page: int) -> None:
        self.page_box.blockSignals(True)
        self.page_box.setValue(page + 1)
        self.page_box.blockSignals(False)

    def _scrolled(self, value: int) -> None:
        """The page box and the navigator name the page at the upper third of the view."""
        middle = value + self.view.viewport().height() // 3
        geometries = self.view.page_geometries()
        asked = geometries.get(self.view.asked_page) if self.view.asked_page is not None else None
        bar = self.view.verticalScrollBar()
        if asked is not None and value == bar.maximum() and asked.bottom() > value:
            # At the end of the document the view cannot bring the page asked for up to the
            # upper third: it is on screen, and it stays the current page.
            middle = asked.top()
        for page, rect in geometries.items():
            if rect.top() <= middle <= rect.bottom() + self.view.pageSpacing():
                if self.page_box.value() != page + 1:
                    self.page_box.blockSignals(True)
                    self.page_box.setValue(page + 1)
                    self.page_box.blockSignals(False)
                navigator = self.view.pageNavigator()
                if navigator.currentPage() != page:
                    # Told its page changed, QPdfView scrolls to that page's top. Where that would
                    # undo a scroll_to (a highlight low on a page taller than the view, which
                    # QPdfView counts by the page at the middle of the view), it is told silently.
                    undoes = self.view.scrolling_to and min(rect.top(), bar.maximum()) != value
                    blocker = QSignalBlocker(navigator) if undoes else None
                    navigator.update(page, QPointF(0, 0), self.view.zoomFactor())
                    if blocker is not None:
                        blocker.unblock()
                break

    def _resync_page(self) -> None:
        if self.path is not None:
            self._scrolled(self.view.verticalScrollBar().value())

    def sizeHint(self) -> QSize:
        return QSize(640, 800)

"""The viewer's Word documents: shown as rich text (``word_view.WordView``, built from what the
library stored) or as the pages LibreOffice laid out (``show_word_pages``, made by
app/controllers/word_pages.py), with the button that switches between the two and the toolbar's
page box and zoom turned off while the text is shown. ``PdfViewer`` is made with it: the Word bar
(Open in Word, copy) and the text view are its widgets, the pages are its QtPdf view.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PySide6.QtPdf import QPdfDocument
    from PySide6.QtWidgets import QLabel, QSpinBox, QToolButton, QWidget

    from app.widgets.highlight_view import HighlightView
    from app.widgets.word_view import WordView

    _Viewer = QWidget
else:
    _Viewer = object


class WordPages(_Viewer):
    """A Word document in the viewer, as text or as pages (mixed into ``PdfViewer``)."""

    # The user pressed "Text" (and not "Pages" since): Word documents, and their citations, stay
    # shown as text for the session, whatever the setting (app/controllers/word_pages.py).
    text_chosen = False

    if TYPE_CHECKING:  # the viewer's parts, made by PdfViewer.__init__
        word: WordView
        word_bar: QWidget
        word_source: Path | None  # the Word file shown, as text or as pages
        view: HighlightView
        document: QPdfDocument
        placeholder: QLabel
        page_box: QSpinBox
        page_count: QLabel
        zoom_label: QLabel
        fit: QToolButton

        def open(self, path: Path, password: str | None = None) -> bool: ...

        def close_document(self, notice: str = "") -> None: ...

    def show_word(
        self, path: Path, document_html: str, focus: int | None = None, reference: str = "", words: str = ""
    ) -> None:
        """Show a Word document as rich text (``word_view.word_html``), scrolled to ``focus``."""
        self.close_document()
        self.placeholder.hide()
        self.word_bar.show()
        self.word.show()
        self.word_source = path
        self.word.switch_view.hide()  # until LibreOffice's pages are made
        self._word_mode(True)
        self.word.show_document(path, document_html, focus, reference, words)

    def show_word_pages(self, pdf: Path, source: Path) -> bool:
        """Show the pages LibreOffice laid out of the Word file ``source`` (``pdf``), under the
        Word bar as it is (title, reference, words); False when the PDF cannot be loaded (the
        text view then stays)."""
        bar = (self.word.title.text(), self.word.reference, self.word.words)
        if not self.open(pdf):
            return False
        self.word_source = source
        self.word.path = source
        self.word.title.setText(bar[0])
        self.word.reference, self.word.words = bar[1], bar[2]
        self.word_bar.show()
        self._set_switch(to_text=True)
        # The view was hidden: lay it out now, so that its width, the zoom that fits it and the
        # place a citation scrolls to are final (laid out later, the zoom changed under a
        # highlight already scrolled to and left it at the bottom of the view).
        layout = self.layout()
        if layout is not None:
            layout.activate()
        self.view.apply_fit_width()
        self.view.scroll_to(0, 0.0, above_px=0)
        return True

    def switch_word_view(self) -> None:
        """Between a Word document's pages (as LibreOffice laid them out) and its text, both
        already made: the text keeps its cited paragraph, the pages their highlight."""
        to_text = not self.showing_word_text
        self.text_chosen = to_text
        self.view.setVisible(not to_text)
        self.word.setVisible(to_text)
        self._word_mode(to_text)
        if not to_text:
            self.page_count.setText(f"/ {self.document.pageCount()}")
            self.zoom_label.setText(f"{self.view.zoomFactor() * 100:.0f}%")
        self._set_switch(to_text=not to_text)

    def _set_switch(self, to_text: bool) -> None:
        switch = self.word.switch_view
        switch.setText("Text" if to_text else "Pages")
        switch.setToolTip(
            "Show the paragraphs Pagewise read, with comments and ¶ numbers"
            if to_text
            else "Show the pages as LibreOffice lays them out"
        )
        switch.show()

    @property
    def showing_word_text(self) -> bool:
        """A Word document is shown as text (the toolbar's find and zoom act on it)."""
        return self.word.isVisibleTo(self)

    def _word_mode(self, text: bool) -> None:
        """The page box means nothing in the text view of a Word document (it has no pages)."""
        self.page_box.setEnabled(not text)
        self.fit.setEnabled(not text)
        if text:
            self.page_count.setText("")
            self.zoom_label.setText("")
        else:  # a PDF opened at the zoom it had gets no zoomFactorChanged: say it again (walk finding 24)
            self.zoom_label.setText(f"{self.view.zoomFactor() * 100:.0f}%")

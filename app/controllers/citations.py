"""A clicked citation: the viewer goes to the cited page and highlights the passage, without
the running headers, footers and page numbers its spans cross at a page break."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from app.controllers.context import JobContext, UsesJobContext
from app.controllers.word_pages import WordFocus, WordPagesController
from app.services.answering import CitationView
from app.widgets.pdf_viewer import PdfViewer
from inference.errors import PagewiseError
from summarizer.library.reading.ocr_pages import highlight_boxes, page_words
from summarizer.library.reading.page_furniture import NEIGHBOUR_PAGES, body_span


class CitationController(UsesJobContext):
    def __init__(
        self,
        context: JobContext,
        viewer: PdfViewer,
        current_doc: Callable[[], str | None],
        select_doc: Callable[[str], object],
    ) -> None:
        self.context = context
        self.viewer = viewer
        self.current_doc = current_doc
        self.select_doc = select_doc
        self.word_pages: WordPagesController | None = None  # set by the window

    def show(self, citation: CitationView) -> None:
        if self._is_word(citation.doc_id):
            self._show_word_citation(citation)
            return
        if not citation.valid:
            self.messages.warning(
                f"Page {citation.page} was cited, but it is not in the passages the model was given: "
                "check that page yourself."
            )
            self.viewer.go_to_page(citation.page)
            return
        if citation.doc_id != self.current_doc():
            self.select_doc(citation.doc_id)
        pieces: list[tuple[int, str, float]] = []
        scanned: list[tuple[int, list[tuple[float, float, float, float]]]] = []
        for page, start, end in citation.spans:
            raw = self.library.page_text_if_any(citation.doc_id, page)
            if raw is None:
                continue
            body = body_span(raw, start, end, self._neighbours(citation.doc_id, page))
            if body is None:
                continue
            words = self._ocr_words(citation.doc_id, page)
            if words is not None:  # a scanned page: QtPdf has no text there, the library has the boxes
                scanned.append((page, highlight_boxes(words, body[0], body[1])))
            else:
                pieces.append((page, raw[body[0] : body[1]], body[0] / max(1, len(raw))))
        if not pieces and not scanned:  # whole-document mode (the page itself was cited), or only furniture
            self.viewer.clear_highlights()
            self.viewer.go_to_page(citation.page)
            return
        found = self.viewer.highlight_passage(pieces, focus_page=citation.page, boxes=scanned)
        if not found:
            self.messages.info(f"Showing page {citation.page}; the passage could not be located on the page.")

    def _is_word(self, doc_id: str) -> bool:
        try:
            return self.library.document(doc_id).file_type == "docx"
        except PagewiseError:
            return False

    def _show_word_citation(self, citation: CitationView) -> None:
        """A Word document's cited paragraph shown in its rich-text view (app/widgets/word_view.py),
        the cited words highlighted, with its clause reference and words one click from the
        clipboard."""
        from app.controllers.open_document import show_word_document
        from summarizer.library.word_parts import locators_of

        if citation.doc_id != self.current_doc():
            self.select_doc(citation.doc_id)
        last = max(citation.page, citation.page_end)  # the paragraphs that matched, when more than one
        key = (citation.doc_id, citation.page, last)
        where = locators_of(self.library, [key]).get(key, citation.text)
        if not citation.valid:
            self.messages.warning(
                f"{where} was cited, but it is not in the passages the model was given: check it yourself in Word."
            )
            return
        words = next(((start, end) for page, start, end in citation.spans if page == citation.page), None)
        cited = {page: (start, end) for page, start, end in citation.spans if citation.page < page <= last}
        record = self.library.document(citation.doc_id)
        path = Path(record.path)
        show_word_document(self.library, self.viewer, citation.doc_id, path, citation.page, words, where, cited=cited)
        if self.word_pages is not None:  # on LibreOffice's pages, where they are made
            hint = (citation.page - 1) / max(1, record.pages)
            self.word_pages.show(path, WordFocus(self.viewer.word.words, hint))

    def _ocr_words(self, doc_id: str, page: int) -> list[list[float]] | None:
        try:
            stored = page_words(self.library, doc_id, page)
        except PagewiseError:
            return None
        return stored[1] if stored is not None else None

    def _neighbours(self, doc_id: str, page: int) -> list[str]:
        """The texts of the pages near ``page``, where its running header and footer repeat."""
        texts = []
        for other in range(page - NEIGHBOUR_PAGES, page + NEIGHBOUR_PAGES + 1):
            text = self.library.page_text_if_any(doc_id, other) if other != page else None
            if text:
                texts.append(text)
        return texts

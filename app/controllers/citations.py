"""A clicked citation: the viewer goes to the cited page and highlights the passage."""

from __future__ import annotations

from collections.abc import Callable

from app.answering import CitationView
from app.controllers.context import JobContext, UsesJobContext
from app.pdf_viewer import PdfViewer
from inference.errors import PagewiseError


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

    def show(self, citation: CitationView) -> None:
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
        for page, start, end in citation.spans:
            try:
                raw = self.library.page_text(citation.doc_id, page)
            except PagewiseError:
                continue
            pieces.append((page, raw[start:end], start / max(1, len(raw))))
        if not pieces:  # whole-document mode: the page itself was cited
            self.viewer.clear_highlights()
            self.viewer.go_to_page(citation.page)
            return
        found = self.viewer.highlight_passage(pieces, focus_page=citation.page)
        if not found:
            self.messages.info(f"Showing page {citation.page}; the passage could not be located on the page.")

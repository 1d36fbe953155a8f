"""Showing a library document in the viewer, asking for its password when it is encrypted.

Passwords are kept for the session only (never written to disk), so after a restart an
encrypted document asks for its password again when it is opened, but not while the window
restores the last selection before it is even shown.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from app.controllers.ingest import AskPassword
from app.widgets.pdf_viewer import PdfViewer
from summarizer.library.storage.store import DocumentRecord, Library

FindInImages = Callable[[str, str], list[tuple[int, list[tuple[float, float, float, float]]]]]
"""(doc_id, text) → where the text is on the document's pages read by OCR (``find_in_ocr_pages``)."""


class OpenDocumentController:
    def __init__(
        self,
        viewer: PdfViewer,
        passwords: dict[str, str],
        ask_password: AskPassword,
        find_in_images: FindInImages = lambda _doc_id, _text: [],
        library: Callable[[], Library | None] = lambda: None,
    ) -> None:
        self.viewer = viewer
        self.library = library  # a Word document is shown from its stored paragraphs
        self.passwords = passwords
        self.ask_password = ask_password
        self.find_in_images = find_in_images  # Find in document on scanned pages (their OCR text)
        self.restoring = False  # no password dialog before the window is shown
        # Once a Word document's text is shown: its pages, where LibreOffice lays them out
        # (app/controllers/word_pages.py; set by the window).
        self.show_word_pages: Callable[[Path], None] = lambda _path: None

    @property
    def locked(self) -> bool:
        """The viewer shows nothing because the password was not given."""
        return self.viewer.path is None and self.viewer.needs_password

    def close(self) -> None:
        self.viewer.close_document()

    def open(self, record: DocumentRecord) -> str | None:
        """Show the record's PDF; when that fails, the viewer says why, and so does the message
        returned (None while restoring an encrypted one: it only waits for its password)."""
        problem = self._open(record)
        if problem:
            self.viewer.close_document(problem)
        else:
            doc_id = record.doc_id
            self.viewer.find_in_images = lambda text: self.find_in_images(doc_id, text)
        if self.viewer.needs_password:
            # No red banner, at start or after a cancelled prompt: the viewer says calmly what to do
            # (walk 2026-12-05: Cancel gave an error banner that repeated the viewer's words).
            return None
        return problem

    def _open(self, record: DocumentRecord) -> str | None:
        path = Path(record.path)
        if not path.is_file():
            self.viewer.close_document()
            return (
                f"{record.path} cannot be shown: the file was moved or deleted. "
                "Its text is still in the library; add the file again to view it."
            )
        if record.file_type == "docx":
            # Shown as rich text from the stored paragraphs (app/widgets/word_view.py): no Word or
            # LibreOffice needed; "Open in Word" is one click away.
            library = self.library()
            if library is not None:
                show_word_document(library, self.viewer, record.doc_id, path)
                self.show_word_pages(path)
                return None
            self.viewer.close_document(f"{path.name} is a Word document: open it in Word to read it.")
            return None
        password = self.passwords.get(record.path)
        if self.viewer.open(path, password):
            return None
        wrong = password is not None
        if self.viewer.needs_password and self.restoring:
            return f"{path.name} is encrypted: select it in the library to enter its password and show it."
        while self.viewer.needs_password:
            password = self.ask_password(record.path, wrong)
            if not password:
                return (
                    f"{path.name} is encrypted: it is shown once its password is given. "
                    "Select the document again to enter it. Its text is still searchable."
                )
            if self.viewer.open(path, password):
                self.passwords[record.path] = password
                return None
            wrong = True
        return (
            f"{record.path} cannot be shown: the file cannot be read as a PDF any more. "
            "Its text is still in the library; add the file again to view it."
        )


def show_word_document(
    library: Library,
    viewer: PdfViewer,
    doc_id: str,
    path: Path,
    focus: int | None = None,
    words: tuple[int, int] | None = None,
    reference: str = "",
    highlights: Mapping[int, Sequence[tuple[int, int]]] | None = None,
    cited: Mapping[int, tuple[int, int]] | None = None,
) -> None:
    """Show a stored Word document in ``viewer``, scrolled to paragraph ``focus`` with ``words``
    (offsets in its stored text) highlighted, and ``highlights`` (ranges by paragraph) too;
    ``cited``: the words of the paragraphs after ``focus`` that the citation holds, highlighted
    and quoted with it (a Word passage's clauses that matched: summarizer/search/word_matches.py)."""
    from app.widgets.word_view import word_html
    from summarizer.library.word_parts import comments, tracked_changes, word_paragraphs

    paragraphs = word_paragraphs(library, doc_id)
    marked = {index: [*(highlights or {}).get(index, ()), span] for index, span in (cited or {}).items()}
    document_html = word_html(
        paragraphs, tracked_changes(library, doc_id), comments(library, doc_id), focus, words,
        {**(highlights or {}), **marked},
    )  # fmt: skip
    quoted: list[str] = []
    for paragraph in paragraphs if focus is not None else ():
        span = words if paragraph.index == focus else (cited or {}).get(paragraph.index)
        if paragraph.index == focus or span is not None:
            full = f"{paragraph.number} {paragraph.text}".strip() if paragraph.number else paragraph.text
            quoted.append(full[span[0] : span[1]] if span else full)
    viewer.show_word(path, document_html, focus, reference, " ".join(" ".join(quoted).split()))

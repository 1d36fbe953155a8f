"""A Word document shown as the pages LibreOffice lays out, where it is installed (issue 43).

The Word view first shows the document's text at once (app/widgets/word_view.py); when the
setting ``word_view`` is "pages" and LibreOffice is found, a side job (never the GUI thread, never
behind an answer) has it laid out as a PDF once (``summarizer.library.reading.docx_render``, kept in
the cache folder by the file's contents) and the viewer then shows those pages in QtPdf, the cited
words highlighted where they are found on them. Without LibreOffice, while it works, or when it
fails, the text stays: the app never needs LibreOffice and never asks for it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from app.controllers.context import JobContext, UsesJobContext
from app.jobs.runner import Job
from app.widgets.pdf_viewer import PdfViewer
from inference.cancel import CancelToken
from inference.progress import Progress, ProgressCallback
from summarizer.library.reading.docx_render import WordRenderError, find_soffice, render_docx
from summarizer.library.storage.paths import cache_dir

if TYPE_CHECKING:
    from app.controllers.citations import CitationController
    from app.controllers.open_document import OpenDocumentController

Renderer = Callable[[Path, Path, ProgressCallback, CancelToken], Path]
"""(Word file, cache folder, progress, cancel) -> the PDF of its pages."""

LAYING_OUT = "LibreOffice laying out pages…"
LAID_OUT = "LibreOffice's pages"
AS_TEXT = "Shown as text"


def libreoffice_renderer() -> Renderer | None:
    """``render_docx`` with the ``soffice`` found on the PATH, or None when there is none."""
    soffice = find_soffice()
    if soffice is None:
        return None

    def render(path: Path, cache: Path, progress: ProgressCallback, cancel: CancelToken) -> Path:
        return render_docx(path, cache, soffice, progress, cancel)

    return render


@dataclass(frozen=True, slots=True)
class WordFocus:
    """What a citation shows: its words, and how far through the document they are (0..1)."""

    words: str
    hint: float | None = None


def _file_key(path: Path) -> tuple[str, int, int] | None:
    """The file as it is now: a changed file is laid out again (the cache itself is by contents)."""
    try:
        stat = path.stat()
    except OSError:
        return None
    return str(path), stat.st_size, stat.st_mtime_ns


class WordPagesController(UsesJobContext):
    def __init__(
        self,
        context: JobContext,
        viewer: PdfViewer,
        mode: Callable[[], str],
        find_renderer: Callable[[], Renderer | None] = libreoffice_renderer,
    ) -> None:
        self.context = context
        self.viewer = viewer
        self.mode = mode  # the setting "word_view": "pages" or "text"
        self.find_renderer = find_renderer  # tests give a fake one: the suite never needs LibreOffice
        self.made: dict[tuple[str, int, int], Path] = {}
        self.failed: dict[tuple[str, int, int], str] = {}  # not tried again in this session
        self.jobs: dict[tuple[str, int, int], Job] = {}
        self.waiting: dict[tuple[str, int, int], WordFocus | None] = {}  # the focus to show once laid out

    def connect_window(self, opener: OpenDocumentController, citations: CitationController) -> None:
        """A Word document the window opens, and one a citation opens, shown as its pages when made."""
        opener.show_word_pages = lambda path: self.show(path)
        citations.word_pages = self

    def show(self, path: Path, focus: WordFocus | None = None) -> None:
        """The viewer has just shown the Word file ``path`` as text: show its pages instead when
        they are made, or have them made (the text stays meanwhile)."""
        key = _file_key(path)
        if key is None or self.mode() != "pages":
            return
        made = self.made.get(key)
        if made is not None and made.is_file():
            self._show_pages(path, made, focus)
            return
        if key in self.failed:
            self.viewer.word.status.setText(AS_TEXT)
            self.viewer.word.status.setToolTip(self.failed[key])
            return
        self.waiting[key] = focus
        if key in self.jobs:
            self.viewer.word.status.setText(LAYING_OUT)
            return
        renderer = self.find_renderer()
        if renderer is None:
            return  # no LibreOffice: the text view, without a word about it
        self.viewer.word.status.setText(LAYING_OUT)
        self.viewer.word.status.setToolTip("")
        cache = cache_dir()
        job = self.runner.submit_side("word-pages", lambda job: renderer(path, cache, job.report, job.token))
        self.jobs[key] = job
        job.progressed.connect(lambda progress: self._progressed(path, progress))
        job.succeeded.connect(lambda pdf: self._made(key, path, Path(pdf)))
        job.failed.connect(lambda error: self._failed(key, path, error))
        job.finished.connect(lambda: self.jobs.pop(key, None))

    def _progressed(self, path: Path, progress: Progress) -> None:
        if self.viewer.word_source == path and progress.message and not progress.fraction:
            self.viewer.word.status.setText(LAYING_OUT)

    def _made(self, key: tuple[str, int, int], path: Path, pdf: Path) -> None:
        self.made[key] = pdf
        focus = self.waiting.pop(key, None)
        if self.viewer.word_source == path and self.viewer.showing_word_text:  # still the one shown
            self._show_pages(path, pdf, focus)

    def _failed(self, key: tuple[str, int, int], path: Path, error: BaseException) -> None:
        self.waiting.pop(key, None)
        if not isinstance(error, WordRenderError):
            self.messages.report(error)  # a bug: re-raised under test
            return
        self.failed[key] = str(error)
        if self.viewer.word_source == path:
            self.viewer.word.status.setText(AS_TEXT)
            self.viewer.word.status.setToolTip(str(error))
        self.messages.warning(str(error), key=f"word-pages:{path}")

    def _show_pages(self, path: Path, pdf: Path, focus: WordFocus | None) -> None:
        if not self.viewer.show_word_pages(pdf, path):
            return  # the text view stays
        self.viewer.word.status.setText(LAID_OUT)
        self.viewer.word.status.setToolTip(
            "The pages as LibreOffice lays them out: Word may break them elsewhere. "
            "Settings → Word documents → text shows the paragraphs Pagewise read instead."
        )
        if focus is not None and focus.words and not self.viewer.highlight_words(focus.words, focus.hint):
            self.messages.info(
                "The cited words were not found on LibreOffice's pages: "
                "“Copy words” and find them with Ctrl+F, or press “Text” to read the paragraphs Pagewise read."
            )

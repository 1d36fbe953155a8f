"""A Word document shown as the pages LibreOffice lays out, with a fake renderer in its place (the
suite never runs LibreOffice): made off the GUI thread, once, the text view meanwhile and when it
fails or is missing; a citation's words highlighted on the page they are on."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from app.controllers.word_pages import AS_TEXT, LAID_OUT, LAYING_OUT
from app.services.answering import CitationView
from inference.cancel import CancelToken
from inference.progress import Progress, ProgressCallback, Stage
from summarizer.library.reading.docx_extract import read_docx
from summarizer.library.reading.docx_render import WordRenderError
from tests.app.conftest import wait_for_document
from tests.docx_factory import para, write_docx
from tests.pdf_factory import make_pdf

CLAUSES = [
    "Scope. The Supplier provides the services described in the order.",
    "Fees. The Customer pays the fees within thirty days of each invoice.",
    "Liability. Neither party is liable for indirect or consequential damages.",
    "Term. This agreement lasts two years and renews for one year at a time.",
]


class FakeRenderer:
    """Lays a Word file out as a PDF of its paragraphs, two to a page, as LibreOffice would put
    them on pages; remembers the threads it ran in. ``fail``: raises as LibreOffice failing."""

    def __init__(self, fail: bool = False) -> None:
        self.fail = fail
        self.threads: list[threading.Thread] = []
        self.release = threading.Event()
        self.release.set()

    def __call__(self, path: Path, cache: Path, progress: ProgressCallback, cancel: CancelToken) -> Path:
        self.threads.append(threading.current_thread())
        progress(Progress(Stage.RENDER_PAGES, 0, None, f"Laying out {path.name}"))
        self.release.wait(10)
        if self.fail:
            raise WordRenderError(f"LibreOffice could not lay out {path.name} (exit code 1): it is shown as text.")
        lines = [p.text for p in read_docx(path).paragraphs]
        return make_pdf(cache / f"{path.stem}-{len(self.threads)}.pdf", [lines[:2], lines[2:]])


def add_word_document(qtbot: Any, window: Any, tmp_path: Path) -> tuple[str, Path]:
    path = write_docx(tmp_path / "supply.docx", "".join(para(text) for text in CLAUSES))
    window.add_paths([path])
    return wait_for_document(qtbot, window), path


def test_a_word_document_is_shown_as_the_pages_libreoffice_lays_out(
    qtbot: Any, make_window: Any, tmp_path: Path
) -> None:
    window = make_window(settings={"word_view": "pages"})
    renderer = FakeRenderer()
    renderer.release.clear()  # LibreOffice still working: the text is shown meanwhile
    window.word_pages.find_renderer = lambda: renderer
    doc_id, path = add_word_document(qtbot, window, tmp_path)
    viewer = window.viewer
    qtbot.waitUntil(lambda: viewer.word.status.text() == LAYING_OUT, timeout=5000)
    assert viewer.showing_word_text and "Fees. The Customer pays" in viewer.word.browser.toPlainText()
    renderer.release.set()
    qtbot.waitUntil(lambda: viewer.path is not None, timeout=10_000)
    assert renderer.threads and threading.main_thread() not in renderer.threads  # never on the GUI thread
    assert viewer.document.pageCount() == 2 and viewer.view.isVisible() and not viewer.showing_word_text
    assert viewer.word_bar.isVisible() and viewer.word.status.text() == LAID_OUT
    assert viewer.word_source == path and viewer.word.path == path  # "Open in Word" opens the .docx

    window.show_citation(CitationView(1, doc_id, 3, None, "[¶ 3]", True, ((3, 0, 26),)))
    assert viewer.path is not None and viewer.word.title.text().endswith(" — supply.docx")
    (highlight,) = viewer.view.highlights
    assert highlight.page == 1 and highlight.exact  # the third paragraph: on the second page
    assert viewer.word.words == CLAUSES[2][:26]
    assert len(renderer.threads) == 1  # laid out once: the citation reused the pages

    window.select_document(None)
    window.select_document(doc_id)
    assert viewer.path is not None and len(renderer.threads) == 1


def test_without_libreoffice_or_when_it_fails_the_text_stays(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    window = make_window(settings={"word_view": "pages"})
    window.word_pages.find_renderer = lambda: None  # not installed: no job, no word about it
    doc_id, _path = add_word_document(qtbot, window, tmp_path)
    viewer = window.viewer
    assert viewer.showing_word_text and viewer.word.status.text() == "" and not window.word_pages.jobs
    failing = FakeRenderer(fail=True)
    window.word_pages.find_renderer = lambda: failing
    window.select_document(None)
    window.select_document(doc_id)
    qtbot.waitUntil(lambda: viewer.word.status.text() == AS_TEXT, timeout=10_000)
    assert viewer.showing_word_text and viewer.path is None
    assert "LibreOffice could not lay out supply.docx" in viewer.word.status.toolTip()
    assert window.messages.history[-1].level == "warning"
    window.show_citation(CitationView(1, doc_id, 3, None, "[¶ 3]", True, ((3, 0, 26),)))
    assert viewer.showing_word_text and len(failing.threads) == 1  # not tried again this session


def test_the_text_setting_never_lays_out_pages(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    window = make_window(settings={"word_view": "text"})
    renderer = FakeRenderer()
    window.word_pages.find_renderer = lambda: renderer
    add_word_document(qtbot, window, tmp_path)
    assert window.viewer.showing_word_text and not renderer.threads


def test_find_and_zoom_act_on_a_word_document_shown_as_text(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    window = make_window()
    add_word_document(qtbot, window, tmp_path)
    viewer = window.viewer
    assert viewer.showing_word_text and not viewer.page_box.isEnabled()
    viewer.find_box.setText("the")
    viewer.find_next()
    count = viewer.word.browser.toPlainText().lower().count("the")
    assert viewer.find_status.text() == f"1 of {count}"
    assert viewer.word.browser.textCursor().selectedText().lower() == "the"
    viewer.find_next()
    assert viewer.find_status.text() == f"2 of {count}"
    viewer.find_box.setText("indemnity")
    viewer.find_next()
    assert viewer.find_status.text() == "no match"
    size = viewer.word.browser.font().pointSizeF()
    viewer.zoom_in.click()
    assert viewer.word.browser.font().pointSizeF() > size


def test_the_word_bar_switches_between_the_pages_and_the_text(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    window = make_window(settings={"word_view": "pages"})
    window.word_pages.find_renderer = lambda: FakeRenderer()
    doc_id, _path = add_word_document(qtbot, window, tmp_path)
    viewer = window.viewer
    qtbot.waitUntil(lambda: viewer.path is not None, timeout=10_000)
    window.show_citation(CitationView(1, doc_id, 3, None, "[¶ 3]", True, ((3, 0, 26),)))
    switch = viewer.word.switch_view
    assert switch.isVisible() and switch.text() == "Text"
    switch.click()  # the text, at the cited paragraph, with its comments
    assert viewer.showing_word_text and not viewer.view.isVisible() and switch.text() == "Pages"
    assert "Liability. Neither party" in viewer.word.browser.toPlainText()
    switch.click()
    assert not viewer.showing_word_text and viewer.view.isVisible() and len(viewer.view.highlights) == 1
    assert viewer.page_count.text() == "/ 2" and switch.text() == "Text"
    window.select_document(None)
    window.word_pages.find_renderer = lambda: None
    window.word_pages.made.clear()
    window.select_document(doc_id)  # no pages: nothing to switch to
    assert viewer.showing_word_text and not switch.isVisible()


def _text_chosen(qtbot: Any, make_window: Any, tmp_path: Path) -> tuple[Any, str]:
    """A window showing a Word document laid out as pages, where the user has pressed "Text"."""
    window = make_window(settings={"word_view": "pages"})
    window.word_pages.find_renderer = lambda: FakeRenderer()
    doc_id, _path = add_word_document(qtbot, window, tmp_path)
    qtbot.waitUntil(lambda: window.viewer.path is not None, timeout=10_000)
    window.viewer.word.switch_view.click()  # the user chooses the text
    assert window.viewer.showing_word_text
    return window, doc_id


def test_the_text_view_chosen_stays_for_a_citation(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    """Walk 2026-12-06, finding 4: a citation clicked after "Text" went back to LibreOffice's pages."""
    window, doc_id = _text_chosen(qtbot, make_window, tmp_path)
    viewer = window.viewer
    window.show_citation(CitationView(1, doc_id, 3, None, "[¶ 3]", True, ((3, 0, 26),)))
    assert viewer.showing_word_text and viewer.word.switch_view.text() == "Pages"
    assert "Liability. Neither party" in viewer.word.browser.toPlainText()
    viewer.word.switch_view.click()  # and back to the pages: the next citation shows them
    window.show_citation(CitationView(2, doc_id, 4, None, "[¶ 4]", True, ((4, 0, 20),)))
    assert not viewer.showing_word_text and viewer.view.isVisible()


def test_the_zoom_shows_again_on_the_pages_after_the_text_view(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    """Walk 2026-12-06, finding 24 (its second part): the zoom percentage stayed blank on the pages
    shown after the text view."""
    window, doc_id = _text_chosen(qtbot, make_window, tmp_path)
    viewer = window.viewer
    viewer.word.switch_view.click()  # back to the pages
    window.show_citation(CitationView(2, doc_id, 4, None, "[¶ 4]", True, ((4, 0, 20),)))
    assert not viewer.showing_word_text and viewer.view.isVisible()
    assert viewer.zoom_label.text().endswith("%")

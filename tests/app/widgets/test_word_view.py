"""The rich-text view of a Word document: numbers and headings shown, tracked changes coloured,
comments beside their paragraph, the cited paragraph scrolled to with its words highlighted."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QPoint
from PySide6.QtGui import QGuiApplication

from app.controllers.open_document import show_word_document
from app.widgets.pdf_viewer import PdfViewer
from app.widgets.word_view import DELETED, HIGHLIGHT, INSERTED, word_html
from summarizer.library.reading.docx_extract import Comment, DocxParagraph, TrackedChange
from summarizer.library.storage.store import Library
from tests.conftest import CONTRACTS


def test_word_html_shows_numbers_changes_comments_and_the_cited_words() -> None:
    paragraphs = [
        DocxParagraph(1, "Fees", None, "Heading1", 1, None, False),
        DocxParagraph(2, "Invoices. The buyer pays direct costs monthly.", "1.1", "Normal", None, None, False),
    ]
    changes = [
        TrackedChange("insertion", "Other Side", "", "direct ", 2),
        TrackedChange("deletion", "Other Side", "", "all ", 2),
    ]
    notes = [Comment("0", "Counsel", "", "Push back.", 2)]
    html = word_html(paragraphs, changes, notes, focus=2, words=(14, 29))
    assert "<b>Fees</b>" in html and "1.1 Invoices" in html
    assert f'<u style="color:{INSERTED}">direct </u>' in html
    assert f'<s style="color:{DELETED}">all </s>' in html and "deleted by Other Side" in html
    assert "Counsel: Push back." in html
    assert f'<span style="background-color:{HIGHLIGHT}">The buyer pays </span>' in html  # "1.1 Invoices. " is 14


def test_a_word_document_opens_in_the_viewer_at_the_cited_paragraph(qtbot: Any, tmp_path: Path) -> None:
    from summarizer.library.ingest import IngestOptions, ingest_path
    from tests.docx_factory import para, write_docx

    body = "".join(para(f"Clause {n}. The parties agree on schedule item {n}.") for n in range(1, 120))
    path = write_docx(tmp_path / "draft.docx", body)
    viewer = PdfViewer()
    qtbot.addWidget(viewer)
    viewer.resize(800, 600)
    viewer.show()
    with Library.open(tmp_path / "library.sqlite") as library:
        doc_id = ingest_path(library, path, IngestOptions(embed=False)).doc_id
        show_word_document(library, viewer, doc_id, path, focus=100, words=(12, 23), reference="¶ 100")
    assert viewer.word.isVisible() and not viewer.view.isVisible() and not viewer.placeholder.isVisible()
    assert viewer.word.title.text() == "¶ 100 — draft.docx"
    browser = viewer.word.browser

    def top_block() -> str:
        return browser.cursorForPosition(QPoint(5, 14)).block().text()

    qtbot.waitUntil(lambda: top_block().startswith("¶\u00a0100\u00a0"), timeout=5000)  # ¶ 100 at the top
    viewer.word.copy_words.click()
    assert QGuiApplication.clipboard().text() == "The parties"
    viewer.word.copy_reference.click()
    assert QGuiApplication.clipboard().text() == "¶ 100"
    assert viewer.open(CONTRACTS / "license-17p.pdf")  # a PDF afterwards hides the Word view
    assert not viewer.word.isVisible() and viewer.view.isVisible()

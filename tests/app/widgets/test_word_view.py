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
from summarizer.library.reading.docx_document import Comment, DocxParagraph, TrackedChange
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


HEADING_STYLED = [
    DocxParagraph(1, "Term and Termination", "5.", "Heading1", 1, None, False),
    DocxParagraph(2, "Either party may terminate on notice.", "(c)", "Heading3", 3, None, False),
    DocxParagraph(3, "Effective Date. The date on the cover page.", "5.1", "Heading2", 2, None, False),
]


def test_only_titles_are_bold() -> None:
    """Walk 2026-12-06, finding 17: body clauses styled as headings (Common Paper's 5.2(c)) were bold."""
    html = word_html(HEADING_STYLED, [], [])
    assert "<b>5. Term and Termination</b>" in html
    assert "<b>(c) Either party" not in html and "<b>5.1 Effective" not in html


def test_a_deleted_paragraph_mark_says_what_it_was() -> None:
    """Walk 2026-12-06, finding 18: a deleted paragraph mark read "¶ (deleted by Accord Demo)"."""
    html = word_html(HEADING_STYLED, [TrackedChange("deletion", "Accord Demo", "", "¶", 2)], [])
    assert "(paragraph break deleted by Accord Demo)" in html and ">¶</s>" not in html


def test_find_puts_the_match_in_the_upper_part_of_the_text_view(qtbot: Any) -> None:
    """Walk finding 25: Find left the match on the bottom line of the view."""
    from app.widgets.word_view import WordView

    view = WordView()
    qtbot.addWidget(view)
    view.resize(500, 300)
    view.show()
    paragraphs = [DocxParagraph(n, f"Clause {n} text.", None, "Normal", None, None, False) for n in range(1, 80)]
    paragraphs.append(DocxParagraph(80, "The indemnity is uncapped.", None, "Normal", None, None, False))
    paragraphs += [DocxParagraph(n, f"Clause {n} text.", None, "Normal", None, None, False) for n in range(81, 120)]
    view.show_document(Path("x.docx"), word_html(paragraphs, [], []), None, "", "")
    assert view.find_text("indemnity") == (1, 1)
    top = view.browser.cursorRect().top()
    assert 0 <= top <= view.browser.viewport().height() * 2 // 3


def test_a_comment_is_marked_by_a_word_not_a_pictograph_a_font_may_lack() -> None:
    """Walk 2026-12-06 finding 19: the comment marker was 💬 (U+1F4AC), an empty box where the
    desktop's fonts have no such glyph (Debian's DejaVu set)."""
    paragraphs = [DocxParagraph(1, "7.3 Governing Law. New York law applies.", None, "Normal", None, None, False)]
    notes = [Comment("0", "A. Counsel", "", "Client asks for New York law here.", 1)]
    html = word_html(paragraphs, [], notes)
    note = html[html.index("A. Counsel") - 40 : html.index("law here.")]
    assert "<b>Comment</b> · A. Counsel: Client asks" in html
    assert all(ord(ch) < 0x2500 for ch in note), "only letters and common punctuation mark a comment"


def test_the_word_bar_shows_the_whole_reference_above_its_buttons_when_narrow(qtbot: Any) -> None:
    """Walk 2026-12-06 finding 24: in a narrow viewer the Word bar cut its reference to
    "§ 6.3 From…" or "§ 12.3…" beside its buttons. The reference now goes on its own line, whole;
    a wide bar keeps it beside the buttons, on one line."""
    from app.widgets.word_view import WordView

    view = WordView()
    qtbot.addWidget(view)
    view.bar.show()
    view.show()
    reference = "§§ 12.3–12.6 Governing Law and Chosen Courts, ¶ 116–119, p. 10"
    paragraphs = [DocxParagraph(1, "12.3 Governing Law.", None, "Normal", None, None, False)]
    view.resize(420, 400)
    view.show_document(Path("services-agreement.docx"), word_html(paragraphs, [], []), 1, reference, "Law")
    qtbot.waitUntil(lambda: view.title.shown_text().startswith(reference), timeout=3000)
    assert view.reference_on_own_line
    assert view.title.geometry().bottom() < view.copy_reference.geometry().top()  # above the buttons
    assert view.copy_reference.width() >= view.copy_reference.sizeHint().width()  # "Copy reference" whole
    view.resize(1400, 400)
    qtbot.waitUntil(lambda: not view.reference_on_own_line, timeout=3000)
    qtbot.waitUntil(lambda: view.title.shown_text().startswith(reference), timeout=3000)
    qtbot.waitUntil(  # one line: the reference beside the buttons
        lambda: abs(view.title.geometry().center().y() - view.copy_reference.geometry().center().y()) < 4, timeout=3000
    )

"""The window's adapter onto summaries: the stored summary shown for the loaded model."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.services import answering
from inference.engines.fake import FakeEngine
from summarizer.library.storage.store import Library
from tests.summarizer.doc_factory import add_document, numbered_pages


@pytest.fixture
def library() -> Iterator[Library]:
    with Library.open() as lib:
        yield lib


def test_the_stored_summary_is_shown_after_the_context_grows(library: Library) -> None:
    """Issue 25, finding 9: a larger context found no stored summary and made it again."""
    doc_id = add_document(library, numbered_pages(12, words_per_page=1700), title="Long Lease")
    made = answering.summarize(FakeEngine(default_reply="made at 8K", n_ctx=8192), library, doc_id)
    larger = FakeEngine(n_ctx=16384)  # the same model (FakeEngine:fake-model), loaded with more context
    shown = answering.cached_summary(library, doc_id, larger)
    assert shown is not None and shown == made
    assert answering.summarize(larger, library, doc_id) == made and larger.calls == []
    assert answering.cached_summary(library, doc_id, FakeEngine(n_ctx=4096)) is None  # the 8K segments do not fit


def test_the_markdown_export_names_word_citations_by_clause_and_paragraph(library: Library, tmp_path: Path) -> None:
    """A Word document's "pages" are its paragraphs: the export says "§ 1.1, ¶ 2", never "p. 2"."""
    from summarizer.library.ingest import IngestOptions, ingest_path
    from tests.docx_factory import para, write_heading_clauses_docx

    body = para("Payment", style="Heading1") + para("Invoices. The buyer pays monthly.", num=(1, 1))
    path = write_heading_clauses_docx(tmp_path / "supply.docx", body)
    doc_id = ingest_path(library, path, IngestOptions(embed=False)).doc_id
    engine = FakeEngine(default_reply="Monthly [§ 1.1]; not yearly [¶ 9].")
    turn = answering.ask(engine, library, doc_id, "When does the buyer pay?")
    markdown = answering.to_markdown("Supply", [turn], word=True)
    assert "- [1] § 1.1, ¶ 2: “[§ 1.1]”" in markdown
    assert "- ¶ 9 (not in the paragraphs read)" in markdown
    assert "Read: the whole document, ¶\u00a01–2." in markdown
    assert "verify every answer against the paragraphs it cites" in markdown
    assert "p. 2" not in markdown and "page" not in markdown


def test_a_word_answer_citing_nothing_says_paragraphs_not_pages(library: Library, tmp_path: Path) -> None:
    from app.views.conversation_view import checks
    from summarizer.library.ingest import IngestOptions, ingest_path
    from tests.docx_factory import para, write_docx

    body = para("Payment. The buyer pays monthly.") + para("Term. The term renews each year.")
    doc_id = ingest_path(library, write_docx(tmp_path / "supply.docx", body), IngestOptions(embed=False)).doc_id
    uncited = answering.ask(FakeEngine(default_reply="Monthly."), library, doc_id, "When does the buyer pay?")
    markdown = answering.to_markdown("Supply", [uncited], word=True)
    assert "*This answer cites no paragraph: check it against the paragraphs read below.*" in markdown
    lines = "\n".join(checks(0, uncited, pages=2, word=True))
    assert "This answer cites no paragraph: check it against the paragraphs read below." in lines
    assert "page" not in lines
    wrong = answering.ask(FakeEngine(default_reply="Monthly [¶ 9]; see [§ 4]."), library, doc_id, "When?")
    lines = "\n".join(checks(0, wrong, pages=2, word=True))
    assert "¶\u00a09 is not in the document: it has 2 paragraphs." in lines
    assert "Not supported by the paragraphs read: [§ 4]." in lines
    assert "None of the paragraphs this answer cites is among the paragraphs read" in lines
    assert "page" not in lines and "p. " not in lines
    pdf_lines = "\n".join(checks(0, uncited, pages=2))  # the same turn shown as a PDF's says pages
    assert "This answer cites no page: check it against the pages read below." in pdf_lines


def test_a_word_documents_summary_names_its_parts_by_paragraph(library: Library, tmp_path: Path) -> None:
    from app.views.summary_view import summary_markdown
    from summarizer.library.ingest import IngestOptions, ingest_path
    from tests.docx_factory import para, write_docx

    body = para("Payment. The buyer pays monthly.") + para("Term. The term renews each year.")
    doc_id = ingest_path(library, write_docx(tmp_path / "supply.docx", body), IngestOptions(embed=False)).doc_id
    summary = answering.summarize(FakeEngine(default_reply="Monthly payments; yearly renewal."), library, doc_id)
    assert summary.word
    markdown = summary_markdown("Supply", summary, links=False)
    assert "**¶\u00a01–2** — " in markdown and "p. " not in markdown and "pp. " not in markdown

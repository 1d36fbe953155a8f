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
    from tests.docx_factory import level, numbering, para, style, styles, write_docx

    numbers = numbering(
        {1: level(0, "decimal", "%1.", style="Heading1") + level(1, "decimal", "%1.%2")},
        {1: '<w:abstractNumId w:val="1"/>'},
    )
    body = para("Payment", style="Heading1") + para("Invoices. The buyer pays monthly.", num=(1, 1))
    path = write_docx(
        tmp_path / "supply.docx",
        body,
        numbering_xml=numbers,
        styles_xml=styles(style("Heading1", "heading 1", num=(1, None))),
    )
    doc_id = ingest_path(library, path, IngestOptions(embed=False)).doc_id
    engine = FakeEngine(default_reply="Monthly [§ 1.1]; not yearly [¶ 9].")
    turn = answering.ask(engine, library, doc_id, "When does the buyer pay?")
    markdown = answering.to_markdown("Supply", [turn])
    assert "- [1] § 1.1, ¶ 2: “[§ 1.1]”" in markdown
    assert "- ¶ 9 (not in the pages read)" in markdown
    assert "Read: the whole document, ¶\u00a01–2." in markdown
    assert "p. 2" not in markdown

"""Adding a Word document: its paragraphs become the pages passages are cut from, and what Word
shows of them (numbers, pages), its tracked changes and comments are kept with locators."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from summarizer.errors import DocumentError
from summarizer.library.cutting.passages import PAGE_JOIN
from summarizer.library.ingest import IngestOptions, ingest_path
from summarizer.library.storage.store import Library
from summarizer.library.word_parts import comments, passage_locators, tracked_changes
from tests.docx_factory import comments as comments_xml
from tests.docx_factory import level, numbering, para, style, styles, write_docx
from tests.pdf_factory import make_pdf

NUMBERING = numbering(
    {1: level(0, "decimal", "%1.", style="Heading1") + level(1, "decimal", "%1.%2") + level(2, "lowerLetter", "(%3)")},
    {1: '<w:abstractNumId w:val="1"/>'},
)
STYLES = styles(style("Heading1", "heading 1", num=(1, None)))
WORDS = "The Supplier shall deliver the goods in good order and the Customer shall pay for them on time. "


def contract(path: Path) -> Path:
    inserted = (
        '<w:ins w:id="1" w:author="Other Side" w:date="2026-02-01T00:00:00Z"><w:r><w:t xml:space="preserve"> '
        "twelve months of</w:t></w:r></w:ins>"
    )
    body = para("Definitions", style="Heading1") + para("Terms. " + WORDS * 3, num=(1, 1))
    body += para("Limitation of Liability", style="Heading1")
    body += para("Cap. " + WORDS * 2, num=(1, 1))
    body += (
        '<w:p><w:pPr><w:numPr><w:ilvl w:val="2"/><w:numId w:val="1"/></w:numPr></w:pPr>'
        '<w:commentRangeStart w:id="0"/><w:r><w:lastRenderedPageBreak/><w:t xml:space="preserve">'
        f"Liability is capped at the fees of</w:t></w:r>{inserted}<w:r><w:t> the Agreement.</w:t></w:r></w:p>"
    )
    return write_docx(
        path,
        body,
        numbering_xml=NUMBERING,
        styles_xml=STYLES,
        comments_xml=comments_xml((0, "Counsel", "Too low.")),
        title="Supply Agreement",
    )


def test_ingest_a_word_contract(tmp_path: Path) -> None:
    path = contract(tmp_path / "supply.docx")
    with Library.open() as library:
        result = ingest_path(library, path, IngestOptions(max_tokens=60, embed=False))
        assert (result.status, result.title, result.pages) == ("indexed", "Supply Agreement", 5)
        record = library.document(result.doc_id)
        assert record.file_type == "docx" and record.to_json()["file_type"] == "docx"
        pages = dict(library.db.execute("SELECT page, text FROM pages WHERE doc_id = ?", [result.doc_id]).fetchall())
        assert pages[4].startswith("2.1 Cap.")
        assert pages[5] == "(a) Liability is capped at the fees of twelve months of the Agreement."
        rows = library.db.execute(
            "SELECT text, spans, page_start, page_end FROM passages WHERE doc_id = ? ORDER BY seq", [result.doc_id]
        ).fetchall()
        assert len(rows) >= 2
        for text, spans, _, _ in rows:
            assert PAGE_JOIN.join(pages[p][s:e] for p, s, e in json.loads(spans)) == text
        ranges = [(int(r[2]), int(r[3])) for r in rows]
        locators = [str(loc) for loc in passage_locators(library, result.doc_id, ranges)]
        last = next(loc for loc, (first, _) in zip(locators, ranges, strict=True) if first == 5)
        assert last == "§ 2.1(a) Cap, ¶ 5, p. 2"
        assert [(c.kind, c.author, c.text, c.paragraph) for c in tracked_changes(library, result.doc_id)] == [
            ("insertion", "Other Side", "twelve months of", 5)
        ]
        assert [(c.author, c.text, c.paragraph) for c in comments(library, result.doc_id)] == [
            ("Counsel", "Too low.", 5)
        ]
        assert (record.tracked_changes, record.comments) == (1, 1)
        library.remove(result.doc_id)
        assert library.db.execute("SELECT COUNT(*) FROM word_paragraphs").fetchone()[0] == 0


def test_a_docx_that_is_a_pdf_is_added_as_that_pdf_with_a_note(tmp_path: Path) -> None:
    path = make_pdf(tmp_path / "misnamed.docx", [["This Agreement is made between the parties named below."]])
    with Library.open() as library:
        result = ingest_path(library, path, IngestOptions(embed=False))
        assert library.document(result.doc_id).file_type == "pdf"
        assert result.warnings == ["misnamed.docx is a PDF despite its name, so it was read as the PDF it is"]


def test_bad_word_input_leaves_the_library_untouched(tmp_path: Path) -> None:
    broken = tmp_path / "broken.docx"
    broken.write_bytes(b"PK\x03\x04 not really a zip")
    with Library.open() as library:
        with pytest.raises(DocumentError, match=r"broken\.docx is damaged"):
            ingest_path(library, broken)
        assert library.documents() == []


def test_a_document_that_is_one_table_is_read_row_by_row_into_passages(tmp_path: Path) -> None:
    cell = "<w:tc><w:p><w:r><w:t>{}</w:t></w:r></w:p></w:tc>"
    rows = "".join(
        f"<w:tr>{cell.format(f'Item {i}')}{cell.format(f'{i * 10} USD per month')}</w:tr>" for i in range(600)
    )
    path = write_docx(tmp_path / "schedule.docx", f"<w:tbl>{rows}</w:tbl>")
    with Library.open() as library:
        result = ingest_path(library, path, IngestOptions(embed=False))
        assert (result.status, result.pages) == ("indexed", 600)
        assert result.passages > 5
        texts = [r[0] for r in library.db.execute("SELECT text FROM passages WHERE doc_id = ?", [result.doc_id])]
        assert "Item 599 | 5990 USD per month" in texts[-1]


def test_a_contract_with_a_cover_table_of_figures_is_a_contract(tmp_path: Path) -> None:
    """The kind is decided from page-sized runs of paragraphs: 60 one-line rows of a cover page's
    fee table, each its own "page", read as pages of numbers (a filing)."""
    cell = "<w:tc><w:p><w:r><w:t>{}</w:t></w:r></w:p></w:tc>"
    rows = "".join(
        f"<w:tr>{cell.format(f'Fee {i}')}{cell.format(f'$ {i},250.00')}{cell.format(f'{i}.5%')}</w:tr>"
        for i in range(70)
    )
    terms = "".join(
        para(f"{n}. This Agreement binds the Parties. The Supplier shall deliver and the Customer shall pay. " * 3)
        for n in range(1, 30)
    )
    body = para("WHEREAS the Parties wish to agree as follows:") + f"<w:tbl>{rows}</w:tbl>" + terms
    body += para("IN WITNESS WHEREOF the Parties have signed this Agreement.")
    path = write_docx(tmp_path / "order.docx", body)
    with Library.open() as library:
        result = ingest_path(library, path, IngestOptions(embed=False))
        assert library.document(result.doc_id).kind == "contract"

"""Reading .docx files: numbering as Word displays it, tracked changes, comments, tables, furniture."""

from __future__ import annotations

from pathlib import Path

import docx
import pytest

from summarizer.library.reading.docx_extract import DocxPages, read_docx
from summarizer.library.reading.docx_numbering import format_number
from tests.docx_factory import comments, level, numbering, para, style, styles, write_docx

WORD_FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "docx"  # a copy of the shared file (SOURCES.md)
OUTLINE = numbering(
    {
        1: level(0, "upperRoman", "ARTICLE %1", style="Heading1")
        + level(1, "decimal", "%1.%2", style="Heading2")
        + level(2, "lowerLetter", "(%3)"),
    },
    {1: '<w:abstractNumId w:val="1"/>'},
)
OUTLINE_STYLES = styles(
    style("Heading1", "heading 1", num=(1, None)),
    style("Heading2", "heading 2", num=(1, 1)),
    style("Clause", "Clause", based_on="Heading2"),
)


def numbers(path: Path) -> list[tuple[str | None, str]]:
    return [(p.number, p.text) for p in read_docx(path).paragraphs]


def test_numbers_come_from_the_style_through_based_on_chains(tmp_path: Path) -> None:
    body = (
        para("Definitions", style="Heading1")
        + para("Agreement means this.", style="Heading2")
        + para("Party means a party.", style="Clause")  # numbered only through Clause → Heading2
        + para("first item", num=(1, 2))
        + para("second item", num=(1, 2))
        + para("Liability", style="Heading1")
        + para("Cap.", style="Heading2")
        + para("restarted item", num=(1, 2))
        + para("Plain text.")
    )
    path = write_docx(tmp_path / "outline.docx", body, numbering_xml=OUTLINE, styles_xml=OUTLINE_STYLES)
    assert numbers(path) == [
        ("ARTICLE I", "Definitions"),
        ("I.1", "Agreement means this."),
        ("I.2", "Party means a party."),
        ("(a)", "first item"),
        ("(b)", "second item"),
        ("ARTICLE II", "Liability"),
        ("II.1", "Cap."),
        ("(a)", "restarted item"),
        (None, "Plain text."),
    ]
    document = read_docx(path)
    assert [p.heading_level for p in document.paragraphs[:3]] == [1, 2, 2]
    assert document.paragraphs[1].display_text == "I.1 Agreement means this."


def test_num_id_zero_switches_a_styled_paragraph_off(tmp_path: Path) -> None:
    body = para("Numbered", style="Heading1") + para("Not numbered", style="Heading1", num=(0, 0))
    body += para("Numbered again", style="Heading1")
    path = write_docx(tmp_path / "off.docx", body, numbering_xml=OUTLINE, styles_xml=OUTLINE_STYLES)
    assert numbers(path) == [("ARTICLE I", "Numbered"), (None, "Not numbered"), ("ARTICLE II", "Numbered again")]


def test_start_override_restarts_a_list_sharing_its_abstract_numbering(tmp_path: Path) -> None:
    xml = numbering(
        {7: level(0, "decimal", "%1.") + level(1, "lowerRoman", "(%2)")},
        {
            1: '<w:abstractNumId w:val="7"/>',
            2: '<w:abstractNumId w:val="7"/>',  # continues list 1
            3: '<w:abstractNumId w:val="7"/><w:lvlOverride w:ilvl="0"><w:startOverride w:val="1"/></w:lvlOverride>',
            4: '<w:abstractNumId w:val="7"/><w:lvlOverride w:ilvl="1">'
            + level(1, "upperLetter", "%2)", start=3)
            + "</w:lvlOverride>",
        },
    )
    body = para("one", num=(1, 0)) + para("two", num=(1, 0)) + para("three", num=(2, 0))
    body += para("sub", num=(2, 1)) + para("sub two", num=(2, 1))
    body += para("restart", num=(3, 0)) + para("again", num=(3, 0)) + para("lettered", num=(4, 1))
    path = write_docx(tmp_path / "restart.docx", body, numbering_xml=xml)
    assert numbers(path) == [
        ("1.", "one"),
        ("2.", "two"),
        ("3.", "three"),
        ("(i)", "sub"),
        ("(ii)", "sub two"),
        ("1.", "restart"),
        ("2.", "again"),
        ("C)", "lettered"),
    ]


def test_lvl_restart_legal_numbering_and_formats(tmp_path: Path) -> None:
    xml = numbering(
        {
            1: level(0, "upperRoman", "%1.")
            + level(1, "decimal", "%2.", extra='<w:lvlRestart w:val="0"/>')
            + level(2, "lowerLetter", "%1.%2.%3", extra="<w:isLgl/>"),
        },
        {1: '<w:abstractNumId w:val="1"/>'},
    )
    body = para("A", num=(1, 0)) + para("a1", num=(1, 1)) + para("B", num=(1, 0)) + para("b1", num=(1, 1))
    body += para("legal", num=(1, 2))
    path = write_docx(tmp_path / "legal.docx", body, numbering_xml=xml)
    assert numbers(path) == [("I.", "A"), ("1.", "a1"), ("II.", "B"), ("2.", "b1"), ("2.2.1", "legal")]
    assert [format_number(v, f) for v, f in [(28, "lowerLetter"), (14, "upperRoman"), (3, "ordinalText")]] == [
        "bb",
        "XIV",
        "Third",
    ]


def test_tracked_changes_read_as_accepted_and_kept(tmp_path: Path) -> None:
    ins = (
        '<w:ins w:id="1" w:author="Ann" w:date="2026-01-02T00:00:00Z"><w:r><w:t xml:space="preserve"> gross'
        "</w:t></w:r></w:ins>"
    )
    deleted = (
        '<w:del w:id="2" w:author="Bob" w:date="2026-01-03T00:00:00Z"><w:r><w:delText xml:space="preserve"> net'
        "</w:delText></w:r></w:del>"
    )
    body = f'<w:p><w:r><w:t xml:space="preserve">Fees are</w:t></w:r>{deleted}{ins}<w:r><w:t> of tax.</w:t></w:r></w:p>'
    # A deleted paragraph mark joins the paragraph to the next one once accepted.
    body += (
        '<w:p><w:pPr><w:rPr><w:del w:id="3" w:author="Bob" w:date="2026-01-03T00:00:00Z"/></w:rPr></w:pPr>'
        "<w:r><w:t>Payment is due</w:t></w:r></w:p>"
    )
    body += para("in 30 days.")
    path = write_docx(tmp_path / "changes.docx", body)
    document = read_docx(path)
    assert [p.text for p in document.paragraphs] == ["Fees are gross of tax.", "Payment is due in 30 days."]
    assert [(c.kind, c.author, c.text, c.paragraph) for c in document.changes] == [
        ("deletion", "Bob", "net", 1),
        ("insertion", "Ann", "gross", 1),
        ("deletion", "Bob", "¶", 2),  # the deleted paragraph mark, a change of its own
    ]
    assert document.changes[1].date == "2026-01-02T00:00:00Z"


def test_comments_stay_with_their_paragraph(tmp_path: Path) -> None:
    made = docx.Document()
    made.add_paragraph("Recitals.")
    target = made.add_paragraph("The Supplier shall indemnify the Customer.")
    made.comments  # noqa: B018 - python-docx creates the comments part on first use
    made.add_comment(target.runs, text="Too broad: cap it.", author="Counsel", initials="C")
    path = tmp_path / "commented.docx"
    made.save(str(path))
    document = read_docx(path)
    assert [(c.author, c.text, c.paragraph) for c in document.comments] == [("Counsel", "Too broad: cap it.", 2)]


def test_comments_written_by_hand_anchor_by_range_start(tmp_path: Path) -> None:
    body = (
        para("First.")
        + '<w:p><w:commentRangeStart w:id="5"/><w:r><w:t>Second.</w:t></w:r><w:commentRangeEnd w:id="5"/></w:p>'
    )
    path = write_docx(tmp_path / "c.docx", body, comments_xml=comments((5, "Eve", "Why?")))
    assert [(c.comment_id, c.paragraph) for c in read_docx(path).comments] == [("5", 2)]


def test_tables_rows_furniture_title_and_pages(tmp_path: Path) -> None:
    cell = "<w:tc><w:p><w:r><w:t>{}</w:t></w:r></w:p></w:tc>"
    row = f"<w:tr>{cell.format('Fees')}{cell.format('$10')}</w:tr>"
    body = para("Order Form") + f"<w:tbl>{row}</w:tbl>"
    body += "<w:p><w:r><w:lastRenderedPageBreak/><w:t>Standard Terms</w:t></w:r></w:p>"
    header = (
        f'<w:hdr xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">{para("CONFIDENTIAL")}</w:hdr>'
    )
    path = write_docx(tmp_path / "t.docx", body, title="Cloud Agreement", extra_parts={"word/header1.xml": header})
    document = read_docx(path)
    assert [(p.text, p.table_row, p.page) for p in document.paragraphs] == [
        ("Order Form", False, 1),
        ("Fees | $10", True, 1),
        ("Standard Terms", False, 2),
    ]
    assert document.title == "Cloud Agreement"
    assert [(f.part, f.text) for f in document.furniture] == [("header", "CONFIDENTIAL")]
    assert "CONFIDENTIAL" not in " ".join(p.text for p in document.paragraphs)
    pages = DocxPages(path)
    assert [(p.number, p.text) for p in pages.pages()] == [(1, "Order Form"), (2, "Fees | $10"), (3, "Standard Terms")]


def test_no_rendered_page_marks_means_no_pages(tmp_path: Path) -> None:
    path = write_docx(tmp_path / "n.docx", para("One.") + para("Two."))
    document = read_docx(path)
    assert not document.has_rendered_pages
    assert [p.page for p in document.paragraphs] == [None, None]


@pytest.mark.parametrize("name", ["common-paper-cloud-service-agreement.docx"])
def test_a_shared_contract_numbers_its_styled_headings(name: str) -> None:
    path = WORD_FIXTURES / name
    document = read_docx(path)
    numbered = {p.number: p.text for p in document.numbered}
    # 121 paragraphs take the numbering through their styles; one of them is empty and only carries a
    # section break, which Word draws as the break, without a number (the text's own cross-references
    # say "Section 9 (Indemnification)", as counted without it).
    assert len(document.numbered) == 120
    assert numbered["8.1"].startswith("Liability Caps")
    assert numbered["9."] == "Indemnification"

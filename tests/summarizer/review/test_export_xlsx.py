"""The exports of a data room: the XLSX workbook (a row per contract) and the DOCX memo's summary table."""

from __future__ import annotations

from pathlib import Path

from summarizer.library.storage.store import Library
from summarizer.review.checklist import Checklist, ChecklistItem
from summarizer.review.evidence_batch import review_evidence_stored
from tests.summarizer.doc_factory import add_document

ITEMS = (
    ChecklistItem("law", "Governing Law", "Which law governs?", ("governed by the laws of",), "jurisdiction"),
    ChecklistItem("coc", "Change of Control", "Change of control?", ("change of control",), "yes_no"),
)
CHECKLIST = Checklist("two", "v1", ITEMS)
PAGES = [
    "SUPPLY AGREEMENT between Acme Corp and Beta LLC. The term of this agreement is five years.",
    "Governing law. This agreement shall be governed by the laws of the State of New York.",
    "Change of control. Upon a change of control of either party the other may terminate.",
]


def test_the_exports_of_a_data_room(tmp_path: Path) -> None:
    import docx
    import openpyxl

    from summarizer.review.export_xlsx import write_xlsx
    from summarizer.review.memo_docx import GRID_CONTRACTS_MAX, SUMMARY_TITLES, write_docx

    with Library.open(tmp_path / "library.sqlite") as lib:
        ids = [add_document(lib, PAGES, title=f"Contract {n}", words_per_passage=12) for n in range(8)]
        reviews = review_evidence_stored(lib, ids, CHECKLIST)
    assert len(reviews) > GRID_CONTRACTS_MAX

    write_xlsx(reviews, tmp_path / "room.xlsx")
    book = openpyxl.load_workbook(tmp_path / "room.xlsx")
    assert book.sheetnames == ["Contracts", "Evidence", "About"]
    contracts = book["Contracts"]
    assert [c.value for c in contracts[1]] == ["Contract", "File", "Governing Law", "Change of Control"]
    assert [contracts.cell(row=r, column=1).value for r in range(2, 10)] == [f"Contract {n}" for n in range(8)]
    assert contracts.freeze_panes == "B2" and contracts.auto_filter.ref == "A1:D9"
    evidence = book["Evidence"]
    assert evidence.max_row == 1 + 8 * 2 and evidence.freeze_panes == "A2" and evidence.auto_filter.ref
    passage = evidence.cell(row=2, column=8)
    assert "governed by the laws of" in passage.value and passage.alignment.wrap_text
    assert evidence.cell(row=1, column=4).value == "Source" and evidence.cell(row=2, column=4).value == "evidence"
    assert str(contracts.cell(row=2, column=3).value).endswith("[evidence]")  # no model gave this verdict

    write_docx(reviews, tmp_path / "room.docx")
    memo = docx.Document(str(tmp_path / "room.docx"))
    summary = memo.tables[0]  # one row per contract, not a column per contract
    assert len(memo.tables) == 1 and tuple(c.text for c in summary.rows[0].cells) == SUMMARY_TITLES
    assert [r.cells[0].text for r in summary.rows[1:]] == [f"Contract {n}" for n in range(8)]
    # evidence only: candidate passages, not "Clauses found: 2 of 2" (issue 56 item 3)
    assert summary.rows[1].cells[1].text == "2 candidates of 2 (not checked)"
    assert any("nothing checked that the clause is there" in p.text for p in memo.paragraphs)
    assert book["Contracts"].cell(row=2, column=3).value.startswith("candidate: p.")
    assert any("candidate" in str(row[0].value) for row in book["About"].iter_rows())
    headings = [p.text for p in memo.paragraphs if p.style.name == "Heading 2"]
    # one section per contract, then the files with their SHA-256 in an appendix, not first
    assert headings == [f"Contract {n}" for n in range(8)] + ["Appendix: the files reviewed"]


def test_text_xml_cannot_hold_is_left_out_of_the_workbook_and_the_memo(tmp_path: Path) -> None:
    """A PDF's text can hold U+FFFE or a control character (a CUAD contract of the data room did):
    openpyxl and python-docx refuse them, and the export stopped with a ValueError."""
    import dataclasses

    import docx
    import openpyxl

    from summarizer.review.export_xlsx import write_xlsx
    from summarizer.review.memo_docx import write_docx

    with Library.open(tmp_path / "library.sqlite") as lib:
        ids = [add_document(lib, PAGES, title="Upjohn\ufffe Agreement", words_per_passage=12)]
        (review,) = review_evidence_stored(lib, ids, CHECKLIST)
    item = review.items[0]
    evidence = [dataclasses.replace(e, text="governed by the laws\x01 of New\ufffe York") for e in item.evidence]
    dirty = dataclasses.replace(review, items=(dataclasses.replace(item, evidence=evidence), *review.items[1:]))

    write_xlsx([dirty], tmp_path / "room.xlsx")
    book = openpyxl.load_workbook(tmp_path / "room.xlsx")
    assert book["Contracts"].cell(row=2, column=1).value == "Upjohn Agreement"
    assert book["Evidence"].cell(row=2, column=8).value == "governed by the laws of New York"
    write_docx([dirty], tmp_path / "room.docx")
    text = "\n".join(p.text for p in docx.Document(str(tmp_path / "room.docx")).paragraphs)
    assert "Upjohn Agreement" in text and "\ufffe" not in text
    assert dirty.items[0].evidence[0].text.endswith("New\ufffe York")  # the review itself is unchanged


def test_a_data_room_memo_reads_as_a_memo(tmp_path: Path) -> None:
    """The walk of 2026-12-06 (finding 13): a 40-contract memo was 552 pages, five of file names and
    hashes before the summary, the contract column a fifth of the page, 400-character quotes under
    every item, the "probably absent" ones' closest candidate included."""
    import docx

    from summarizer.review.memo_docx import ROOM_QUOTE_CHARS, write_docx

    long_clause = "Change of control. " + "Upon a change of control of either party the other may terminate. " * 12
    with Library.open(tmp_path / "library.sqlite") as lib:
        ids = [
            add_document(lib, [*PAGES[:2], long_clause], title=f"Contract {n}", words_per_passage=200) for n in range(8)
        ]
        reviews = review_evidence_stored(lib, ids, CHECKLIST)
    write_docx(reviews, tmp_path / "room.docx")
    memo = docx.Document(str(tmp_path / "room.docx"))
    body = memo.element.body
    first_table = body.index(memo.tables[0]._tbl)
    before = [p.text for p in memo.paragraphs if body.index(p._p) < first_table]
    assert not any("sha256" in text for text in before)
    assert any(reviews[0].content_sha256 in p.text for p in memo.paragraphs)  # in the appendix
    widths = [cell.width for cell in memo.tables[0].rows[1].cells]
    assert widths[0] > 1.5 * max(widths[1:])  # the contract's name has room (a fifth of the page before)
    quotes = [p.text for p in memo.paragraphs if p.text.startswith("“")]
    assert quotes and max(len(q) for q in quotes) <= ROOM_QUOTE_CHARS + 20

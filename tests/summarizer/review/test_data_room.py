"""A review of many contracts (issue 46): the table's filter and sort keys, an evidence-only run
that stores each contract as it is done and continues after a stop, and the exports for many
contracts (the XLSX workbook, the DOCX memo's summary table)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from inference.cancel import Cancelled, CancelToken
from summarizer.library.storage.store import Library
from summarizer.review.checklist import Checklist, ChecklistItem
from summarizer.review.contract_table import (
    ABSENT,
    FOUND,
    NOT_REVIEWED,
    TableFilterError,
    cell_state,
    parse_filter,
    row_matches,
    table_columns,
    table_row,
)
from summarizer.review.evidence import DocumentReview, Evidence, ItemDone, ItemResult
from summarizer.review.evidence_batch import review_evidence_stored
from tests.summarizer.doc_factory import add_document

ITEMS = (
    ChecklistItem("law", "Governing Law", "Which law governs?", ("governed by the laws of",), "jurisdiction"),
    ChecklistItem("coc", "Change of Control", "Change of control?", ("change of control",), "yes_no"),
)
CHECKLIST = Checklist("two", "v1", ITEMS)
COLUMNS = table_columns(ITEMS, folders=True)


def result(item: ChecklistItem, status: str, passage: str = "", value: str | None = None) -> ItemResult:
    evidence = [Evidence(1, 4, 4, passage)] if passage else []
    return ItemResult(item.id, item.category, item.question, item.type, status, evidence, 1, value=value)


NEW_YORK = result(ITEMS[0], "evidence", "This Agreement shall be governed by the laws of the State of New York.")
TEXAS = result(ITEMS[0], "evidence", "governed by the laws of the State of Texas")
COC = result(ITEMS[1], "evidence", "Upon a change of control of either party ...")
NO_COC = result(ITEMS[1], "absent", "closest candidate passage")


@pytest.mark.parametrize(
    ("text", "new_york_with_coc", "texas_without_coc"),
    [
        ("has Change of Control", True, False),
        ("no change of control", False, True),
        ("probably absent", False, True),  # a phrase in any cell: the absent cell's label
        ("Governing Law = New York", True, False),  # searched in the best passage, not only "p. 4"
        ("governing: texas", False, True),  # a column by its beginning, ":" as "="
        ("law != new york", False, True),  # an item's id names its column too
        ("has change of control; governing law = texas", False, False),
        ("folder = tx", False, True),
        ("acme", True, True),
        ("", True, True),
    ],
)
def test_the_table_filter(text: str, new_york_with_coc: bool, texas_without_coc: bool) -> None:
    conditions = parse_filter(text, COLUMNS)
    ny = table_row_for(NEW_YORK, COC, folder="ny/")
    tx = table_row_for(TEXAS, NO_COC, folder="tx/")
    assert row_matches(ny, conditions, COLUMNS) is new_york_with_coc
    assert row_matches(tx, conditions, COLUMNS) is texas_without_coc


def table_row_for(law: ItemResult, coc: ItemResult, folder: str) -> object:
    from summarizer.review.export import absent_label

    review = DocumentReview("d1", "Acme Supply", "sha", "two", "v1", (law, coc))
    shown = [absent_label(i) if i.status == "absent" else "p. 4" for i in (law, coc)]
    return table_row(review, "Acme Supply", folder, shown, COLUMNS)


def test_a_filter_naming_no_column_says_what_to_type() -> None:
    with pytest.raises(TableFilterError, match="No column is called “Warranty”"):
        parse_filter("has Warranty", COLUMNS)


def test_cell_states() -> None:
    assert (cell_state(NEW_YORK), cell_state(NO_COC), cell_state(None)) == (FOUND, ABSENT, NOT_REVIEWED)


PAGES = [
    "SUPPLY AGREEMENT between Acme Corp and Beta LLC. The term of this agreement is five years.",
    "Governing law. This agreement shall be governed by the laws of the State of New York.",
    "Change of control. Upon a change of control of either party the other may terminate.",
]


@pytest.fixture
def room(tmp_path: Path) -> Iterator[tuple[Library, list[str]]]:
    with Library.open(tmp_path / "library.sqlite") as lib:
        ids = [add_document(lib, PAGES, title=f"Contract {n}", words_per_passage=12) for n in range(3)]
        yield lib, ids


def test_an_evidence_run_stores_each_contract_and_continues_after_a_stop(room: tuple[Library, list[str]]) -> None:
    lib, ids = room
    token = CancelToken()
    finished: list[str] = []

    def stop_after_the_first(review: DocumentReview) -> None:
        finished.append(review.doc_id)
        token.cancel()

    with pytest.raises(Cancelled):
        review_evidence_stored(lib, ids, CHECKLIST, cancel=token, on_review=stop_after_the_first)
    assert finished == ids[:1]

    found: list[ItemDone] = []
    done: list[int] = []
    reviews = review_evidence_stored(lib, ids, CHECKLIST, lambda p: done.append(p.done), on_item=found.append)
    assert [r.doc_id for r in reviews] == ids
    assert {f.doc_id for f in found} == set(ids[1:])  # the first contract was read back, not searched again
    assert all(item.cached for item in reviews[0].items) and not any(i.cached for i in reviews[1].items)
    assert done[0] == len(ITEMS) and done[-1] == len(ids) * len(ITEMS)  # the stored one counts as done
    assert reviews[1].items[0].evidence[0].page_start == 2


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
    passage = evidence.cell(row=2, column=7)
    assert "governed by the laws of" in passage.value and passage.alignment.wrap_text

    write_docx(reviews, tmp_path / "room.docx")
    memo = docx.Document(str(tmp_path / "room.docx"))
    summary = memo.tables[0]  # one row per contract, not a column per contract
    assert len(memo.tables) == 1 and tuple(c.text for c in summary.rows[0].cells) == SUMMARY_TITLES
    assert [r.cells[0].text for r in summary.rows[1:]] == [f"Contract {n}" for n in range(8)]
    assert summary.rows[1].cells[1].text == "2 of 2"
    headings = [p.text for p in memo.paragraphs if p.style.name == "Heading 2"]
    assert headings == [f"Contract {n}" for n in range(8)]  # then one section per contract

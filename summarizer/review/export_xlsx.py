"""A review as an Excel workbook (openpyxl): what a diligence team opens and filters.

Three sheets:

- **Contracts**: one row per contract, one column per checklist item (the window's table of
  contracts), each cell the value or where the clause is, shaded by its flag as the grid is; the
  header row and the title column stay in place while scrolling, and the header has Excel's
  filter buttons.
  A cell whose verdict no model gave (an evidence-only review: a passage found by search, or
  "probably absent") ends in "[evidence]" (issue 57).
- **Evidence**: one row per contract and item (the CSV's rows), with the best passage wrapped in
  its cell, frozen header and filters; its Source column says model, evidence or reviewer.
- **About**: the provenance (checklist and version, model, side, when) and the notice that the
  entries are machine-generated.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from summarizer.review.contract_table import cell_kind
from summarizer.review.evidence import DocumentReview
from summarizer.review.export import (
    CANDIDATE_NOTE,
    CONFIDENTIAL,
    NOTICE,
    flag_word,
    generated_at,
    has_candidates,
    marked_cell,
    page_label,
    quote_snippet,
    side_of,
    status_word,
    xml_safe,
)
from summarizer.review.memo_docx import FLAG_COLOURS

EVIDENCE_CHARS = 1000  # of the best passage in the Evidence sheet (as the CSV)
TITLE_WIDTH, ITEM_WIDTH, PASSAGE_WIDTH = 36, 18, 90  # in Excel's character widths


def _header(sheet: Any, titles: Sequence[str]) -> None:
    from openpyxl.styles import Alignment, Font

    sheet.append(list(titles))
    for cell in sheet[1]:
        cell.font = Font(bold=True)
        cell.alignment = Alignment(wrap_text=True, vertical="top")


def _contracts_sheet(sheet: Any, reviews: Sequence[DocumentReview]) -> None:
    from openpyxl.styles import Alignment, PatternFill
    from openpyxl.utils import get_column_letter

    items = reviews[0].items if reviews else ()
    _header(sheet, ["Contract", "File", *(item.category for item in items)])
    wrap = Alignment(wrap_text=True, vertical="top")
    for review in reviews:
        row = [review.title, review.file_name or review.doc_id]
        for item in review.items:
            flag = flag_word(item)
            row.append(marked_cell(item) + (f" [{flag}]" if flag else ""))
        sheet.append(row)
        for column, item in enumerate(review.items, start=3):
            cell = sheet.cell(row=sheet.max_row, column=column)
            cell.alignment = wrap
            if (colour := FLAG_COLOURS.get(flag_word(item))) is not None:
                cell.fill = PatternFill("solid", fgColor=colour)
    sheet.column_dimensions["A"].width = TITLE_WIDTH
    sheet.column_dimensions["B"].width = ITEM_WIDTH
    for column in range(3, 3 + len(items)):
        sheet.column_dimensions[get_column_letter(column)].width = ITEM_WIDTH
    sheet.freeze_panes = "B2"  # the header row and the contract's title stay in view
    sheet.auto_filter.ref = sheet.dimensions


def _evidence_sheet(sheet: Any, reviews: Sequence[DocumentReview]) -> None:
    from openpyxl.styles import Alignment

    titles = ["Contract", "Item", "Status", "Source", "Value", "Flag", "Pages", "Evidence", "Reviewer's note"]
    _header(sheet, titles)
    wrap = Alignment(wrap_text=True, vertical="top")
    for review in reviews:
        for item in review.items:
            best = item.evidence[0] if item.evidence else None
            sheet.append(
                [
                    review.title,
                    item.category,
                    status_word(item),
                    cell_kind(item),
                    item.shown_value or "",
                    flag_word(item),
                    page_label(item),
                    quote_snippet(best.quoted, EVIDENCE_CHARS) if best else "",
                    item.correction.note if item.correction else "",
                ]
            )
            for cell in sheet[sheet.max_row]:
                cell.alignment = wrap
    for letter, width in zip("ABCDEFGHI", (TITLE_WIDTH, 24, 14, 10, 24, 11, 10, PASSAGE_WIDTH, 30), strict=True):
        sheet.column_dimensions[letter].width = width
    sheet.freeze_panes = "A2"
    sheet.auto_filter.ref = sheet.dimensions


def write_xlsx(
    reviews: Sequence[DocumentReview], path: Path, *, model: str = "", generated: dt.datetime | None = None
) -> None:
    """Write the workbook to ``path`` (``model``: the model's file name, empty for evidence-only)."""
    from openpyxl import Workbook

    reviews = xml_safe(reviews)
    book = Workbook()
    contracts = book.active
    contracts.title = "Contracts"
    _contracts_sheet(contracts, reviews)
    _evidence_sheet(book.create_sheet("Evidence"), reviews)
    about = book.create_sheet("About")
    first = reviews[0] if reviews else None
    for line in (
        CONFIDENTIAL,
        f"Contract review — {first.checklist if first else ''} checklist, version "
        f"{first.checklist_version if first else ''}",
        f"{len(reviews)} contracts",
        f"Reviewed for: {side_of(reviews) or 'no side given'}",
        f"Model: {model or 'none (evidence only)'}",
        "Cells marked [evidence] were found by search without a model (a passage, or probably absent): no model "
        "read the contract for them. The others are the model's answers (found, or not found after reading the "
        "whole contract) or the reviewer's corrections.",
        f"Generated {generated_at(generated)}",
        NOTICE,
        *([CANDIDATE_NOTE] if has_candidates(reviews) else []),
    ):
        about.append([line])
    about.column_dimensions["A"].width = 100
    book.save(str(path))

"""A review as a Word memo (python-docx): the grid, each answer's quote and pages, flags
highlighted, and where it came from, under a confidentiality header. A cell the reviewer
corrected shows the reviewer's value; the model's stays in the item's details with the note."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from summarizer.review.contract_table import ABSENT, CANDIDATE, FOUND, NOT_FOUND, cell_state
from summarizer.review.evidence import DocumentReview, ItemResult
from summarizer.review.export import (
    CANDIDATE_NOTE,
    CONFIDENTIAL,
    NOTICE,
    QUOTE_CHARS,
    UNVERIFIED_REASON,
    count_unverified,
    detail_line,
    flag_word,
    generated_at,
    has_candidates,
    page_label,
    plain_cell,
    quote_snippet,
    reviewer_line,
    side_of,
    xml_safe,
)

# Excel's good/bad/neutral; unverified: grey, not a playbook colour (nothing supports the value)
FLAG_COLOURS = {"match": "C6EFCE", "deviation": "FFC7CE", "missing": "FFEB9C", "unverified": "D9D9D9"}


def _cell_text(item: ItemResult) -> str:
    return plain_cell(item)


def _shade(cell: object, colour: str) -> None:
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    properties = cell._tc.get_or_add_tcPr()  # type: ignore[attr-defined]
    shading = OxmlElement("w:shd")
    shading.set(qn("w:val"), "clear")
    shading.set(qn("w:color"), "auto")
    shading.set(qn("w:fill"), colour)
    properties.append(shading)


def _repeat_as_header(row: object) -> None:
    """Word repeats this table row at the top of every page the table runs onto."""
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    properties = row._tr.get_or_add_trPr()  # type: ignore[attr-defined]
    header = OxmlElement("w:tblHeader")
    header.set(qn("w:val"), "true")
    properties.append(header)


def _keep_whole(row: object) -> None:
    """Word never splits this table row across two pages (walk 2026-12-05: "Competitive
    Restriction" on one page, "Exception" on the next)."""
    from docx.oxml import OxmlElement

    row._tr.get_or_add_trPr().append(OxmlElement("w:cantSplit"))  # type: ignore[attr-defined]


GRID_FONT_PT = 9
ITEM_COLUMN_IN = 1.9
"""The item names' column: wide enough for the longest word of a CUAD category ("Non-Disparagement")
at ``GRID_FONT_PT``, which Word broke as "Disparageme-nt" in a narrower one."""
LANDSCAPE_FROM = 4  # contracts: from this many the memo's pages are landscape, for the grid's columns


def _lay_out_grid(document: object, table: object, contracts: int) -> None:
    """Fixed column widths (the item names', then the contracts' share of the rest), small type,
    rows kept whole; landscape pages for many contracts."""
    from docx.enum.section import WD_ORIENT
    from docx.shared import Inches, Pt

    section = document.sections[0]  # type: ignore[attr-defined]
    if contracts >= LANDSCAPE_FROM:
        section.orientation = WD_ORIENT.LANDSCAPE
        section.page_width, section.page_height = section.page_height, section.page_width
    text_width = section.page_width - section.left_margin - section.right_margin
    item_width = Inches(ITEM_COLUMN_IN)
    widths = [item_width] + [int((text_width - item_width) / max(1, contracts))] * contracts
    table.autofit = False  # type: ignore[attr-defined]
    for column, width in zip(table.columns, widths, strict=True):  # type: ignore[attr-defined]
        column.width = width
        for cell in column.cells:
            cell.width = width
    for row in table.rows:  # type: ignore[attr-defined]
        _keep_whole(row)
        for cell in row.cells:
            for paragraph in cell.paragraphs:
                for run in paragraph.runs:
                    run.font.size = Pt(GRID_FONT_PT)


def _grid(document: Any, reviews: Sequence[DocumentReview]) -> None:
    """Items as rows, contracts as columns: for a few contracts, side by side."""
    items = reviews[0].items if reviews else ()
    table = document.add_table(rows=1 + len(items), cols=1 + len(reviews))
    table.style = "Table Grid"
    _repeat_as_header(table.rows[0])
    table.rows[0].cells[0].text = "Item"
    for column, r in enumerate(reviews, start=1):
        table.rows[0].cells[column].text = r.title
    for row, item in enumerate(items, start=1):
        table.rows[row].cells[0].text = item.category
        for column, r in enumerate(reviews, start=1):
            result = r.items[row - 1]
            cell = table.rows[row].cells[column]
            flag = flag_word(result)
            cell.text = _cell_text(result) + (f" [{flag}]" if flag else "")
            if flag in FLAG_COLOURS:
                _shade(cell, FLAG_COLOURS[flag])
    _lay_out_grid(document, table, len(reviews))


GRID_CONTRACTS_MAX = 6
"""Up to this many contracts the memo has the grid (items x contracts); more get the summary
table, one row per contract, then a section per contract as always: a grid of 449 columns is
unreadable, and a memo per contract would be 449 files."""
SUMMARY_TITLES = ("Contract", "Clauses", "Probably absent", "Deviations", "Unverified")
SUMMARY_WIDTHS_IN = (1.8, 0.9, 1.6, 0.95)
"""The summary table's columns after the contract's, which has the rest of the landscape page:
CUAD's long file-like titles broke mid-word in a column of a fifth of the page ("VALENCETECH /
NOLOGYINC_0")."""
ROOM_QUOTE_CHARS = 240
"""Of the best passage quoted under each item of a data room's memo: enough to recognise the clause
(its page is given to read it whole); 800 made a 40-contract memo 552 pages."""


def summary_counts(review: DocumentReview) -> tuple[str, str, str, str]:
    """A contract's summary row after its title: the clauses found by the model or the reviewer
    and, evidence only, the candidate passages (of all items; a candidate is not a clause found,
    issue 56 item 3), probably absent or not found, the deviating items by name, and how many
    values are unverified."""
    found = sum(cell_state(item) == FOUND for item in review.items)
    candidates = sum(cell_state(item) == CANDIDATE for item in review.items)
    missing = sum(cell_state(item) in (ABSENT, NOT_FOUND) for item in review.items)
    deviations = ", ".join(item.category for item in review.items if flag_word(item) == "deviation")
    unverified = count_unverified(review)
    total = len(review.items)
    parts = [f"{found} of {total} found"] if found or not candidates else []
    if candidates:
        parts.append(f"{candidates} {'candidate' if candidates == 1 else 'candidates'} of {total} (not checked)")
    return "; ".join(parts), str(missing), deviations or "—", str(unverified) if unverified else "—"


def _summary_table(document: Any, reviews: Sequence[DocumentReview]) -> None:
    """One row per contract: readable for hundreds (the sections below hold each one's items)."""
    from docx.enum.section import WD_ORIENT
    from docx.shared import Inches, Pt

    document.add_paragraph(
        f"{len(reviews)} contracts: one row each below, then one section per contract with every item's "
        "evidence. The spreadsheet export (XLSX) has every item as a column to sort and filter."
    )
    table = document.add_table(rows=1 + len(reviews), cols=len(SUMMARY_TITLES))
    table.style = "Table Grid"
    _repeat_as_header(table.rows[0])
    for column, title in enumerate(SUMMARY_TITLES):
        table.rows[0].cells[column].text = title
    for row, review in enumerate(reviews, start=1):
        for column, text in enumerate((review.title, *summary_counts(review))):
            table.rows[row].cells[column].text = text
    section = document.sections[0]
    section.orientation = WD_ORIENT.LANDSCAPE
    section.page_width, section.page_height = section.page_height, section.page_width
    rest = [Inches(w) for w in SUMMARY_WIDTHS_IN]
    text_width = section.page_width - section.left_margin - section.right_margin
    table.autofit = False
    for column, width in zip(table.columns, [text_width - sum(rest), *rest], strict=True):
        column.width = width
        for cell in column.cells:
            cell.width = width
    for row in table.rows:
        _keep_whole(row)
        for cell in row.cells:
            for paragraph in cell.paragraphs:
                for run in paragraph.runs:
                    run.font.size = Pt(GRID_FONT_PT)


def write_docx(
    reviews: Sequence[DocumentReview],
    path: Path,
    *,
    model: str = "",
    generated: dt.datetime | None = None,
) -> None:
    """Write the memo to ``path`` (``model``: the model's file name, empty for evidence-only)."""
    from docx import Document
    from docx.shared import Pt

    reviews = xml_safe(reviews)
    document = Document()
    header = document.sections[0].header.paragraphs[0]
    header.text = CONFIDENTIAL
    document.add_heading(f"Contract review — {reviews[0].checklist if reviews else ''} checklist", level=1)
    when = generated_at(generated)
    room = len(reviews) > GRID_CONTRACTS_MAX  # a data room: summary first, the files in an appendix
    provenance = document.add_paragraph()
    if room:
        provenance.add_run(f"{len(reviews)} contracts; their files and SHA-256 are in the appendix. ")
    else:
        for r in reviews:
            provenance.add_run(f"{r.title} ({r.file_name or r.doc_id}), sha256 {r.content_sha256}\n")
    if reviews:
        provenance.add_run(f"Checklist {reviews[0].checklist}, version {reviews[0].checklist_version}. ")
    if side := side_of(reviews):
        provenance.add_run(f"Reviewed for: {side}. ")
    provenance.add_run(f"Model: {model or 'none (evidence only)'}. Generated {when}.\n")
    provenance.add_run(NOTICE).bold = True
    if has_candidates(reviews):
        document.add_paragraph(CANDIDATE_NOTE)
    if unverified := sum(count_unverified(r) for r in reviews):
        warning = f"{unverified} unverified (grey in the grid): {UNVERIFIED_REASON}."
        document.add_paragraph().add_run(warning).bold = True

    if room:
        _summary_table(document, reviews)
    else:
        _grid(document, reviews)

    quote_chars = ROOM_QUOTE_CHARS if room else QUOTE_CHARS
    for r in reviews:
        document.add_heading(r.title, level=2)
        for result in r.items:
            paragraph = document.add_paragraph(style="List Bullet")
            paragraph.add_run(f"{result.category}: ").bold = True
            paragraph.add_run(_cell_text(result))
            if detail := detail_line(result):
                paragraph.add_run(f" — {detail}").italic = True
            support = result.quote or (quote_snippet(result.evidence[0].quoted, quote_chars) if result.evidence else "")
            if room and result.status == "absent" and not result.corrected:
                support = ""  # only the closest candidate's words: its page is in the line above
            if support:
                quote = document.add_paragraph(f"“{support}” ({page_label(result) or 'no page'})")
                quote.paragraph_format.left_indent = Pt(18)
            if result.correction is not None:
                reviewer = document.add_paragraph()
                reviewer.add_run(f"Reviewer: {reviewer_line(result)}").italic = True
                reviewer.paragraph_format.left_indent = Pt(18)
    if room:
        _files_appendix(document, reviews)
    document.save(str(path))


def _files_appendix(document: Any, reviews: Sequence[DocumentReview]) -> None:
    """The files reviewed, with their SHA-256, after the memo (before it they were its first five
    pages at 40 contracts: the walk of 2026-12-06)."""
    from docx.shared import Pt

    document.add_heading("Appendix: the files reviewed", level=2)
    for r in reviews:
        line = document.add_paragraph(f"{r.title} — {r.file_name or r.doc_id} — sha256 {r.content_sha256}")
        for run in line.runs:
            run.font.size = Pt(GRID_FONT_PT)

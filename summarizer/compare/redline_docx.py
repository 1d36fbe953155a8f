"""A comparison as a Word redline: the new version's clauses in order, each difference from the old
version written as a native tracked change (``w:ins``/``w:del`` by the author "Pagewise"), so
Word and LibreOffice show it as an insertion or a deletion that can be accepted or rejected.

Accepting every change gives the new version's text, rejecting every change the old version's,
clause by clause in each version's order: a moved clause is a deletion where it was and an
insertion where it is; a renumbered clause's number is a deleted number and an inserted one; a
changed clause carries its word diff with the spacing of each version. A table of the material
changes, each with the rule that marked it, comes first.

The redline is built from the clauses Pagewise read (their text with runs of whitespace made one
space), not from either file's formatting: it is a document to read and send, not the Word file
with its styles.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from summarizer.compare.alignment import word_opcodes
from summarizer.compare.comparison import VERSIONS, Comparison
from summarizer.compare.differences import MOVED, Change
from summarizer.compare.report import KIND_WORDS, location
from summarizer.library.cutting.clause_units import ClauseUnit

AUTHOR = "Pagewise"
EQUAL, DELETE, INSERT = "equal", "delete", "insert"
TABLE_COLUMNS_IN = (1.6, 0.9, 1.4, 2.6)  # clause, change, why, what changed: the words get the room
SUMMARY_CHARS = 160  # of a change's words in the material changes' table
INDENT_PT = 14  # per heading level below an article
_WORD = re.compile(r"\w+|[^\w\s]")  # summarizer.compare.alignment.words' tokens
_NOT_XML = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")  # characters XML 1.0 cannot hold


@dataclass(frozen=True, slots=True)
class Segment:
    """A stretch of a paragraph: as it is in both versions (``equal``), or deleted or inserted."""

    op: str
    text: str


def text_segments(old_text: str, new_text: str) -> list[Segment]:
    """The word diff of two texts as stretches of the texts themselves (their spacing kept), so
    that the equal and inserted stretches make ``new_text`` and the equal and deleted ones make
    ``old_text`` (but for the spacing between equal words)."""
    old_starts = [m.start() for m in _WORD.finditer(old_text)]
    new_starts = [m.start() for m in _WORD.finditer(new_text)]

    def old_cut(i: int) -> int:
        return 0 if i == 0 else old_starts[i] if i < len(old_starts) else len(old_text)

    def new_cut(j: int) -> int:
        return 0 if j == 0 else new_starts[j] if j < len(new_starts) else len(new_text)

    a = _WORD.findall(old_text)
    b = _WORD.findall(new_text)
    segments: list[Segment] = []
    for op, i1, i2, j1, j2 in word_opcodes(a, b):
        if op == EQUAL:
            segments.append(Segment(EQUAL, new_text[new_cut(j1) : new_cut(j2)]))
            continue
        if i2 > i1:
            segments.append(Segment(DELETE, old_text[old_cut(i1) : old_cut(i2)]))
        if j2 > j1:
            segments.append(Segment(INSERT, new_text[new_cut(j1) : new_cut(j2)]))
    if not a and not b:  # no words at all: the texts as they are
        segments = [Segment(EQUAL, new_text)] if old_text == new_text else []
        if old_text != new_text:
            segments = [s for s in (Segment(DELETE, old_text), Segment(INSERT, new_text)) if s.text]
    return [s for s in segments if s.text]


@dataclass(slots=True)
class _Row:
    """One paragraph of the redline."""

    segments: list[Segment]
    mark: str  # EQUAL, or INSERT/DELETE: the whole paragraph was added/removed (its mark too)
    clause: ClauseUnit
    old_in_place: int | None  # the old clause's index where this row stands for it in the old order


def _label_segments(old: ClauseUnit, new: ClauseUnit) -> list[Segment]:
    if old.label == new.label:
        return [Segment(EQUAL, f"{new.label} ")] if new.label else []
    segments = []
    if old.label:
        segments.append(Segment(DELETE, f"{old.label} "))
    if new.label:
        segments.append(Segment(INSERT, f"{new.label} "))
    return segments


def _paired_segments(old: ClauseUnit, new: ClauseUnit, change: Change | None) -> list[Segment]:
    if change is None or change.hidden:  # the same text (or formatting only, hidden)
        return [*_label_segments(old, new), Segment(EQUAL, new.body)]
    return [*_label_segments(old, new), *text_segments(old.body, new.body)]


def redline_rows(comparison: Comparison) -> list[_Row]:
    """The redline's paragraphs: the new version's order, each old-only paragraph (removed, or a
    moved clause where it was) placed after the paragraph that follows its old predecessor."""
    by_new = {c.new.index: c for c in comparison.changes if c.new is not None and c.old is not None}
    moved = {i for i, c in by_new.items() if c.kind == MOVED or c.moved}
    rows: list[_Row] = []
    old_only: list[ClauseUnit] = []
    for pair in comparison.pairs:
        if pair.new is None:
            if pair.old is not None:
                old_only.append(pair.old)
            continue
        if pair.old is None:
            rows.append(_Row([Segment(INSERT, pair.new.text)], INSERT, pair.new, None))
        elif pair.new.index in moved:
            rows.append(_Row([Segment(INSERT, pair.new.text)], INSERT, pair.new, None))
            old_only.append(pair.old)
        else:
            segments = _paired_segments(pair.old, pair.new, by_new.get(pair.new.index))
            rows.append(_Row(segments, EQUAL, pair.new, pair.old.index))
    for clause in sorted(old_only, key=lambda c: c.index):
        at = 0
        for position in range(len(rows) - 1, -1, -1):
            held = rows[position].old_in_place
            if held is not None and held < clause.index:
                at = position + 1
                break
        rows.insert(at, _Row([Segment(DELETE, clause.text)], DELETE, clause, clause.index))
    return rows


def accepted_text(rows: Sequence[_Row]) -> list[str]:
    """Each paragraph as it reads with every change accepted (paragraphs deleted left out)."""
    return ["".join(s.text for s in row.segments if s.op != DELETE) for row in rows if row.mark != DELETE]


def rejected_text(rows: Sequence[_Row]) -> list[str]:
    """Each paragraph as it reads with every change rejected (paragraphs inserted left out)."""
    return ["".join(s.text for s in row.segments if s.op != INSERT) for row in rows if row.mark != INSERT]


# --- writing the .docx ---------------------------------------------------------------------


class _Revisions:
    """Numbers and stamps the tracked changes (``w:id`` must be unique in the document)."""

    def __init__(self, when: dt.datetime) -> None:
        self.date = when.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        self._ids: Iterator[int] = iter(range(1, 10**9))

    def element(self, tag: str) -> Any:
        from docx.oxml import OxmlElement
        from docx.oxml.ns import qn

        element = OxmlElement(tag)
        element.set(qn("w:id"), str(next(self._ids)))
        element.set(qn("w:author"), AUTHOR)
        element.set(qn("w:date"), self.date)
        return element


def _xml_text(text: str) -> str:
    return _NOT_XML.sub("", text)


def _run(text: str, *, deleted: bool, bold: bool) -> Any:
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    run = OxmlElement("w:r")
    if bold:
        properties = OxmlElement("w:rPr")
        properties.append(OxmlElement("w:b"))
        run.append(properties)
    holder = OxmlElement("w:delText" if deleted else "w:t")
    holder.set(qn("xml:space"), "preserve")
    holder.text = _xml_text(text)
    run.append(holder)
    return run


def _is_article_heading(clause: ClauseUnit) -> bool:
    return len(clause.path) == 1 and len(clause.content.split()) <= 8


def _write_row(document: Any, row: _Row, revisions: _Revisions) -> None:
    from docx.oxml import OxmlElement
    from docx.shared import Pt

    paragraph = document.add_paragraph()
    depth = max(0, len(row.clause.path) - 2)
    if depth:
        paragraph.paragraph_format.left_indent = Pt(INDENT_PT * depth)
    bold = _is_article_heading(row.clause)
    if row.mark != EQUAL:  # the paragraph mark itself was inserted or deleted
        properties = paragraph._p.get_or_add_pPr()
        mark_properties = OxmlElement("w:rPr")
        mark_properties.append(revisions.element("w:ins" if row.mark == INSERT else "w:del"))
        properties.append(mark_properties)
    for segment in row.segments:
        run = _run(segment.text, deleted=segment.op == DELETE, bold=bold)
        if segment.op == EQUAL:
            paragraph._p.append(run)
            continue
        tracked = revisions.element("w:ins" if segment.op == INSERT else "w:del")
        tracked.append(run)
        paragraph._p.append(tracked)


def change_summary(change: Change) -> str:
    """The change's words in a line: "thirty → sixty; 30 → 60", or the clause's start."""
    if change.edits and change.old is not None and change.new is not None:
        # From the texts themselves, so "https://example.com" keeps its spacing.
        parts: list[str] = []
        segments = text_segments(change.old.body, change.new.body)
        for k, segment in enumerate(segments):
            if segment.op == DELETE:
                following = segments[k + 1] if k + 1 < len(segments) else None
                inserted = following.text if following is not None and following.op == INSERT else ""
                parts.append(f"{segment.text.strip()} → {inserted.strip() or '—'}")
            elif segment.op == INSERT and not (k and segments[k - 1].op == DELETE):
                parts.append(f"— → {segment.text.strip()}")
        text = "; ".join(parts)
    elif change.new is not None and change.old is None:
        text = f"Added: {change.new.text}"
    elif change.old is not None and change.new is None:
        text = f"Removed: {change.old.text}"
    else:
        text = "The same text, elsewhere."
    return text if len(text) <= SUMMARY_CHARS else text[: SUMMARY_CHARS - 1].rstrip() + "…"


def _material_table(document: Any, changes: Sequence[Change], units: tuple[str, str]) -> None:
    from docx.shared import Inches

    material = [c for c in changes if c.material and not c.hidden]
    document.add_heading("Material changes", level=2)
    if not material:
        document.add_paragraph("No change was marked material.")
        return
    table = document.add_table(rows=1 + len(material), cols=4)
    table.style = "Table Grid"
    for column, title in enumerate(("Clause (old → new)", "Change", "Why it matters", "What changed")):
        table.rows[0].cells[column].text = title
        for run in table.rows[0].cells[column].paragraphs[0].runs:
            run.bold = True
    table.autofit = False
    for column, width in zip(table.columns, TABLE_COLUMNS_IN, strict=True):
        column.width = Inches(width)  # LibreOffice reads the grid's widths, Word the cells'
        for cell in column.cells:
            cell.width = Inches(width)
    for row, change in enumerate(material, start=1):
        cells = table.rows[row].cells
        cells[0].text = f"{location(change.old, units[0])} → {location(change.new, units[1])}"
        kind = KIND_WORDS.get(change.kind, change.kind) + (" (also moved)" if change.moved else "")
        cells[1].text = kind + (f" ({change.note})" if change.note else "")
        cells[2].text = _xml_text("; ".join(change.reasons))
        cells[3].text = _xml_text(change_summary(change))


def write_redline(
    comparison: Comparison,
    path: Path,
    old_title: str,
    new_title: str,
    *,
    units: tuple[str, str] = ("p.", "p."),
    notes: Sequence[str] = (),
    when: dt.datetime | None = None,
    extra_sections: Sequence[Any] = (),
) -> None:
    """Write the redline of ``comparison`` to ``path``. ``notes``: lines said under the title
    after the comparison's own (tracked changes read as accepted, pages hard to read);
    ``extra_sections``: callables given the python-docx document, each adding a section after the
    material changes (the checklist)."""
    from docx import Document

    when = when or dt.datetime.now(dt.UTC)
    document = Document()
    document.add_heading(_xml_text(f"Redline: {old_title} → {new_title}"), level=1)
    intro = document.add_paragraph()
    intro.add_run(comparison.message + " ")
    intro.add_run(
        f"Made by Pagewise on {when.astimezone(dt.UTC):%Y-%m-%d %H:%M} UTC by aligning the two versions clause by "
        f'clause; no model was used. Each difference is a tracked change by "{AUTHOR}": accept or reject '
        "it in Word (Review › Accept) or LibreOffice (Edit › Track Changes › Manage). A moved clause is a "
        "deletion where it was and an insertion where it is; a renumbered clause's old number is deleted and "
        "its new one inserted. Formatting-only differences are not shown."
    )
    for note in [*comparison.notes, *notes]:
        document.add_paragraph().add_run(_xml_text(note)).bold = True
    if comparison.verdict != VERSIONS:
        document.save(str(path))
        return
    _material_table(document, comparison.changes, units)
    for add_section in extra_sections:
        add_section(document)
    document.add_heading("Redline", level=2)
    revisions = _Revisions(when)
    for row in redline_rows(comparison):
        _write_row(document, row, revisions)
    document.save(str(path))

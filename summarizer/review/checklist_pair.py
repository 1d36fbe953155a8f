"""The checklist side by side: each item's value and evidence in both versions, and the items
whose clause changed flagged ("Cap on Liability: changed in 9.2, $1,000,000 → 12 months' fees").

Each version's answers are the review's stored ones (``summarizer.review.item_answers.shown_review``:
the model's answers, else the stored evidence-only run); where nothing is stored the evidence is
found now (no model) and stored, as ``pagewise review`` stores it.

An item is flagged when a clause the comparison reports as changed (added, removed, moved,
changed, split, merged) holds the item's support in either version: the model's quote where the
item was answered, else the item's best evidence passage. A passage packs several whole clauses,
so an evidence-only item can be flagged for a changed clause beside its own in that passage; a
model's quote pins the clause.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from inference.cancel import CancelToken
from inference.progress import ProgressCallback, no_progress
from summarizer.compare.alignment import formatting_key
from summarizer.compare.comparison import Comparison
from summarizer.compare.differences import FORMATTING, RENUMBERED, Change
from summarizer.library.cutting.clause_units import ClauseUnit
from summarizer.library.storage.store import Library
from summarizer.review.checklist import Checklist
from summarizer.review.evidence import DocumentReview, ItemResult
from summarizer.review.export import page_label, quote_snippet, status_word

NOT_A_CHANGE = frozenset({RENUMBERED, FORMATTING})
SNIPPET_CHARS = 300
DETAIL_CHARS = 100  # of the words changed, after "changed in 9.2 …, "
PROBE_CHARS = 120  # of a clause's (or a quote's) text looked for inside the other


@dataclass(frozen=True, slots=True)
class ItemSide:
    """One version's answer to an item."""

    status: str  # the review's: answered, evidence, absent, not_found, ...
    value: str | None  # the model's (or the reviewer's) value; None for evidence only
    where: str  # the best evidence's pages ("p. 4", or a Word locator)
    evidence: str  # the model's quote, else the best evidence passage, shortened

    @property
    def shown(self) -> str:
        """The cell as a reader sees it: the value, else the status with the page."""
        head = self.value or status_word_of(self.status)
        return f"{head} ({self.where})" if self.where else head

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "value": self.value, "where": self.where, "evidence": self.evidence}


def status_word_of(status: str) -> str:
    return status_word(ItemResult("", "", "", "", status))


@dataclass(frozen=True, slots=True)
class ChecklistRow:
    item_id: str
    category: str
    old: ItemSide
    new: ItemSide
    changes: tuple[Change, ...]  # the reported changes to the clauses holding the item's support

    @property
    def changed(self) -> bool:
        return bool(self.changes)

    @property
    def line(self) -> str:
        """ "Cap on Liability: changed in 9.2 Caps, $1,000,000 → 12 months' fees", or unchanged."""
        if not self.changes:
            return f"{self.category}: unchanged"
        labels = ", ".join(dict.fromkeys(_label(c) for c in self.changes))
        if self.old.value and self.new.value and self.old.value != self.new.value:
            detail = f"{self.old.value} → {self.new.value}"
        else:
            from summarizer.compare.redline_docx import change_summary  # the redline's own words

            detail = change_summary(self.changes[0])
            if len(detail) > DETAIL_CHARS:
                detail = detail[: DETAIL_CHARS - 1].rstrip() + "…"
        return f"{self.category}: {self.changes[0].kind} in {labels}, {detail}"

    def to_json(self) -> dict[str, Any]:
        return {
            "item_id": self.item_id,
            "category": self.category,
            "old": self.old.to_json(),
            "new": self.new.to_json(),
            "changed": self.changed,
            "changed_in": [_label(c) for c in self.changes],
            "line": self.line,
        }


def _label(change: Change) -> str:
    clause = change.new or change.old
    return clause.display_label if clause is not None else ""


def item_side(result: ItemResult) -> ItemSide:
    answered = result.status == "answered" or result.corrected
    support = result.quote or (result.evidence[0].text if result.evidence else "")
    return ItemSide(
        result.status,
        result.shown_value if answered else None,
        page_label(result),
        quote_snippet(support, SNIPPET_CHARS) if support else "",
    )


def _support(result: ItemResult) -> str:
    """The text that says where the item is: the model's quote, else the best passage."""
    if result.quote:
        return result.quote
    return result.evidence[0].text if result.evidence else ""


def holds(clause: ClauseUnit, support: str) -> bool:
    """Whether ``clause`` is (part of) the text ``support``: the clause's opening words inside
    the support (a passage packs whole clauses), or the support's inside the clause (a quote)."""
    clause_key = formatting_key(clause.text)
    support_key = formatting_key(support)
    if not clause_key or not support_key:
        return False
    return clause_key[:PROBE_CHARS] in support_key or support_key[:PROBE_CHARS] in clause_key


def side_by_side(comparison: Comparison, old: DocumentReview, new: DocumentReview) -> list[ChecklistRow]:
    """One row per checklist item, in the checklist's order."""
    changes = [c for c in comparison.changes if not c.hidden and c.kind not in NOT_A_CHANGE]
    new_by_id = {item.item_id: item for item in new.items}
    rows = []
    for old_item in old.items:
        new_item = new_by_id.get(old_item.item_id)
        if new_item is None:
            continue
        old_support, new_support = _support(old_item), _support(new_item)
        touched = tuple(
            c
            for c in changes
            if (c.old is not None and old_support and holds(c.old, old_support))
            or (c.new is not None and new_support and holds(c.new, new_support))
        )
        rows.append(
            ChecklistRow(old_item.item_id, old_item.category, item_side(old_item), item_side(new_item), touched)
        )
    return rows


def pair_reviews(
    library: Library,
    doc_ids: Sequence[str],
    checklist: Checklist,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
) -> list[DocumentReview]:
    """Each document's stored review for ``checklist``; the evidence found now (and stored) for a
    document with none."""
    from summarizer.review.evidence import review_evidence
    from summarizer.review.item_answers import shown_review
    from summarizer.review.store import store_evidence

    reviews = []
    for doc_id in doc_ids:
        review = shown_review(library, doc_id, checklist)
        if review is None:
            (review,) = review_evidence(library, [doc_id], checklist, progress, cancel or CancelToken())
            store_evidence(library, checklist, [review])
        reviews.append(review)
    return reviews


def checklist_markdown(rows: Sequence[ChecklistRow], old_title: str, new_title: str) -> str:
    changed = sum(1 for r in rows if r.changed)
    lines = [
        "## Checklist side by side",
        "",
        f"{changed} of {len(rows)} items sit in a changed clause. Values are the review's stored answers "
        "(evidence only where no model answered: the page of the best passage).",
        "",
        f"| Item | {old_title} | {new_title} | Changed |",
        "|---|---|---|---|",
    ]
    for row in rows:
        mark = row.line.split(": ", 1)[1] if row.changed else ""
        cells = [row.category, row.old.shown, row.new.shown, mark]
        lines.append("| " + " | ".join(c.replace("|", "\\|").replace("\n", " ") for c in cells) + " |")
    lines.append("")
    return "\n".join(lines)


def add_checklist_section(rows: Sequence[ChecklistRow], old_title: str, new_title: str) -> Any:
    """A callable adding the side-by-side table to a python-docx document (``write_redline``'s
    ``extra_sections``)."""

    def add(document: Any) -> None:
        document.add_heading("Checklist side by side", level=2)
        changed = sum(1 for r in rows if r.changed)
        document.add_paragraph(
            f"{changed} of {len(rows)} items sit in a changed clause (marked). Values are the review's stored "
            "answers; evidence only (the page of the best passage) where no model answered."
        )
        table = document.add_table(rows=1 + len(rows), cols=4)
        table.style = "Table Grid"
        for column, title in enumerate(("Item", old_title, new_title, "Changed")):
            table.rows[0].cells[column].text = title
        for n, row in enumerate(rows, start=1):
            cells = table.rows[n].cells
            cells[0].text = row.category
            cells[1].text = row.old.shown
            cells[2].text = row.new.shown
            cells[3].text = row.line.split(": ", 1)[1] if row.changed else ""
            if row.changed:
                for run in cells[0].paragraphs[0].runs:
                    run.bold = True

    return add

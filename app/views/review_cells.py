"""What a cell of the review says, in the grid (items x contracts) and in the table of contracts
(contracts x items): its text, its tooltip and its playbook colour; and the correction panel's
line for the cell selected."""

from __future__ import annotations

from summarizer.review.absence import CHECK_CANDIDATE
from summarizer.review.contract_table import EVIDENCE, MODEL, REVIEWER, cell_kind
from summarizer.review.evidence import ItemResult
from summarizer.review.export import (
    UNVERIFIED_REASON,
    absent_label,
    candidate_label,
    detail_line,
    missed_candidate,
    not_found_label,
    page_label,
    reviewer_line,
    status_word,
    value_pages,
)

# as the DOCX memo's; an unverified value is grey and italic, never a playbook colour
FLAG_COLOURS = {"match": "#C6EFCE", "deviation": "#FFC7CE", "missing": "#FFEB9C", "unverified": "#D9D9D9"}
EVIDENCE_COLOUR = "#808080"  # the text of a cell whose verdict is the search's, without a model (issue 57)


def legend_html() -> str:
    """The legend beside the grid: the playbook's colours, and the grey text of evidence-only cells."""
    flags = " ".join(f'<span style="background:{c}">&nbsp;{flag}&nbsp;</span>' for flag, c in FLAG_COLOURS.items())
    return f'{flags} <span style="color:{EVIDENCE_COLOUR}">&nbsp;evidence only (no model)</span>'


def text_colour(item: ItemResult | None) -> str | None:
    """Grey for a cell whose verdict rests on the evidence alone; None (the palette's) otherwise."""
    return EVIDENCE_COLOUR if item is not None and cell_kind(item) == EVIDENCE else None


def cell_text(item: ItemResult | None) -> str:
    """What a grid cell says: the value (or where the clause is, evidence only), its page, marks."""
    if item is None:
        return ""
    pages = page_label(item)
    if item.status == "absent" and not item.corrected:
        text = absent_label(item)  # "probably absent — closest: p. 3"; a click shows that passage
    elif item.status == "evidence" and not item.corrected:
        text = candidate_label(item)  # "candidate: p. 4": a passage found, not a clause checked
    elif item.status in ("answered", "evidence") or item.corrected:
        value = item.shown_value or "—"
        pages = value_pages(item)  # none beside "none found" on a probably absent cell
        text = f"{value} ({pages})" if pages else value
    else:
        text = not_found_label(item)
    if item.unverified:
        text += " · unverified"
    marks = ("✎" if item.corrected else "") + ("✓" if item.correction and item.correction.accepted else "")
    marks += "✱" if item.correction and item.correction.note else ""
    return f"{text} {marks}" if marks else text


VERDICT_WORDS = {
    MODEL: "Verdict: the model's (it read the contract for this item)",
    EVIDENCE: "Verdict: evidence only (a search without a model; nobody read the contract for this item)",
    REVIEWER: "Verdict: the reviewer's correction",
}
"""What a cell's verdict rests on, as its tooltip says it (``contract_table.cell_kind``)."""


def cell_tip(item: ItemResult) -> str:
    absent = item.status == "absent" and not item.corrected
    lines = [item.question, f"status: {absent_label(item) if absent else status_word(item)}"]
    if detail := detail_line(item):
        lines.append(detail)
    elif item.reason:
        lines.append(item.reason)
    if item.quote:
        lines.append(f"“{item.quote}”")
    if reviewer := reviewer_line(item):
        lines.append(reviewer)
    lines.append(VERDICT_WORDS.get(cell_kind(item), ""))
    lines.append("Click (or press Enter) to show the passage in the contract.")
    return "\n".join(line for line in lines if line)


def panel_text(result: ItemResult) -> str:
    """The correction panel's line for the selected cell: the item and what the cell holds."""
    if result.status == "absent":
        pages = page_label(result)
        best = f"check the closest candidate, on {pages}" if pages else "no candidate passage"
        why = result.reason.removesuffix(CHECK_CANDIDATE) or "probably absent"
        return f"{result.category} — {why}; {best}"
    if result.status == "evidence":
        pages = page_label(result)
        where = f"a candidate passage on {pages}, not checked to hold the clause" if pages else "no passage found"
        return f"{result.category} — evidence only: {where}"
    if candidate := missed_candidate(result):
        return f"{result.category} — {candidate}"
    if result.status in ("pending", "not_found"):
        return f"{result.category} — {status_word(result)}"
    if result.status == "error":
        return f"{result.category} — no value: {detail_line(result)}"
    text = f"{result.category} — the model's value: {result.value or result.answer or '—'}"
    if result.unverified:
        return f"{text} · unverified: {UNVERIFIED_REASON}"
    return text

"""A review as Markdown or CSV: the grid (items x contracts) and each item's best evidence.

A cell the reviewer corrected shows the reviewer's value (marked ``corrected``); the model's
value stays beside it in the details and the CSV's ``model_value`` column. The CSV's ``side`` is
the party the review was for (``--side``; empty when none was given).
"""

from __future__ import annotations

import csv
import datetime as dt
import io
from collections.abc import Sequence

from summarizer.review.evidence import DocumentReview, ItemResult

NOTICE = "Machine-generated: verify every entry against the contract."
CONFIDENTIAL = "CONFIDENTIAL — contains contract text."


def side_of(reviews: Sequence[DocumentReview]) -> str:
    """The party the reviewer represents, as the provenance says it ("" when not given)."""
    return " / ".join(dict.fromkeys(r.side for r in reviews if r.side))


def page_label(item: ItemResult) -> str:
    """The pages of the item's best evidence: ``p. 4`` or ``pp. 4-5`` (empty without evidence)."""
    if not item.evidence:
        return ""
    best = item.evidence[0]
    return f"p. {best.page_start}" if best.page_start == best.page_end else f"pp. {best.page_start}-{best.page_end}"


def review_marks(item: ItemResult) -> str:
    """`` [corrected, accepted]``-style marks for the reviewer's word on a cell (empty without)."""
    marks = ["corrected"] if item.corrected else []
    if item.correction is not None and item.correction.accepted:
        marks.append("accepted")
    return f" [{', '.join(marks)}]" if marks else ""


def reviewer_line(item: ItemResult) -> str:
    """The reviewer's word on a cell in one line, with the model's value it replaced."""
    correction = item.correction
    if correction is None:
        return ""
    parts = []
    if correction.value is not None:
        model = item.value or item.answer or item.status.replace("_", " ")
        parts.append(f"reviewer's value: {correction.value} (the model's: {model})")
    if correction.accepted:
        parts.append("accepted by the reviewer")
    if correction.note:
        parts.append(f"note: {correction.note}")
    return "; ".join(parts)


def _cell(item: ItemResult) -> str:
    if item.status == "evidence" and not item.corrected:
        return (page_label(item) or "—") + review_marks(item)
    value = item.shown_value or item.status
    return (f"{value} ({page_label(item)})" if item.evidence else value) + review_marks(item)


def _snippet(text: str, limit: int = 300) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def to_markdown(reviews: Sequence[DocumentReview], *, generated: dt.datetime | None = None) -> str:
    when = (generated or dt.datetime.now(dt.UTC)).isoformat(timespec="seconds")
    out = [f"**{CONFIDENTIAL}**", "", f"# Contract review: {reviews[0].checklist if reviews else ''}", ""]
    for r in reviews:
        out.append(f"- {r.title} (`{r.doc_id}`, sha256 `{r.content_sha256}`)")
    if reviews:
        out.append(f"- checklist {reviews[0].checklist}, version {reviews[0].checklist_version}; {when}")
    if side := side_of(reviews):
        out.append(f"- reviewed for: {side}")
    out += [f"- {NOTICE}", ""]
    out.append("| item | " + " | ".join(r.title.replace("|", "/") for r in reviews) + " |")
    out.append("|---|" + "---|" * len(reviews))
    for n, item in enumerate(reviews[0].items if reviews else ()):
        row = [_cell(r.items[n]).replace("|", "/") for r in reviews]
        out.append(f"| {item.category} | " + " | ".join(row) + " |")
    for r in reviews:
        out += ["", f"## {r.title}", ""]
        for item in r.items:
            best = item.evidence[0] if item.evidence else None
            line = f"- **{item.category}** ({page_label(item) or 'no evidence'})"
            if best is not None:
                line += f": {_snippet(best.text)}"
            out.append(line)
            if item.correction is not None:
                out.append(f"  - {reviewer_line(item)}")
    return "\n".join(out) + "\n"


def to_csv(reviews: Sequence[DocumentReview]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(
        [
            "doc_id", "title", "side", "item_id", "category", "status", "value", "model_value", "accepted", "note",
            "flag", "pages", "passage_id", "evidence",
        ]
    )  # fmt: skip
    for r in reviews:
        for item in r.items:
            best = item.evidence[0] if item.evidence else None
            writer.writerow(
                [
                    r.doc_id,
                    r.title,
                    r.side,
                    item.item_id,
                    item.category,
                    item.status,
                    item.shown_value or "",
                    item.value or "",
                    "yes" if item.correction and item.correction.accepted else "",
                    item.correction.note if item.correction else "",
                    item.flag or "",
                    page_label(item),
                    best.passage_id if best else "",
                    _snippet(best.text, 1000) if best else "",
                ]
            )
    return buffer.getvalue()

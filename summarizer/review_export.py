"""A review as Markdown or CSV: the grid (items x contracts) and each item's best evidence."""

from __future__ import annotations

import csv
import datetime as dt
import io
from collections.abc import Sequence

from summarizer.review import DocumentReview, ItemResult

NOTICE = "Machine-generated: verify every entry against the contract."
CONFIDENTIAL = "CONFIDENTIAL — contains contract text."


def page_label(item: ItemResult) -> str:
    """The pages of the item's best evidence: ``p. 4`` or ``pp. 4-5`` (empty without evidence)."""
    if not item.evidence:
        return ""
    best = item.evidence[0]
    return f"p. {best.page_start}" if best.page_start == best.page_end else f"pp. {best.page_start}-{best.page_end}"


def _cell(item: ItemResult) -> str:
    if item.status == "evidence":
        return page_label(item) or "—"
    value = item.value or item.answer or item.status
    return f"{value} ({page_label(item)})" if item.evidence else value


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
    out += [f"- {NOTICE}", ""]
    out.append("| item | " + " | ".join(r.title.replace("|", "/") for r in reviews) + " |")
    out.append("|---|" + "---|" * len(reviews))
    for n, item in enumerate(reviews[0].items if reviews else ()):
        row = [_cell(r.items[n]) for r in reviews]
        out.append(f"| {item.category} | " + " | ".join(row) + " |")
    for r in reviews:
        out += ["", f"## {r.title}", ""]
        for item in r.items:
            best = item.evidence[0] if item.evidence else None
            line = f"- **{item.category}** ({page_label(item) or 'no evidence'})"
            if best is not None:
                line += f": {_snippet(best.text)}"
            out.append(line)
    return "\n".join(out) + "\n"


def to_csv(reviews: Sequence[DocumentReview]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(
        ["doc_id", "title", "item_id", "category", "status", "value", "flag", "pages", "passage_id", "evidence"]
    )
    for r in reviews:
        for item in r.items:
            best = item.evidence[0] if item.evidence else None
            writer.writerow(
                [
                    r.doc_id,
                    r.title,
                    item.item_id,
                    item.category,
                    item.status,
                    item.value or "",
                    item.flag or "",
                    page_label(item),
                    best.passage_id if best else "",
                    _snippet(best.text, 1000) if best else "",
                ]
            )
    return buffer.getvalue()

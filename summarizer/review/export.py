"""A review as Markdown or CSV: the grid (items x contracts) and each item's best evidence.

Every cell carries its playbook flag (``match``, ``deviation``, ``missing``) or ``unverified``
when the model's quote is not in the contract text (then no flag is shown: nothing supports
the value); an ``error`` cell says why.

A cell the reviewer corrected shows the reviewer's value (marked ``corrected``); the model's
value stays beside it in the details and the CSV's ``model_value`` column. The CSV's ``side`` is
the party the review was for (``--side``; empty when none was given). The CSV's ``flag`` is the
cell's mark as the grid shows it: ``unverified`` rather than the playbook's flag of a value
nothing supports (its ``reason`` keeps the playbook's word). Quoted passages are cut between
words, with "…".
"""

from __future__ import annotations

import csv
import dataclasses
import datetime as dt
import io
import re
from collections.abc import Sequence
from typing import Any

from inference.errors import shorten_message
from summarizer import page_labels
from summarizer.review.absence import absence_model
from summarizer.review.evidence import EVIDENCE_ONLY, DocumentReview, ItemResult

NOTICE = "Machine-generated: verify every entry against the contract."
CONFIDENTIAL = "CONFIDENTIAL — contains contract text."


def side_of(reviews: Sequence[DocumentReview]) -> str:
    """The party the reviewer represents, as the provenance says it ("" when not given)."""
    return " / ".join(dict.fromkeys(r.side for r in reviews if r.side))


def page_label(item: ItemResult) -> str:
    """The pages of the item's best evidence: ``p. 4`` or ``pp. 4–5``, or where it is in a Word
    document ("§ 8.1 Liability Caps, ¶ 95–97, p. 10"); empty without evidence."""
    if not item.evidence:
        return ""
    best = item.evidence[0]
    if best.locator:
        return best.locator
    return page_labels.page_label(best.page_start, best.page_end)


STATUS_WORDS = {
    "not_found": "not found",
    "pending": "not asked yet",
    "error": "error",
    "evidence": "evidence",
    "absent": "probably absent",
}
UNVERIFIED = "unverified"
UNVERIFIED_REASON = "the model's quote is not in the contract text: check the passage before relying on it"


def absent_label(item: ItemResult) -> str:
    """An absent cell as the grid and the exports show it: the label and the closest candidate's
    page to check, never a likelihood (summarizer/review/absence.py says why)."""
    pages = page_label(item)
    return f"probably absent — closest: {pages}" if pages else "probably absent — no candidate passage"


NOTHING_FOUND = re.compile(r"^\s*(?:none|no|nothing|not found|absent|n/?a)\b", re.IGNORECASE)


def value_pages(item: ItemResult) -> str:
    """The pages shown beside a cell's value: its evidence's, except beside a reviewer's value on
    a cell that was "probably absent" or one saying nothing is there ("none found"), where the
    page was only the closest candidate and would read as the clause's place."""
    if item.corrected and (item.status == "absent" or NOTHING_FOUND.match(item.shown_value or "")):
        return ""
    return page_label(item)


def missed_candidate(item: ItemResult) -> str:
    """For a cell the model answered "not found" although its best passage reads like the clause
    (the evidence-only review would not call it absent): which page to check; "" otherwise."""
    if item.status != "not_found" or item.corrected or not item.evidence or item.clause_score is None:
        return ""
    if absence_model().is_absent(item.clause_score, item.category):
        return ""
    return f"the model found no answer, but the passage on {page_label(item)} reads like this clause: check it"


def not_found_label(item: ItemResult) -> str:
    """A "not found" cell as the grid and the exports show it: with the page to check when the
    search found a passage that reads like the clause."""
    return f"not found — check {page_label(item)}" if missed_candidate(item) else status_word(item)


def status_word(item: ItemResult) -> str:
    """The item's status as a reader would say it ("not found", never ``not_found``)."""
    return STATUS_WORDS.get(item.status, item.status.replace("_", " "))


def flag_word(item: ItemResult) -> str:
    """What the cell is marked with: ``unverified`` (before any playbook flag), the flag, or ""."""
    return UNVERIFIED if item.unverified else item.flag or ""


def count_unverified(review: DocumentReview) -> int:
    return sum(item.unverified for item in review.items)


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
        if item.status in EVIDENCE_ONLY:
            parts.append(f"reviewer's value: {correction.value} (evidence only: no model value)")
        else:
            model = item.value or item.answer or status_word(item)
            parts.append(f"reviewer's value: {correction.value} (the model's: {model})")
    if correction.accepted:
        parts.append("accepted by the reviewer")
    if correction.note:
        parts.append(f"note: {correction.note}")
    return "; ".join(parts)


def _cell(item: ItemResult) -> str:
    if item.status == "absent" and not item.corrected:
        return absent_label(item) + review_marks(item)
    if item.status == "evidence" and not item.corrected:
        return (page_label(item) or "—") + review_marks(item)
    value = item.shown_value if item.status == "answered" or item.corrected else None
    pages = value_pages(item)
    text = (f"{value} ({pages})" if pages else value) if value else not_found_label(item)
    flag = flag_word(item)
    return text + review_marks(item) + (f" **{flag}**" if flag else "")


def plain_cell(item: ItemResult) -> str:
    """A cell as the DOCX memo and the spreadsheet write it: the value (or where the clause is,
    evidence only) with its pages and the reviewer's marks; the flag is the caller's to add."""
    if item.status == "absent" and not item.corrected:
        return absent_label(item) + review_marks(item)
    if item.status == "evidence" and not item.corrected:
        return (page_label(item) or "—") + review_marks(item)
    value = item.shown_value if item.status == "answered" or item.corrected else None
    value = value or not_found_label(item)
    pages = value_pages(item)
    shown = f"{value} ({pages})" if pages and (item.status == "answered" or item.corrected) else value
    return shown + review_marks(item)


def detail_line(item: ItemResult) -> str:
    """Why a cell says what it says, in one line (empty when there is nothing to add)."""
    if item.unverified:
        return f"{UNVERIFIED}: {UNVERIFIED_REASON}" + (f" (playbook: {item.flag})" if item.flag else "")
    if item.status == "error":
        return f"error: {item.reason or 'no reason was recorded'}"
    playbook = f"{item.flag}: {item.reason}" if item.flag else ""
    if candidate := missed_candidate(item):
        return candidate + (f" (playbook: {playbook})" if playbook else "")
    return playbook


def generated_at(when: dt.datetime | None = None) -> str:
    """When an export was made, as a reader writes it: ``1 December 2026, 19:44 UTC``."""
    moment = (when or dt.datetime.now(dt.UTC)).astimezone(dt.UTC)
    return f"{moment.day} {moment:%B %Y, %H:%M} UTC"


QUOTE_CHARS = 800  # of a passage quoted in the exports: a clause whole, as a rule


# What XML 1.0 cannot hold: control characters, U+FFFE/U+FFFF, lone surrogates. python-docx and
# openpyxl refuse a string with one, and a PDF's text can have them (U+FFFE in a CUAD contract of
# the data room stopped its export to Excel, issue 46).
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_safe(reviews: Sequence[DocumentReview]) -> list[DocumentReview]:
    """``reviews`` with the characters XML cannot hold left out of every string they hold, for the
    Word and Excel writers (the reviews themselves are not changed; unchanged parts are shared)."""
    return [_xml_safe(review) for review in reviews]


def _xml_safe(value: Any) -> Any:
    if isinstance(value, str):
        return _NOT_XML.sub("", value)
    if isinstance(value, list | tuple):
        cleaned = [_xml_safe(v) for v in value]
        changed = any(a is not b for a, b in zip(cleaned, value, strict=True))
        return (cleaned if isinstance(value, list) else tuple(cleaned)) if changed else value
    if isinstance(value, dict):
        cleaned_dict = {k: _xml_safe(v) for k, v in value.items()}
        return cleaned_dict if any(cleaned_dict[k] is not v for k, v in value.items()) else value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {}
        for f in dataclasses.fields(value):
            old = getattr(value, f.name)
            if (new := _xml_safe(old)) is not old:
                changes[f.name] = new
        return dataclasses.replace(value, **changes) if changes else value
    return value


def quote_snippet(text: str, limit: int = QUOTE_CHARS) -> str:
    """A passage on one line for the exports; a longer one is cut between words and ends in "…"
    (never mid-word: "…year periods u" read as the clause's last word)."""
    return shorten_message(" ".join(text.split()), limit)


def to_markdown(reviews: Sequence[DocumentReview], *, generated: dt.datetime | None = None) -> str:
    when = generated_at(generated)
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
    if unverified := sum(count_unverified(r) for r in reviews):
        out += ["", f"**{unverified} unverified** (marked in the grid): {UNVERIFIED_REASON}."]
    for r in reviews:
        out += ["", f"## {r.title}", ""]
        for item in r.items:
            best = item.evidence[0] if item.evidence else None
            line = f"- **{item.category}** ({page_label(item) or 'no evidence'})"
            if best is not None:
                line += f": {quote_snippet(best.text)}"
            out.append(line)
            if detail := detail_line(item):
                out.append(f"  - {detail}")
            if item.correction is not None:
                out.append(f"  - {reviewer_line(item)}")
    return "\n".join(out) + "\n"


def _csv_reason(item: ItemResult) -> str:
    if item.unverified or item.status == "error":
        return detail_line(item).partition(": ")[2]
    return detail_line(item) if missed_candidate(item) else item.reason


def to_csv(reviews: Sequence[DocumentReview]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(
        [
            "doc_id", "title", "side", "item_id", "category", "status", "value", "model_value", "accepted", "note",
            "flag", "pages", "passage_id", "evidence", "unverified", "reason",
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
                    flag_word(item),  # "unverified", never the flag of a value nothing supports
                    page_label(item),
                    best.passage_id if best else "",
                    quote_snippet(best.text, 1000) if best else "",
                    "yes" if item.unverified else "",
                    _csv_reason(item),
                ]
            )
    return buffer.getvalue()

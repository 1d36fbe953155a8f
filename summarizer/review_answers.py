"""Contract review with a model: each checklist item gets a typed answer, or "not found"
after the model has read the whole contract for it.

The contract is read in units of consecutive pages that fit the context with room for the
question and the reply (one unit when the whole contract fits). Each unit is read once for all
items: the items of a unit go to the engine as one batch (``generate_batch``), each reply held
to ``REPLY_SCHEMA`` by constrained decoding, so even a small model returns parseable values. An
item is answered by the first unit whose reply says ``found``; an item no unit answers is
``not_found``; a reply that cannot be used is an ``error`` for that item only. The quote is
checked against the unit's text and the cited pages against the unit's pages.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from inference.cancel import NEVER_CANCELLED, CancelToken
from inference.engine import ChatMessage, Completion, Engine
from inference.progress import Progress, ProgressCallback, no_progress
from summarizer.checklist import Checklist, ChecklistItem
from summarizer.document_text import read_pages
from summarizer.library import Library
from summarizer.playbook import flag_for
from summarizer.review import DocumentReview, ItemResult, check_reviewable, item_evidence
from summarizer.review_values import normalize_value

PROMPT_VERSION = 1
REPLY_TOKENS = 160
PROMPT_MARGIN = 200  # the instructions, the question and the chat template around the pages
QUOTE_CHARS = 300

REPLY_SCHEMA = {
    "type": "object",
    "properties": {
        "found": {"type": "boolean"},
        "answer": {"type": "string", "maxLength": 200},
        "quote": {"type": "string", "maxLength": QUOTE_CHARS},
        "pages": {"type": "array", "items": {"type": "integer"}, "maxItems": 4},
    },
    "required": ["found", "answer", "quote", "pages"],
    "additionalProperties": False,
}

TYPE_HINTS = {
    "yes_no": 'answer "yes" or "no"',
    "date": "answer with the date as written",
    "duration": "answer with the length of time as written (e.g. 5 years, 90 days)",
    "amount": "answer with the amount and its currency",
    "parties": "answer with the names of the parties, separated by ';'",
    "jurisdiction": "answer with the state or country",
    "excerpt": "answer in one sentence",
}

SYSTEM = (
    "You review a contract. Answer the question only from the contract pages given. "
    "Reply with JSON: found (true only if these pages answer the question), answer, quote "
    "(the exact words of the contract that support the answer, copied), pages (the page numbers of the quote)."
)


@dataclass(frozen=True, slots=True)
class ReadingUnit:
    pages: tuple[int, ...]
    text: str  # with "[Page N]" markers


def reading_units(pages: dict[int, str], engine: Engine, budget_tokens: int) -> list[ReadingUnit]:
    """Consecutive pages grouped into units of at most ``budget_tokens`` (a longer page is a
    unit of its own, cut to the budget)."""
    units: list[ReadingUnit] = []
    current: list[int] = []
    parts: list[str] = []
    used = 0
    for page, text in sorted(pages.items()):
        block = f"[Page {page}]\n{text.strip()}\n"
        tokens = engine.count_tokens(block)
        if current and used + tokens > budget_tokens:
            units.append(ReadingUnit(tuple(current), "\n".join(parts)))
            current, parts, used = [], [], 0
        if tokens > budget_tokens:  # one page longer than the whole budget: keep its beginning
            block = block[: max(200, len(block) * budget_tokens // tokens)]
            tokens = budget_tokens
        current.append(page)
        parts.append(block)
        used += tokens
    if current:
        units.append(ReadingUnit(tuple(current), "\n".join(parts)))
    return units


def _messages(unit: ReadingUnit, item: ChecklistItem) -> list[ChatMessage]:
    hint = TYPE_HINTS.get(item.type, "answer briefly")
    return [
        ChatMessage("system", SYSTEM),
        ChatMessage("user", f"{unit.text}\nQuestion: {item.question} ({hint})"),
    ]


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


def _parse(completion: Completion) -> dict[str, object] | None:
    try:
        data = json.loads(completion.text)
    except json.JSONDecodeError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("found"), bool):
        return None
    return data


def _apply(result: ItemResult, item: ChecklistItem, unit: ReadingUnit, data: dict[str, object]) -> None:
    answer = str(data.get("answer") or "").strip()
    quote = str(data.get("quote") or "").strip()
    raw_pages = data.get("pages")
    pages = [int(p) for p in raw_pages if isinstance(p, int)] if isinstance(raw_pages, list) else []
    quote_ok = bool(quote) and _flat(quote) in _flat(unit.text)
    result.status = "answered"
    result.answer = answer
    result.value = normalize_value(item.type, answer)
    result.quote = quote if quote_ok else ""
    result.citations = [{"page": p, "passage_id": None, "valid": p in unit.pages and quote_ok} for p in pages]
    if not quote_ok:
        result.reason = "the model's quote is not in the contract text it read; check the evidence"


def review_with_model(
    library: Library,
    engine: Engine,
    doc_ids: Sequence[str],
    checklist: Checklist,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken = NEVER_CANCELLED,
) -> list[DocumentReview]:
    """Typed answers for every item of ``checklist`` in every document, with evidence and flags."""
    check_reviewable(library, doc_ids)
    budget = max(256, engine.n_ctx - REPLY_TOKENS - PROMPT_MARGIN)
    reviews = []
    for doc_id in doc_ids:
        record = library.document(doc_id)
        units = reading_units(read_pages(library, doc_id), engine, budget)
        results = []
        for item in checklist.items:
            evidence, _ = item_evidence(library, doc_id, item)
            results.append(ItemResult(item.id, item.category, item.question, item.type, "not_found", evidence))
        open_items = list(range(len(checklist.items)))
        for n_unit, unit in enumerate(units):
            if not open_items:
                break
            cancel.raise_if_cancelled()
            progress(Progress("Reading the contract", n_unit, len(units), f"{record.title}: pages {unit.pages[0]}-"))
            prompts = [_messages(unit, checklist.items[i]) for i in open_items]
            replies = engine.generate_batch(prompts, max_tokens=REPLY_TOKENS, json_schema=REPLY_SCHEMA, cancel=cancel)
            still_open = []
            for index, completion in zip(open_items, replies, strict=True):
                result = results[index]
                result.passages_read += 1
                data = _parse(completion)
                if data is None:
                    result.status = "error"
                    result.reason = "the model's reply was not the JSON asked for: " + completion.text[:80]
                    continue
                if data["found"]:
                    _apply(result, checklist.items[index], unit, data)
                else:
                    still_open.append(index)
            open_items = still_open
        for item, result in zip(checklist.items, results, strict=True):
            result.flag, flag_reason = flag_for(item, result)
            if flag_reason:
                result.reason = "; ".join(r for r in (result.reason, flag_reason) if r)
        progress(Progress("Reading the contract", len(units), len(units), record.title))
        reviews.append(DocumentReview.of(record, checklist, results))
    return reviews

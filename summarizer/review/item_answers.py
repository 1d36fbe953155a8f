"""Contract review with a model: each checklist item gets a typed answer, or "not found"
after the model has read the whole contract for it.

The contract is read in units of consecutive pages that fit the context with room for the
question and the reply (one unit when the whole contract fits). Each unit is read once for all
items: the items of a unit go to the engine as one batch (``generate_batch``), each reply held
to ``REPLY_SCHEMA`` by constrained decoding, so even a small model returns parseable values. An
item is answered by the first unit whose reply says ``found``; an item no unit answers is
``not_found``; a reply that cannot be used is an ``error`` for that item only. The quote is
checked against the unit's text and the cited pages against the unit's pages. A Word contract's
"pages" are its paragraphs, each read after its own label ("[¶ 74] (a) If …", as the answer prompt
gives them: ``summarizer.library.word_parts.labelled_paragraphs``), and its answer is named by the
paragraphs that hold its quote (``summarizer.review.word_answers``).

Each item's result is stored in the library as soon as it is finished (``summarizer.review.store``):
a second run with the same key asks nothing, a stopped run asks only the items not stored, and
the playbook flags are computed from the stored values whenever a review is shown. The caller's
``on_item`` hears of each item as it is stored (the stored ones first), so a grid fills as it goes.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from inference.cancel import NEVER_CANCELLED, CancelToken
from inference.engines.engine import ChatMessage, Completion, Engine
from inference.errors import shorten_message
from inference.progress import Progress, ProgressCallback, Stage, no_progress
from summarizer.library.storage.document_text import read_pages
from summarizer.library.storage.store import DocumentRecord, Library
from summarizer.library.word_parts import WORD, file_types, labelled_paragraphs
from summarizer.llm.model_identity import engine_identity
from summarizer.review.checklist import Checklist, ChecklistItem
from summarizer.review.evidence import (
    DocumentReview,
    ItemCallback,
    ItemResult,
    check_reviewable,
    item_done,
    no_items,
    scored_evidence,
)
from summarizer.review.playbook import flag_results
from summarizer.review.store import (
    ReviewKey,
    attach_corrections,
    evidence_key,
    forget_results,
    forget_stale_results,
    latest_model,
    review_key,
    store_result,
    stored_results,
)
from summarizer.review.values import normalize_value
from summarizer.review.word_answers import flat_text, name_by_quote

PROMPT_VERSION = 2
"""The version of the prompts a stored result was read with (``ReviewKey.prompt_version``): a result
stored under another one is not shown and its item is asked again. 2: a Word contract's paragraphs
each after its own label, "[¶ 74] …", not "[Page 74]", and its answer named by the paragraphs of its
quote (issue 56). A PDF's prompt is version 1's byte for byte, so a PDF keeps ``PDF_PROMPT_VERSION``
and its stored results (``prompt_version``)."""
PDF_PROMPT_VERSION = 1
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
WORD_SYSTEM = (
    "You review a contract. Answer the question only from the contract paragraphs given. "
    "Reply with JSON: found (true only if these paragraphs answer the question), answer, quote "
    "(the exact words of the contract that support the answer, copied), pages (the numbers N of the "
    "paragraphs [¶ N] that hold the quote)."
)


def prompt_version(library: Library, doc_id: str) -> int:
    """The prompt version a document's results are stored under: ``PROMPT_VERSION`` for a Word
    contract, ``PDF_PROMPT_VERSION`` for a PDF (whose prompt has not changed since)."""
    return prompt_version_of(word=is_word(library, doc_id))


def prompt_version_of(*, word: bool) -> int:
    """``prompt_version`` for a caller that already knows whether the document is a Word contract
    (each ``is_word`` is a library query)."""
    return PROMPT_VERSION if word else PDF_PROMPT_VERSION


def is_word(library: Library, doc_id: str) -> bool:
    return file_types(library, [doc_id]).get(doc_id) == WORD


@dataclass(frozen=True, slots=True)
class ReadingUnit:
    pages: tuple[int, ...]
    text: str  # with "[Page N]" markers; a Word contract's paragraphs one a line after "[¶ N]"
    word: bool = False


def reading_units(
    pages: dict[int, str], engine: Engine, budget_tokens: int, *, word: bool = False
) -> list[ReadingUnit]:
    """Consecutive pages grouped into units of at most ``budget_tokens`` (a longer page is a
    unit of its own, cut to the budget). ``word``: the pages are a Word contract's paragraphs."""
    units: list[ReadingUnit] = []
    current: list[int] = []
    parts: list[str] = []
    used = 0
    for page, text in sorted(pages.items()):
        block = labelled_paragraphs([(page, text)]) if word else f"[Page {page}]\n{text.strip()}\n"
        if not block:  # a Word paragraph with no text has no label either
            continue
        tokens = engine.count_tokens(block)
        if current and used + tokens > budget_tokens:
            units.append(ReadingUnit(tuple(current), "\n".join(parts), word))
            current, parts, used = [], [], 0
        if tokens > budget_tokens:  # one page longer than the whole budget: keep its beginning
            block = block[: max(200, len(block) * budget_tokens // tokens)]
            tokens = budget_tokens
        current.append(page)
        parts.append(block)
        used += tokens
    if current:
        units.append(ReadingUnit(tuple(current), "\n".join(parts), word))
    return units


def reading_messages(unit: ReadingUnit, item: ChecklistItem) -> list[ChatMessage]:
    hint = TYPE_HINTS.get(item.type, "answer briefly")
    return [
        ChatMessage("system", WORD_SYSTEM if unit.word else SYSTEM),
        ChatMessage("user", f"{unit.text}\nQuestion: {item.question} ({hint})"),
    ]


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
    quote_ok = bool(quote) and flat_text(quote) in flat_text(unit.text)
    result.status = "answered"
    result.answer = answer
    result.value = normalize_value(item.type, answer)
    result.quote = quote if quote_ok else ""
    result.citations = [{"page": p, "passage_id": None, "valid": p in unit.pages and quote_ok} for p in pages]
    if not quote_ok:
        result.reason = "the model's quote is not in the contract text it read; check the evidence"


@dataclass(slots=True)
class _Meter:
    """Progress in readings: an open item costs one reading per unit of its contract; an item
    finished early has its remaining readings counted done at once; a stored item counts one,
    done before the first model call (so the rate and the ETA measure the model's work only).
    The message says how many of the grid's cells are final ("3/9 cells done")."""

    progress: ProgressCallback
    total: int
    cells: int = 0
    cells_done: int = 0
    done: int = 0
    base: int = 0
    started: float = field(default_factory=time.perf_counter)

    def start(self, stored: int) -> None:
        self.done = self.base = self.cells_done = stored
        self.started = time.perf_counter()
        self.advance(0, "stored results read" if stored else "")

    def advance(self, readings: int, message: str, cells: int = 0) -> None:
        self.done += readings
        self.cells_done += cells
        message = f"{self.cells_done}/{self.cells} cells done · {message}" if message else message
        elapsed = time.perf_counter() - self.started
        measured = self.done - self.base
        rate = measured / elapsed if measured > 0 and elapsed > 0 else None
        self.progress(Progress(Stage.REVIEW, self.done, self.total, message, rate))


@dataclass(slots=True)
class DocumentRun:
    record: DocumentRecord
    key: ReviewKey
    results: dict[int, ItemResult]  # by the item's index in the checklist; the stored ones first
    units: list[ReadingUnit]
    word_pages: dict[int, str] | None = None  # a Word contract's paragraphs as read; None: a PDF

    def open_items(self, n_items: int) -> list[int]:
        return [i for i in range(n_items) if i not in self.results]

    def finish(self, library: Library, index: int, on_item: ItemCallback) -> None:
        """Store the item's result, now final (a Word contract's answer named by the paragraphs
        of its quote), and report it."""
        if self.word_pages is not None:
            name_by_quote(library, self.key.doc_id, self.results[index], self.word_pages)
        store_result(library, self.key, self.results[index])
        on_item(item_done(self.key.doc_id, index, self.results[index]))


@dataclass(slots=True)
class _UnitReplies:
    """``generate_batch``'s ``on_result`` for one unit: each finished item is stored and reported
    at once (one not found in the contract's last unit is finished too: ``not_found``)."""

    library: Library
    run: DocumentRun
    items: tuple[ChecklistItem, ...]
    unit: ReadingUnit
    positions: list[int]  # the batch's prompts -> the items' indexes
    units_left: int  # this unit and the ones after it
    meter: _Meter
    on_item: ItemCallback
    still_open: list[int] = field(default_factory=list)
    handled: set[int] = field(default_factory=set)

    def __call__(self, position: int, completion: Completion) -> None:
        if position in self.handled:
            return
        self.handled.add(position)
        index = self.positions[position]
        message = f"{self.run.record.title}: {self.items[index].category}"
        final = read_reply(self.run.results[index], self.items[index], self.unit, completion, self.units_left)
        if not final:
            self.still_open.append(index)
            self.meter.advance(1, message)
            return
        self.run.finish(self.library, index, self.on_item)  # answered, an error, or not in the last unit
        self.meter.advance(self.units_left, message, cells=1)


def read_reply(
    result: ItemResult, item: ChecklistItem, unit: ReadingUnit, completion: Completion, units_left: int
) -> bool:
    """Take one unit's reply to one item into ``result``; True when the item is final (answered,
    an error, or not found in its contract's last unit), False when the next unit is to be read."""
    result.passages_read += 1
    data = _parse(completion) if completion.error is None else None
    if data is None:
        result.status = "error"
        if completion.error is not None:  # the engine's own words: cut and not closable, or off-schema
            result.reason = str(completion.error)
        elif completion.stats.stop_reason == "invalid":
            result.reason = (
                "the model's output scores were not numbers (NaN): the model file may be damaged "
                "or not supported; check it with `pagewise doctor`"
            )
        else:
            result.reason = "the model's reply was not the JSON asked for: " + shorten_message(completion.text, 80)
    elif data["found"]:
        _apply(result, item, unit, data)
        if completion.stats.json_closed:
            cut = (
                f"the model's reply ran out of its {REPLY_TOKENS}-token budget and was closed: "
                "its last value may be cut short"
            )
            result.reason = f"{result.reason}; {cut}" if result.reason else cut
    elif units_left > 1:
        return False
    return True


def prepare_run(
    library: Library, engine: Engine, doc_id: str, checklist: Checklist, model: str, budget: int, fresh: bool
) -> DocumentRun:
    record = library.document(doc_id)
    forget_stale_results(library, doc_id)
    word = is_word(library, doc_id)
    key = review_key(library, doc_id, checklist, model, prompt_version_of(word=word))
    if fresh:
        forget_results(library, key)
    stored = stored_results(library, key, checklist.items)
    results = {i: stored[item.id] for i, item in enumerate(checklist.items) if item.id in stored}
    needs_reading = len(results) < len(checklist.items)
    pages = read_pages(library, doc_id) if needs_reading else {}
    units = reading_units(pages, engine, budget, word=word) if needs_reading else []
    return DocumentRun(record, key, results, units, pages if word else None)


def open_results(
    library: Library,
    checklist: Checklist,
    run: DocumentRun,
    cancel: CancelToken,
    finding: Callable[[str], None] = lambda _: None,
) -> list[int]:
    """A result, "not_found" until a unit answers it, with its evidence, for each item of the
    run not stored; returns their indexes. ``finding`` hears each item's category."""
    open_items = run.open_items(len(checklist.items))
    for index in open_items:
        cancel.raise_if_cancelled()
        item = checklist.items[index]
        finding(item.category)
        # With the clause ranker's best score, so a "not found" whose best passage reads like the
        # clause can say which page to check (summarizer.review.export.missed_candidate).
        evidence, _, score = scored_evidence(library, run.key.doc_id, item)
        result = ItemResult(item.id, item.category, item.question, item.type, "not_found", evidence)
        result.clause_score = score
        run.results[index] = result
    return open_items


def _read(
    library: Library,
    engine: Engine,
    checklist: Checklist,
    run: DocumentRun,
    meter: _Meter,
    cancel: CancelToken,
    on_item: ItemCallback,
) -> None:
    """Ask the model the items not stored, unit by unit, storing and reporting each item when it
    is finished."""
    open_items = run.open_items(len(checklist.items))
    open_results(library, checklist, run, cancel, lambda item: meter.advance(0, f"{run.record.title}: finding {item}"))
    for n_unit, unit in enumerate(run.units):
        if not open_items:
            break
        cancel.raise_if_cancelled()
        units_left = len(run.units) - n_unit
        replies = _UnitReplies(library, run, checklist.items, unit, open_items, units_left, meter, on_item)
        meter.advance(0, f"{run.record.title}: pages {unit.pages[0]}-{unit.pages[-1]}")
        prompts = [reading_messages(unit, checklist.items[i]) for i in open_items]
        completions = engine.generate_batch(
            prompts, max_tokens=REPLY_TOKENS, json_schema=REPLY_SCHEMA, cancel=cancel, on_result=replies
        )
        for position, completion in enumerate(completions):  # any the engine did not hand to on_result
            replies(position, completion)
        open_items = sorted(replies.still_open)
    for index in open_items:  # no unit to read (the replies finish the items of the last one)
        run.finish(library, index, on_item)
        meter.cells_done += 1


def shown_review_of(library: Library, checklist: Checklist, review: DocumentReview) -> DocumentReview:
    """``review`` with the reviewer's corrections and the playbook flags (computed now, for the
    review's side)."""
    attach_corrections(library, review)
    flag_results(checklist.items, review.items, review.side)
    return review


def review_with_model(
    library: Library,
    engine: Engine,
    doc_ids: Sequence[str],
    checklist: Checklist,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken = NEVER_CANCELLED,
    *,
    model: str | None = None,
    fresh: bool = False,
    side: str = "",
    on_item: ItemCallback = no_items,
) -> list[DocumentReview]:
    """Typed answers for every item of ``checklist`` in every document, with evidence and flags.

    Each item's result is stored as soon as it is finished; items already stored for the same
    document, checklist version, model, prompt version and passages are read back, not asked
    (``cached``), so a stopped run continues where it was. ``fresh``: ask every item again.
    ``model``: what the results are stored under (default: the engine's model file's sha256).
    ``side``: the party the reviewer represents (flags only: the stored results do not depend on it).
    ``on_item``: called with each item as soon as it is final (``ItemDone``: a copy, no flag, no
    correction), in the calling thread: the stored items first, before any model call, then each
    item as its unit's batch finishes it; every item of every document exactly once.
    """
    check_reviewable(library, doc_ids)
    model = model or engine_identity(library, engine, cancel=cancel)
    budget = max(256, engine.n_ctx - REPLY_TOKENS - PROMPT_MARGIN)
    runs = [prepare_run(library, engine, doc_id, checklist, model, budget, fresh) for doc_id in doc_ids]
    n_items = len(checklist.items)
    stored = sum(len(run.results) for run in runs)
    readings = stored + sum(len(run.open_items(n_items)) * len(run.units) for run in runs)
    meter = _Meter(progress, readings, cells=n_items * len(runs))
    meter.start(stored)
    for run in runs:
        for index in sorted(run.results):  # the stored items: final already
            on_item(item_done(run.key.doc_id, index, run.results[index]))
    reviews = []
    for run in runs:
        _read(library, engine, checklist, run, meter, cancel, on_item)
        items = [run.results[i] for i in range(n_items)]
        reviews.append(shown_review_of(library, checklist, DocumentReview.of(run.record, checklist, items, side)))
    return reviews


def stored_review(
    library: Library, doc_id: str, checklist: Checklist, model: str | None = None, side: str = ""
) -> DocumentReview | None:
    """The document's stored review grid for ``checklist`` (by ``model``, default the one stored
    last), with corrections and flags (for ``side``); an item not stored yet has status
    ``pending``. None when nothing is stored. No model is loaded: this is what the window shows
    and exports."""
    version = prompt_version(library, doc_id)
    model = model or latest_model(library, doc_id, checklist, version)
    if model is None:
        return None
    key = review_key(library, doc_id, checklist, model, version)
    stored = stored_results(library, key, checklist.items)
    if not stored:
        return None
    items = [
        stored.get(item.id) or ItemResult(item.id, item.category, item.question, item.type, "pending")
        for item in checklist.items
    ]
    return shown_review_of(library, checklist, DocumentReview.of(library.document(doc_id), checklist, items, side))


def stored_evidence_review(
    library: Library, doc_id: str, checklist: Checklist, side: str = ""
) -> DocumentReview | None:
    """The document's stored evidence-only run for ``checklist`` (with corrections and, for a
    corrected cell, its flag), or None when there is none for today's search and passages."""
    stored = stored_results(library, evidence_key(library, doc_id, checklist), checklist.items)
    if len(stored) != len(checklist.items):
        return None
    items = [stored[item.id] for item in checklist.items]
    return shown_review_of(library, checklist, DocumentReview.of(library.document(doc_id), checklist, items, side))


def shown_review(library: Library, doc_id: str, checklist: Checklist, side: str = "") -> DocumentReview | None:
    """What the window's grid shows for a document, cell by cell: the model's stored answer where
    it gave one (it holds the evidence too), else the stored evidence-only cell (a contract the
    model has not finished: issue 57), else "pending"; None when nothing is stored."""
    answered = stored_review(library, doc_id, checklist, side=side)
    if answered is not None and all(item.status != "pending" for item in answered.items):
        return answered
    evidence = stored_evidence_review(library, doc_id, checklist, side)
    if answered is None or evidence is None:
        return answered or evidence
    items = tuple(m if m.status != "pending" else e for m, e in zip(answered.items, evidence.items, strict=True))
    return dataclasses.replace(answered, items=items)


def stored_reviews(
    library: Library, doc_ids: Sequence[str], checklist: Checklist, model: str, side: str = ""
) -> list[DocumentReview] | None:
    """Every document's complete stored review by ``model``, or None if any item is missing
    (then the model has to be loaded)."""
    reviews = []
    for doc_id in doc_ids:
        review = stored_review(library, doc_id, checklist, model, side)
        if review is None or any(item.status == "pending" for item in review.items):
            return None
        reviews.append(review)
    return reviews

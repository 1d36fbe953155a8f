"""Contract review against a checklist: for every item, the passages where the answer is.

This is the evidence half of the review (``pagewise review --evidence-only``): hybrid retrieval
over the whole contract for each item's queries and its question, fused by rank (a passage under
a heading that names the item's category ranks higher), kept with the result (the passages
consulted and the best one first). It needs no language model, so it runs
on a laptop without a GPU and makes the retrieval half testable on its own. Answering each item
with a model (typed values, citations, playbook flags) builds on these results.
"""

from __future__ import annotations

import dataclasses
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inference.cancel import NEVER_CANCELLED, CancelToken
from inference.progress import Progress, ProgressCallback, Stage, no_progress
from summarizer.errors import LibraryError
from summarizer.library.reading.docx_document import DocxParagraph
from summarizer.library.reading.docx_locator import locate
from summarizer.library.reading.page_furniture import NEIGHBOUR_PAGES, body_span
from summarizer.library.storage.queries import passages_by_id, passages_matching
from summarizer.library.storage.store import DocumentRecord, Library
from summarizer.library.word_parts import WORD, file_types, word_paragraphs
from summarizer.review.absence import absence_model
from summarizer.review.checklist import Checklist, ChecklistItem
from summarizer.search.fts_query import fts_string, fts_terms
from summarizer.search.retrieval import DEFAULT_PARAMS, rerank, search
from summarizer.search.word_matches import matched_paragraphs

PER_QUERY = 10  # passages taken from each query's ranking
EVIDENCE = 10  # passages kept per item, best first
RANK_K = 5  # rank fusion across an item's queries: 1 / (RANK_K + rank)
# A passage whose heading path names the item's category ("10.11 Governing Law" for Governing
# Law, "GRANT OF LICENSE" for License Grant: every word of the name, stemmed) counts this much
# more of its fused score (docs/checklists.md).
HEADING_BOOST = 1.5
# An evidence-only item is shown as "probably absent" (status ``absent``) when
# summarizer/review/absence.py's model, from the clause ranker's best score and how common the
# clause is, says so; calibrated on CUAD's validation contracts by scripts/ranker_absent.py
# (docs/retrieval.md has its precision and recall).
EVIDENCE_ONLY = ("evidence", "absent")  # statuses of an item no model has answered
WITHOUT_RANKER = dataclasses.replace(DEFAULT_PARAMS, rerank_top=0)
RERANK_TOP = DEFAULT_PARAMS.rerank_top  # the item's fused passages the clause ranker reorders


@dataclass(frozen=True, slots=True)
class Evidence:
    passage_id: int
    page_start: int
    page_end: int
    text: str
    heading: str = ""
    # Where it is in a Word document, as Word shows it ("§ 8.1 Liability Caps, ¶ 95–97, p. 10";
    # summarizer/library/reading/docx_locator.py); "" for a PDF, whose pages say where it is.
    locator: str = ""
    # A Word passage's paragraphs that hold the item's words (summarizer/search/word_matches.py),
    # named by ``locator``, highlighted when the cell is clicked and quoted by ``quote``; 0 and
    # "": the whole passage (a PDF's, or one where no paragraph holds more of them than another).
    match_first: int = 0
    match_last: int = 0
    quote: str = ""

    @property
    def quoted(self) -> str:
        """What the exports quote: the paragraphs that matched, else the passage."""
        return self.quote or self.text

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "passage_id": self.passage_id,
            "page_start": self.page_start,
            "page_end": self.page_end,
            "heading": self.heading,
            "text": self.text,
        }
        if self.locator:
            data["locator"] = self.locator
        if self.match_first:
            data.update(match_first=self.match_first, match_last=self.match_last, quote=self.quote)
        return data


@dataclass(frozen=True, slots=True)
class Correction:
    """The reviewer's word on one cell: a corrected value (None keeps the model's), accepted,
    a note. Stored apart from the result (summarizer.review.store), so re-runs keep it."""

    value: str | None = None
    accepted: bool = False
    note: str = ""
    updated_at: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"value": self.value, "accepted": self.accepted, "note": self.note, "updated_at": self.updated_at}


@dataclass(slots=True)
class ItemResult:
    """One checklist item for one contract (the JSON of docs/cli-json.md, `pagewise review`)."""

    item_id: str
    category: str
    question: str
    type: str
    status: str  # evidence | absent (evidence-only run: found / probably not there) | answered | not_found | error
    evidence: list[Evidence] = field(default_factory=list)
    passages_read: int = 0
    answer: str | None = None
    value: str | None = None
    flag: str | None = None  # match | deviation | missing (playbook); None without one
    reason: str = ""
    quote: str = ""
    citations: list[dict[str, Any]] = field(default_factory=list)
    cached: bool = False  # read from the library's stored results, no model call
    correction: Correction | None = None
    clause_score: float | None = None  # the clause ranker's best score among the evidence

    @property
    def corrected(self) -> bool:
        return self.correction is not None and self.correction.value is not None

    @property
    def shown_value(self) -> str | None:
        """What the grid shows: the reviewer's value, else the normalized value, else the answer."""
        if self.correction is not None and self.correction.value is not None:
            return self.correction.value
        return self.value or self.answer

    @property
    def unverified(self) -> bool:
        """The model gave a value but its quote is not in the contract text it read, so nothing
        supports it; a reviewer's correction or acceptance settles it."""
        if self.status != "answered" or self.quote or self.corrected:
            return False
        return not (self.correction is not None and self.correction.accepted)

    def to_json(self) -> dict[str, Any]:
        return {
            "item_id": self.item_id,
            "category": self.category,
            "question": self.question,
            "answer": self.answer,
            "type": self.type,
            "value": self.value,
            "status": self.status,
            "flag": self.flag,
            "unverified": self.unverified,
            "reason": self.reason,
            "citations": self.citations,
            "quote": self.quote,
            "evidence": [e.to_json() for e in self.evidence],
            "passages_read": self.passages_read,
            "clause_score": None if self.clause_score is None else round(self.clause_score, 3),
            "cached": self.cached,
            "correction": self.correction.to_json() if self.correction else None,
        }


@dataclass(frozen=True, slots=True)
class DocumentReview:
    doc_id: str
    title: str
    content_sha256: str
    checklist: str
    checklist_version: str
    items: tuple[ItemResult, ...]
    file_name: str = ""  # the PDF's file name, for the memo's provenance
    side: str = ""  # the party the reviewer represents (the side-dependent flags use it)

    @classmethod
    def of(
        cls, record: DocumentRecord, checklist: Checklist, items: Sequence[ItemResult], side: str = ""
    ) -> DocumentReview:
        return cls(
            record.doc_id,
            record.title,
            record.content_sha256,
            checklist.name,
            checklist.version,
            tuple(items),
            Path(record.path).name,
            side.strip(),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "doc_id": self.doc_id,
            "title": self.title,
            "content_sha256": self.content_sha256,
            "checklist": self.checklist,
            "checklist_version": self.checklist_version,
            "file_name": self.file_name,
            "side": self.side or None,
            "items": [i.to_json() for i in self.items],
        }


@dataclass(frozen=True, slots=True)
class ItemDone:
    """One checklist item finished for one contract, reported by a review run as soon as it is
    final (``ItemCallback``), so a caller can show it before the run ends.

    ``result`` is the caller's own copy, as stored: no reviewer's correction attached and no
    playbook flag (the caller adds them, as it does for ``review_evidence``'s results)."""

    doc_id: str
    index: int  # the item's place in the checklist: the grid's row
    result: ItemResult


ItemCallback = Callable[[ItemDone], None]


def no_items(_: ItemDone) -> None:
    """The default item callback: report nothing."""


def item_done(doc_id: str, index: int, result: ItemResult) -> ItemDone:
    """``result`` reported for ``doc_id``: a copy, so the run and the caller never share it."""
    return ItemDone(doc_id, index, dataclasses.replace(result))


def item_evidence(library: Library, doc_id: str, item: ChecklistItem) -> tuple[list[Evidence], int]:
    """The best passages for ``item`` in ``doc_id`` (at most ``EVIDENCE``, best first) and how many
    distinct passages the queries consulted."""
    evidence, consulted, _ = scored_evidence(library, doc_id, item)
    return evidence, consulted


def scored_evidence(library: Library, doc_id: str, item: ChecklistItem) -> tuple[list[Evidence], int, float | None]:
    """``item_evidence`` and the clause ranker's best score among them (None without the ranker)."""
    scores: dict[int, float] = {}
    found: dict[int, Evidence] = {}
    for query in (*item.queries, item.question):
        results = search(library, query, doc_ids=[doc_id], k=PER_QUERY, params=WITHOUT_RANKER)
        for rank, result in enumerate(results, start=1):
            scores[result.passage_id] = scores.get(result.passage_id, 0.0) + 1.0 / (RANK_K + rank)
            found.setdefault(
                result.passage_id,
                Evidence(result.passage_id, result.page_start, result.page_end, result.text, result.heading),
            )
    for passage_id in headed_by(library, item.category, list(scores)):
        scores[passage_id] *= HEADING_BOOST
    fused = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
    # The clause ranker reads the item's question against the item's best passages (once per
    # item: each query's search above leaves it out), which also says how likely the clause is there.
    ranked, ranker_scores = rerank(library, item.question, fused, RERANK_TOP, DEFAULT_PARAMS.rerank_weight)
    best = without_page_furniture(library, doc_id, [found[pid] for pid, _ in ranked[:EVIDENCE]])
    best = word_evidence(library, doc_id, best, " ".join((item.question, *item.queries)))
    return best, len(found), max(ranker_scores.values(), default=None)


def word_evidence(library: Library, doc_id: str, evidence: list[Evidence], query: str) -> list[Evidence]:
    """A Word document's ``evidence`` named, and quoted, by the paragraphs of each passage that
    hold the item's words (``query``): "§ 12.6 Assignment", not the passage's first clause."""
    if file_types(library, [doc_id]).get(doc_id) != WORD:
        return evidence
    paragraphs = word_paragraphs(library, doc_id)
    return [named_by(e, paragraphs, *matched_paragraphs(paragraphs, e.page_start, e.page_end, query)) for e in evidence]


def named_by(evidence: Evidence, paragraphs: Sequence[DocxParagraph], first: int, last: int) -> Evidence:
    """A Word passage's ``evidence`` named, highlighted and quoted by its paragraphs ``first``..``last``
    (all of them: named by its locator alone)."""
    locator = str(locate(paragraphs, first, last))
    if (first, last) == (evidence.page_start, evidence.page_end):
        return dataclasses.replace(evidence, locator=locator, match_first=0, match_last=0, quote="")
    quote = "\n".join(
        f"{p.number} {p.text}".strip() if p.number else p.text for p in paragraphs if first <= p.index <= last
    )
    return dataclasses.replace(evidence, locator=locator, match_first=first, match_last=last, quote=quote)


def without_page_furniture(library: Library, doc_id: str, evidence: list[Evidence]) -> list[Evidence]:
    """``evidence`` with the running headers, footers and page numbers inside its passages left
    out. A contract's passages keep them (only a filing's are cut without them, at ingest), so a
    clause across a page break read "Products shall be 5 Source: WATER NOW, INC., 10-Q, 11/20/2019
    delivered…" in the panel and the exports; the citation highlight leaves them out the same way."""
    stored = passages_by_id(library, [e.passage_id for e in evidence])
    pages: dict[int, str | None] = {}

    def page_text(page: int) -> str | None:
        if page not in pages:
            try:
                pages[page] = library.page_text(doc_id, page) if page >= 1 else None
            except LibraryError:
                pages[page] = None
        return pages[page]

    cleaned = []
    for item in evidence:
        passage = stored.get(item.passage_id)
        pieces: list[str] = []
        for page, start, end in passage.spans if passage is not None else ():
            raw = page_text(page)
            if raw is None:
                continue
            near = range(page - NEIGHBOUR_PAGES, page + NEIGHBOUR_PAGES + 1)
            neighbours = [text for n in near if n != page and (text := page_text(n)) is not None]
            body = body_span(raw, start, end, neighbours)
            if body is not None:
                pieces.append(raw[body[0] : body[1]])
        text = "\n".join(pieces)
        cleaned.append(dataclasses.replace(item, text=text) if text.strip() else item)
    return cleaned


def headed_by(library: Library, category: str, passage_ids: Sequence[int]) -> list[int]:
    """The passages among ``passage_ids`` whose heading path holds every word of ``category``
    (words of three letters or more, stemmed as the full-text index stems them)."""
    words = [w for w in fts_terms(re.sub(r"[/-]", " ", category)) if len(w) > 2]
    if not words or not passage_ids:
        return []
    match = "{heading} : (" + " AND ".join(fts_string(w) for w in words) + ")"
    return passages_matching(library, match, passage_ids)


def check_reviewable(library: Library, doc_ids: Sequence[str]) -> None:
    """Raises ``LibraryError`` naming the first document that cannot be reviewed yet."""
    for doc_id in doc_ids:
        record = library.document(doc_id)  # DocumentNotFound names the id
        if record.state != "ready":
            raise LibraryError(
                f"{record.title} ({doc_id}) is still being added to the library ({record.state}). "
                "Wait until it is indexed, then review it."
            )
        if record.passages == 0:
            raise LibraryError(f"{record.title} ({doc_id}) has no text to review (a scanned PDF needs OCR first).")


def review_evidence(
    library: Library,
    doc_ids: Sequence[str],
    checklist: Checklist,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken = NEVER_CANCELLED,
    side: str = "",
    *,
    on_item: ItemCallback = no_items,
) -> list[DocumentReview]:
    """The evidence for every item of ``checklist`` in every document (one after the other);
    ``side`` is kept with each review (flags are set by the caller, with the corrections).
    ``on_item`` receives each item as soon as its evidence is found."""
    check_reviewable(library, doc_ids)
    total = len(doc_ids) * len(checklist.items)
    reviews = []
    absence = absence_model()
    started = time.perf_counter()  # the rate of cells found, so the progress line has a time left
    for n_doc, doc_id in enumerate(doc_ids):
        record = library.document(doc_id)
        items = []
        for n_item, item in enumerate(checklist.items):
            cancel.raise_if_cancelled()
            evidence, consulted, score = scored_evidence(library, doc_id, item)
            absent = absence.is_absent(score, item.category)
            status = "absent" if absent else "evidence"
            result = ItemResult(item.id, item.category, item.question, item.type, status, evidence, consulted)
            result.clause_score = score
            if absent and score is not None:
                result.reason = absence.reason(score, item.category)
            items.append(result)
            on_item(item_done(doc_id, n_item, items[-1]))
            done = n_doc * len(checklist.items) + n_item + 1
            elapsed = time.perf_counter() - started
            rate = done / elapsed if elapsed > 0 else None
            progress(Progress(Stage.FIND_CLAUSES, done, total, f"{record.title}: {item.category}", rate))
        reviews.append(DocumentReview.of(record, checklist, items, side))
    return reviews

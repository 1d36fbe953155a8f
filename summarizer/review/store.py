"""Contract review results kept in the library, and the reviewer's corrections beside them.

Each checklist item's result is written as soon as the model has finished it, under a key of
document, checklist name and version, model (its file's sha256), prompt version and the
document's passages fingerprint. A second run with the same key reads the results back without
asking the model; a run stopped half-way asks only the items not stored. The playbook flag is
not stored: it is computed when a result is read (``summarizer.review.playbook.flag_results``), from
the stored value or the reviewer's corrected one.

Corrections (a value, accepted, a note) are kept per document, checklist name and item, apart
from the results, so no re-run overwrites them and they hold whichever model answered. An
acceptance holds while the model's value is the one the reviewer accepted.

Evidence-only runs are stored too (``store_evidence``), so the window shows them again after a
checklist switch or a restart, with their corrections: under the model name
``evidence/<embedding model>/r<EVIDENCE_VERSION>`` and prompt version 0, so a new retrieval
(bump ``EVIDENCE_VERSION``), another embedding model or re-cut passages never show stale ones, and
``latest_model`` (the model answers) never picks them.

The window's review grid needs two calls: ``summarizer.review.item_answers.stored_review`` (a
document's stored grid for a checklist) and ``record_correction`` here.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from summarizer.library.storage.document_text import passages_fingerprint
from summarizer.library.storage.store import Library, now_iso, transaction
from summarizer.review.absence import absent_reason
from summarizer.review.checklist import Checklist, ChecklistItem
from summarizer.review.evidence import Correction, DocumentReview, Evidence, ItemResult

UNCHANGED: Any = object()
"""``record_correction``'s default for a field the call leaves as it was."""


@dataclass(frozen=True, slots=True)
class ReviewKey:
    """What a stored result depends on."""

    doc_id: str
    checklist: str
    checklist_version: str
    model: str  # summarizer.llm.model_identity.engine_identity: the model file's sha256
    prompt_version: int
    passages_key: str

    def where(self) -> tuple[str, list[Any]]:
        return (
            "doc_id = ? AND checklist = ? AND checklist_version = ? AND model = ? AND prompt_version = ? "
            "AND passages_key = ?",
            [self.doc_id, self.checklist, self.checklist_version, self.model, self.prompt_version, self.passages_key],
        )


def review_key(library: Library, doc_id: str, checklist: Checklist, model: str, prompt_version: int) -> ReviewKey:
    return ReviewKey(
        doc_id, checklist.name, checklist.version, model, prompt_version, passages_fingerprint(library, doc_id)
    )


EVIDENCE_VERSION = 2  # bump when the evidence search ranks differently (2: the clause ranker)
EVIDENCE_PROMPT_VERSION = 0  # a model's prompts count from 1


def evidence_key(library: Library, doc_id: str, checklist: Checklist) -> ReviewKey:
    """Where an evidence-only run of ``checklist`` over ``doc_id`` is stored."""
    from summarizer.search.clause_ranker import ranker_tag

    model = f"evidence/{library.embedding_model or 'none'}/r{EVIDENCE_VERSION}/{ranker_tag()}"
    return review_key(library, doc_id, checklist, model, EVIDENCE_PROMPT_VERSION)


def store_evidence(library: Library, checklist: Checklist, reviews: Sequence[DocumentReview]) -> None:
    """Keep evidence-only runs, replacing the document's earlier one for the same key."""
    with transaction(library.db):
        for review in reviews:
            key = evidence_key(library, review.doc_id, checklist)
            for result in review.items:
                store_result(library, key, result)


def _result_json(result: ItemResult) -> str:
    return json.dumps(
        {
            "status": result.status,
            "answer": result.answer,
            "value": result.value,
            "reason": result.reason,
            "quote": result.quote,
            "citations": result.citations,
            "evidence": [e.to_json() for e in result.evidence],
            "passages_read": result.passages_read,
            "clause_score": result.clause_score,
        }
    )


def _result(item: ChecklistItem, text: str) -> ItemResult:
    data = json.loads(text)
    if data["status"] == "absent":  # written again: one stored before issue 42 says "99% likely absent"
        data["reason"] = absent_reason(data.get("clause_score"), item.category)
    return ItemResult(
        item.id,
        item.category,
        item.question,
        item.type,
        data["status"],
        [Evidence(**e) for e in data["evidence"]],
        data["passages_read"],
        data["answer"],
        data["value"],
        None,
        data["reason"],
        data["quote"],
        data["citations"],
        cached=True,
        clause_score=data.get("clause_score"),
    )


def store_result(library: Library, key: ReviewKey, result: ItemResult) -> None:
    """Write ``result`` (its flag is left out: computed when read)."""
    library.db.execute(
        "INSERT OR REPLACE INTO review_results (doc_id, checklist, checklist_version, model, prompt_version, "
        "passages_key, item_id, status, result, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            key.doc_id,
            key.checklist,
            key.checklist_version,
            key.model,
            key.prompt_version,
            key.passages_key,
            result.item_id,
            result.status,
            _result_json(result),
            now_iso(),
        ],
    )


def stored_results(library: Library, key: ReviewKey, items: Sequence[ChecklistItem]) -> dict[str, ItemResult]:
    """The stored results of ``items`` under ``key`` by item id (``cached`` set, no flags)."""
    where, args = key.where()
    rows = library.db.execute(f"SELECT item_id, result FROM review_results WHERE {where}", args).fetchall()
    by_id = {item.id: item for item in items}
    return {row[0]: _result(by_id[row[0]], row[1]) for row in rows if row[0] in by_id}


def forget_results(library: Library, key: ReviewKey) -> int:
    """Drop the results stored under ``key`` (``--fresh``); corrections stay. Returns how many."""
    where, args = key.where()
    with transaction(library.db):
        return library.db.execute(f"DELETE FROM review_results WHERE {where}", args).rowcount


def forget_stale_results(library: Library, doc_id: str) -> None:
    """Drop the document's results stored under passages it no longer has (it was re-cut)."""
    library.db.execute(
        "DELETE FROM review_results WHERE doc_id = ? AND passages_key != ?",
        [doc_id, passages_fingerprint(library, doc_id)],
    )


# --- corrections ------------------------------------------------------------------------


def corrections(library: Library, doc_id: str, checklist: str) -> dict[str, tuple[Correction, str | None]]:
    """The document's corrections for the checklist named ``checklist``, by item id, each with
    the model value the reviewer accepted."""
    rows = library.db.execute(
        "SELECT item_id, value, accepted, note, updated_at, accepted_value FROM review_corrections "
        "WHERE doc_id = ? AND checklist = ?",
        [doc_id, checklist],
    ).fetchall()
    return {row[0]: (Correction(row[1], bool(row[2]), row[3], row[4]), row[5]) for row in rows}


def attach_corrections(library: Library, review: DocumentReview) -> None:
    """Set each item's ``correction`` from the library (an acceptance of a model value that has
    since changed no longer counts as accepted)."""
    found = corrections(library, review.doc_id, review.checklist)
    for result in review.items:
        if result.item_id not in found:
            result.correction = None
            continue
        correction, accepted_value = found[result.item_id]
        if correction.accepted and correction.value is None and accepted_value != result.value:
            correction = Correction(correction.value, False, correction.note, correction.updated_at)
        result.correction = correction


def record_correction(
    library: Library,
    doc_id: str,
    checklist: Checklist,
    item_id: str,
    *,
    value: str | None = UNCHANGED,
    accepted: bool = UNCHANGED,
    note: str = UNCHANGED,
    model_value: str | None = None,
) -> Correction:
    """Record the reviewer's corrected ``value`` (None or "" removes it: the model's shows again),
    ``accepted`` and ``note`` for one cell; fields not given keep what was recorded before.
    ``model_value``: the model's value the reviewer saw, which an acceptance is tied to."""
    library.document(doc_id)  # DocumentNotFound names the id
    checklist.item(item_id)  # KeyError for an item the checklist lacks
    now = now_iso()
    with transaction(library.db):
        row = library.db.execute(
            "SELECT value, accepted, note, accepted_value FROM review_corrections "
            "WHERE doc_id = ? AND checklist = ? AND item_id = ?",
            [doc_id, checklist.name, item_id],
        ).fetchone()
        old_value, old_accepted, old_note, old_accepted_value = row if row else (None, 0, "", None)
        new_value = old_value if value is UNCHANGED else (value or None)
        new_accepted = bool(old_accepted) if accepted is UNCHANGED else bool(accepted)
        new_note = old_note if note is UNCHANGED else note
        accepted_value = model_value if accepted is not UNCHANGED else old_accepted_value
        library.db.execute(
            "INSERT OR REPLACE INTO review_corrections (doc_id, checklist, item_id, value, accepted, "
            "accepted_value, note, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [doc_id, checklist.name, item_id, new_value, int(new_accepted), accepted_value, new_note, now],
        )
    return Correction(new_value, new_accepted, new_note, now)


# --- the grid ---------------------------------------------------------------------------


def latest_model(library: Library, doc_id: str, checklist: Checklist, prompt_version: int) -> str | None:
    """The model whose results for this document and checklist were stored last."""
    row = library.db.execute(
        "SELECT model FROM review_results WHERE doc_id = ? AND checklist = ? AND checklist_version = ? "
        "AND prompt_version = ? AND passages_key = ? ORDER BY created_at DESC, rowid DESC LIMIT 1",
        [doc_id, checklist.name, checklist.version, prompt_version, passages_fingerprint(library, doc_id)],
    ).fetchone()
    return str(row[0]) if row else None

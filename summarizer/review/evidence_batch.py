"""An evidence-only review of many contracts (a data room, issue 46) that keeps each contract's
answers as soon as it is done and, run again, reads back the contracts already done.

``review_evidence`` finds every contract's evidence and returns it at the end; over 449
contracts (about 10 s each on two cores) a stop or a crash would lose an hour. Here each contract
is one step: its stored evidence-only run is read back when it is complete for today's search and
passages (``stored_evidence_review``), else found and stored in its own transaction before the
next one starts. Progress counts cells over the whole set, with the contracts read back counted
as done, so the time left is the time of the contracts still to do.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from inference.cancel import NEVER_CANCELLED, CancelToken
from inference.progress import Progress, ProgressCallback, Stage, no_progress
from summarizer.library.storage.store import Library
from summarizer.review.checklist import Checklist
from summarizer.review.evidence import DocumentReview, ItemCallback, check_reviewable, no_items, review_evidence
from summarizer.review.item_answers import stored_evidence_review
from summarizer.review.store import store_evidence

ReviewCallback = Callable[[DocumentReview], None]


def no_reviews(_: DocumentReview) -> None:
    """The default ``on_review``: nothing to do."""


def review_evidence_stored(
    library: Library,
    doc_ids: Sequence[str],
    checklist: Checklist,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken = NEVER_CANCELLED,
    side: str = "",
    *,
    fresh: bool = False,
    on_item: ItemCallback = no_items,
    on_review: ReviewCallback = no_reviews,
    keep: bool = True,
) -> list[DocumentReview]:
    """Each contract's evidence for ``checklist``: read back when stored (unless ``fresh``), else
    found and stored before the next contract. ``on_review`` receives each contract's review as
    soon as it is stored or read (the window's table fills a row at a time); ``on_item`` each item
    found. A stop (``Cancelled``) keeps every contract finished before it. Reviews come back
    without corrections or flags: the caller adds them for the side it shows. ``keep=False``
    returns none of them (the window reads its table back from the library: 449 reviews held
    twice took ~300 MB of its memory)."""
    check_reviewable(library, doc_ids)
    n_items = len(checklist.items)
    total = len(doc_ids) * n_items
    reviews: list[DocumentReview] = []
    started, found_cells = time.perf_counter(), 0
    for n_doc, doc_id in enumerate(doc_ids):
        cancel.raise_if_cancelled()
        offset = n_doc * n_items
        stored = None if fresh else stored_evidence_review(library, doc_id, checklist, side)
        if stored is not None:
            if keep:
                reviews.append(stored)
            on_review(stored)
            progress(Progress(Stage.FIND_CLAUSES, offset + n_items, total, f"{stored.title}: stored", None))
            continue

        def overall(step: Progress, offset: int = offset, before: int = found_cells) -> None:
            elapsed = time.perf_counter() - started
            rate = (before + step.done) / elapsed if elapsed > 0 else None
            progress(Progress(step.stage, offset + step.done, total, step.message, rate))

        (review,) = review_evidence(library, [doc_id], checklist, overall, cancel, side, on_item=on_item)
        store_evidence(library, checklist, [review])  # one transaction: the contract is kept whole or not at all
        found_cells += n_items
        if keep:
            reviews.append(review)
        on_review(review)
    return reviews

"""Comparing two versions of a document: the entry point of ``summarizer.compare``."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from inference.cancel import CancelToken
from inference.progress import Progress, ProgressCallback, Stage, no_progress
from summarizer.compare.alignment import Pair, align
from summarizer.compare.differences import Change, classify
from summarizer.compare.segmentation import common_segmentation
from summarizer.library.cutting.clause_units import ClauseUnit, document_clauses

IDENTICAL = "identical"
DIFFERENT_DOCUMENTS = "different documents"
VERSIONS = "versions"
MIN_SHARED_SHARE = 0.3  # of clauses paired, below which two documents are not versions of one


@dataclass(frozen=True, slots=True)
class Comparison:
    verdict: str  # IDENTICAL, DIFFERENT_DOCUMENTS or VERSIONS
    old_clauses: tuple[ClauseUnit, ...]
    new_clauses: tuple[ClauseUnit, ...]
    changes: tuple[Change, ...]  # empty unless VERSIONS
    paired_share: float
    # Every clause of both versions paired (or not), in the new version's order: what a redline
    # writes out, unchanged clauses included. Empty unless VERSIONS.
    pairs: tuple[Pair, ...] = ()

    @property
    def message(self) -> str:
        if self.verdict == IDENTICAL:
            return "The two versions are identical: no clause was added, removed, moved or changed."
        if self.verdict == DIFFERENT_DOCUMENTS:
            return (
                f"These look like different documents, not two versions of one: only {self.paired_share:.0%} "
                "of their clauses correspond. Pick two versions of the same contract."
            )
        shown = [c for c in self.changes if not c.hidden]
        material = sum(1 for c in shown if c.material)
        return f"{len(shown)} changes, {material} marked material."


def compare_clauses(
    old: list[ClauseUnit],
    new: list[ClauseUnit],
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
) -> Comparison:
    token = cancel or CancelToken()
    progress(Progress(Stage.COMPARE_CLAUSES, 0, 2, "Aligning the clauses"))
    old, new = common_segmentation(old, new)
    pairs = align(old, new, token.raise_if_cancelled)
    token.raise_if_cancelled()
    progress(Progress(Stage.COMPARE_CLAUSES, 1, 2, "Classifying the differences"))
    paired = sum(1 for p in pairs if p.old is not None and p.new is not None)
    share = paired / max(1, min(len(old), len(new)))
    changes = classify(pairs)
    progress(Progress(Stage.COMPARE_CLAUSES, 2, 2, "Compared"))
    if share < MIN_SHARED_SHARE and min(len(old), len(new)) >= 3:
        verdict = DIFFERENT_DOCUMENTS
        changes = []
    elif not [c for c in changes if not c.hidden]:
        verdict = IDENTICAL
    else:
        verdict = VERSIONS
    kept_pairs = tuple(pairs) if verdict == VERSIONS else ()
    return Comparison(verdict, tuple(old), tuple(new), tuple(changes), share, kept_pairs)


def compare_pages(
    old_pages: Iterable[tuple[int, str]],
    new_pages: Iterable[tuple[int, str]],
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
) -> Comparison:
    """Compare two documents given as ``(page_number, raw_text)`` in page order."""
    return compare_clauses(document_clauses(old_pages), document_clauses(new_pages), progress, cancel)

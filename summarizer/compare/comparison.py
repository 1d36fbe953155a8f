"""Comparing two versions of a document: the entry point of ``summarizer.compare``."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from inference.cancel import CancelToken
from inference.progress import Progress, ProgressCallback, Stage, no_progress
from summarizer.compare.alignment import Pair, align
from summarizer.compare.differences import Change, classify
from summarizer.compare.inline_lists import join_removed_items
from summarizer.compare.segmentation import common_segmentation
from summarizer.library.cutting.clause_units import ClauseUnit, document_clauses

IDENTICAL = "identical"
DIFFERENT_DOCUMENTS = "different documents"
VERSIONS = "versions"
MIN_SHARED_SHARE = 0.3  # of clauses paired, below which two documents are not versions of one
AMENDMENT_SIZE = 0.4  # an amendment has at most this share of the agreement's clauses ...
AMENDMENT_WORDS = 2  # ... and says "amend", "deleted and replaced" and the like this often
_AMENDING = re.compile(
    r"\b(amendments?|amends|(?:is|are) (?:hereby )?amended|deleted and replaced|deleted in (?:its|their) entirety|"
    r"replaced (?:in its entirety )?(?:with|by) the following|(?:is|are) hereby added)\b",
    re.IGNORECASE,
)
_SECTION_NUMBER = r"\d+(?:\.\d+)*(?:\([a-z0-9]+\))*"
# "Section 9.2", "Sections 2.1, 2.2 and 3.1", "§ 4(a)"
_SECTION_REFERENCE = re.compile(
    rf"(?:\bSections?|\bArticles?|§§?)\s*({_SECTION_NUMBER}(?:\s*(?:,|and|or|&)\s*{_SECTION_NUMBER})*)"
)


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
    # "new" (or "old") when that document is an amendment of the other, not a version of it
    # (verdict DIFFERENT_DOCUMENTS), with the sections it names.
    amendment: str = ""
    amended_sections: tuple[str, ...] = ()
    # What the reader should know about the inputs: tracked changes read as accepted, pages read
    # by OCR with low confidence (summarizer.compare.library_versions).
    notes: tuple[str, ...] = ()

    @property
    def message(self) -> str:
        if self.verdict == IDENTICAL:
            return "The two versions are identical: no clause was added, removed, moved or changed."
        if self.verdict == DIFFERENT_DOCUMENTS and self.amendment:
            other = "old" if self.amendment == "new" else "new"
            sections = ", ".join(self.amended_sections[:12]) or "none by number"
            return (
                f"The {self.amendment} document looks like an amendment to the {other} one, not a version of it "
                f"(it amends sections: {sections}): listed clause by clause, most of the agreement would read as "
                "removed. Compare the agreement with a version that has the amendment worked in (a restated "
                "agreement), or read the amendment beside the sections it names."
            )
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
    pairs = join_removed_items(align(old, new, token.raise_if_cancelled))
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
    amendment, sections = "", tuple[str, ...]()
    if verdict != IDENTICAL:
        for side, short, long in (("new", new, old), ("old", old, new)):
            found = amended_sections(short, long)
            if found is not None:
                amendment, sections, verdict, changes = side, found, DIFFERENT_DOCUMENTS, []
                break
    kept_pairs = tuple(pairs) if verdict == VERSIONS else ()
    return Comparison(verdict, tuple(old), tuple(new), tuple(changes), share, kept_pairs, amendment, sections)


def amended_sections(short: Sequence[ClauseUnit], long: Sequence[ClauseUnit]) -> tuple[str, ...] | None:
    """The sections ``short`` names when it reads as an amendment of ``long`` (a small share of its
    clauses, and amending words: "Section 9.2 is deleted and replaced with the following"); None
    when it does not."""
    if len(long) < 5 or len(short) > AMENDMENT_SIZE * len(long):
        return None
    text = " ".join(clause.text for clause in short)
    if len(_AMENDING.findall(text)) < AMENDMENT_WORDS:
        return None
    numbers = [n for group in _SECTION_REFERENCE.findall(text) for n in re.findall(_SECTION_NUMBER, group)]
    return tuple(dict.fromkeys(numbers))


def compare_pages(
    old_pages: Iterable[tuple[int, str]],
    new_pages: Iterable[tuple[int, str]],
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
) -> Comparison:
    """Compare two documents given as ``(page_number, raw_text)`` in page order."""
    return compare_clauses(document_clauses(old_pages), document_clauses(new_pages), progress, cancel)

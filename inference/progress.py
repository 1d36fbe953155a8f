"""The one progress value every long operation reports through its callback."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum


class Stage(StrEnum):
    """The steps a long operation reports, shared by the floors: the window and the terminal
    match these members, never their wording. The values are the words shown and written
    by ``--json``, so they stay as they are."""

    # inference: model files and engines
    DOWNLOAD = "download"
    VERIFY = "verify"
    HASH_MODEL = "hashing model"
    LOAD = "load"
    GENERATE = "generate"
    # summarizer: adding a document
    READ_PAGES = "Reading pages"
    RECOGNIZE_PAGES = "Recognizing pages"  # OCR of scanned pages
    CUT_PASSAGES = "Cutting passages"
    LOAD_EMBEDDER = "Loading the embedding model"
    EMBED_PASSAGES = "Embedding passages"
    UPDATE_INDEX = "Updating the vector index"
    ADD_FILES = "Adding files"  # a batch (a folder, a data room): files done of the batch's
    # summarizer: reindexing and re-embedding the library
    RECUT_PASSAGES = "Re-cutting passages"
    REEMBED_PASSAGES = "Re-embedding passages"
    # summarizer: summaries
    COUNT_TOKENS = "counting tokens"
    SUMMARIZE_SEGMENTS = "summarizing segments"
    REDUCE = "reducing"
    SUMMARIZED = "summarized"
    # summarizer: contract review
    FIND_CLAUSES = "Finding the clauses"
    REVIEW = "Reviewing"
    # answers
    READ_PASSAGES = "Reading the passages"
    READ_DOCUMENT = "Reading the document"
    # summarizer: comparing two versions
    COMPARE_CLAUSES = "Comparing clauses"
    # summarizer: a Word document laid out as pages by LibreOffice, for the viewer
    RENDER_PAGES = "Laying out pages"


ETA_MIN_FRACTION = 0.1  # of the work done before a time left is estimated


@dataclass(frozen=True, slots=True)
class Progress:
    """A snapshot of a long operation.

    ``done``/``total`` count work units of ``stage`` (pages, passages, segments, tokens);
    ``total`` is ``None`` when unknown. ``rate`` is units per second, when measured.
    """

    stage: Stage
    done: int = 0
    total: int | None = None
    message: str = ""
    rate: float | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.stage, Stage):  # a free string would be matched by no one
            raise TypeError(f"progress stage {self.stage!r} is not a Stage")

    @property
    def fraction(self) -> float | None:
        if not self.total:
            return None
        return min(1.0, self.done / self.total)

    def eta_seconds(self) -> float | None:
        """Seconds left at the measured rate; None until a tenth of the work is done (the first
        units, a cover page or the loading, say little about the rest: an early estimate was
        less than half the time it took)."""
        if self.total is None or not self.rate or self.rate <= 0:
            return None
        if self.done < self.total and self.done < ETA_MIN_FRACTION * self.total:
            return None
        return max(0.0, (self.total - self.done) / self.rate)


ProgressCallback = Callable[[Progress], None]


def no_progress(_: Progress) -> None:
    """The default callback: report nothing."""

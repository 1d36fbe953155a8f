"""Comparing two documents of the library: their stored clauses, or their pages cut again for a
document stored before clauses were kept (until ``pagewise reindex`` stores them)."""

from __future__ import annotations

import dataclasses
import json

from inference.cancel import CancelToken
from inference.progress import ProgressCallback, no_progress
from summarizer.compare.comparison import Comparison, compare_clauses
from summarizer.errors import LibraryError
from summarizer.library.cutting.clause_units import ClauseUnit, document_clauses
from summarizer.library.reading.ocr_pages import LOW_CONFIDENCE, outcome, usable_text
from summarizer.library.reading.page_furniture import without_furniture
from summarizer.library.storage.document_text import read_pages
from summarizer.library.storage.store import Library
from summarizer.page_labels import page_label


def stored_clauses(library: Library, doc_id: str) -> list[ClauseUnit]:
    """The document's clauses in order; cut from its stored pages when none are stored."""
    document = library.document(doc_id)  # DocumentNotFound: says which id
    if document.state != "ready":
        raise LibraryError(
            f"{document.title} is still being added to the library ({document.state}). "
            "Wait until it is ready, then compare again."
        )
    rows = library.db.execute(
        'SELECT seq, label, number, title, path, page_start, start, page_end, "end", text FROM clauses '
        "WHERE doc_id = ? ORDER BY seq",
        [doc_id],
    ).fetchall()
    if rows:
        return [
            ClauseUnit(
                index=int(r[0]),
                label=str(r[1]),
                number=tuple(str(r[2]).split(".")) if r[2] else (),
                title=str(r[3]),
                path=tuple(json.loads(r[4])),
                page_start=int(r[5]),
                start=int(r[6]),
                page_end=int(r[7]),
                end=int(r[8]),
                text=str(r[9]),
            )
            for r in rows
        ]
    pages = read_pages(library, doc_id)
    return document_clauses((n, t) for n, t in sorted(pages.items()) if usable_text(t))


def clause_page_texts(library: Library, doc_id: str) -> dict[int, str]:
    """The page texts the document's stored clauses were cut from, by page, for a change's spans
    (``highlights.change_spans``): a PDF's readable pages with their running headers, footers and
    page numbers blanked as ingest blanked them (``ingest_cut``: the same length, so an offset into
    them is an offset into the stored page); a Word document's paragraphs, or pages whose clauses
    were never stored (cut again from the pages as they are), as stored. Read from the stored
    page, a PDF's span fell words before the change where a header opened the page."""
    pages = read_pages(library, doc_id)
    if not pages or library.document(doc_id).file_type == "docx":  # none: no longer in the library
        return pages
    if library.db.execute("SELECT 1 FROM clauses WHERE doc_id = ? LIMIT 1", [doc_id]).fetchone() is None:
        return pages
    readable = [(n, t) for n, t in sorted(pages.items()) if usable_text(t)]
    return {**pages, **dict(without_furniture(readable))}


def compare_documents(
    library: Library,
    old_id: str,
    new_id: str,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
) -> Comparison:
    comparison = compare_clauses(stored_clauses(library, old_id), stored_clauses(library, new_id), progress, cancel)
    notes = [*input_notes(library, old_id, "old"), *input_notes(library, new_id, "new")]
    return dataclasses.replace(comparison, notes=tuple(notes)) if notes else comparison


def input_notes(library: Library, doc_id: str, side: str) -> list[str]:
    """What the reader should know about one version: a Word file's tracked changes (compared as
    accepted) and pages read by OCR with low confidence (differences there may be misreadings)."""
    document = library.document(doc_id)
    notes = []
    if document.tracked_changes:
        notes.append(
            f"The {side} version ({document.title}) still holds {document.tracked_changes} tracked changes: it was "
            "compared as if they were all accepted. Accept or reject them in Word first if that is not the "
            "text you mean."
        )
    hard = outcome(library, doc_id).hard_to_read
    if hard:
        pages = ", ".join(f"{page_label(page)} ({confidence:.2f})" for page, confidence in sorted(hard.items())[:10])
        more = f" and {len(hard) - 10} more" if len(hard) > 10 else ""
        notes.append(
            f"The {side} version ({document.title}) is scanned and some pages were hard to read (OCR confidence "
            f"below {LOW_CONFIDENCE:.2f}): {pages}{more}. Differences on these pages may come from reading errors, "
            "not from edits: check them against the scan."
        )
    return notes

"""Re-cutting the passages of documents already in the library.

When the way passages are cut changes (``summarizer.library.storage.store.PASSAGE_FORMAT``), documents
added by an older Pagewise keep working (search reads their old passages) but are listed by
``documents_needing_reindex``; ``reindex`` cuts them again from the page texts stored in the
library (the PDFs are not read again), embeds the new passages and updates the vector index.

Each document is one resumable job (``Ingestor.recut``): its ``state`` records the step, so a
cancelled or killed reindex is finished by the next one (or by ``pagewise ingest`` of the same
file). Progress counts documents; cancellation is checked between documents and between
embedding batches.

``reindex_library`` is the whole job behind ``pagewise reindex``: the re-cut, then, when the
configured embedding model is not the library's, the re-embed of ``summarizer.library.vectors.reembed``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from inference.cancel import NEVER_CANCELLED, CancelToken
from inference.progress import Progress, ProgressCallback, Stage, no_progress
from summarizer.library.ingest import IngestOptions, Ingestor
from summarizer.library.storage.store import PASSAGE_FORMAT, Library
from summarizer.library.vectors.reembed import ReembedResult, reembed


@dataclass(frozen=True, slots=True)
class ReindexResult:
    doc_id: str
    title: str
    status: str  # reindexed | incomplete (its pages were never all read: ingest the file again) | ocr | file_missing
    passages_before: int
    passages: int
    passage_format: int
    note: str = ""  # why a document was left as it was

    def to_json(self) -> dict[str, Any]:
        return {
            "doc_id": self.doc_id,
            "title": self.title,
            "status": self.status,
            "passages_before": self.passages_before,
            "passages": self.passages,
            "passage_format": self.passage_format,
        } | ({"note": self.note} if self.note else {})


def documents_needing_ocr(library: Library) -> list[str]:
    """Documents with pages that need OCR and that OCR has not tried yet (added before it, or
    with ``--ocr never``)."""
    tried = {
        (str(r[0]), int(r[1])) for r in library.db.execute("SELECT doc_id, page FROM page_ocr WHERE status = 'failed'")
    }
    return [
        d.doc_id
        for d in library.documents()
        if d.state == "ready" and any((d.doc_id, p) not in tried for p in d.ocr_pages)
    ]


def read_scanned_documents(
    library: Library,
    *,
    options: IngestOptions | None = None,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken = NEVER_CANCELLED,
) -> list[ReindexResult]:
    """OCR of every document that ``documents_needing_ocr`` lists; a document whose file is gone
    or changed is reported (status ``file_missing``) and left as it is."""
    from summarizer.errors import DocumentError

    ingestor = Ingestor(library, options, progress, cancel)
    results = []
    for doc_id in documents_needing_ocr(library):
        cancel.raise_if_cancelled()
        before = library.document(doc_id)
        try:
            ingestor.read_scanned(doc_id)
        except DocumentError as error:
            results.append(
                ReindexResult(
                    doc_id,
                    before.title,
                    "file_missing",
                    before.passages,
                    before.passages,
                    before.passage_format,
                    str(error),
                )
            )
            continue
        results.append(_result(doc_id, before.title, "ocr", before.passages, library))
    return results


def documents_needing_reindex(library: Library) -> list[str]:
    """Documents cut by an older passage format, or whose re-cut was interrupted."""
    return [d.doc_id for d in library.documents() if d.state != "extracting" and d.needs_reindex]


def documents_without_vectors(library: Library) -> list[str]:
    """Documents kept searchable by words only, the embedding model not loading when they were added."""
    return [d.doc_id for d in library.documents() if d.words_only]


def reindex(
    library: Library,
    doc_ids: Sequence[str] | None = None,
    *,
    options: IngestOptions | None = None,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken = NEVER_CANCELLED,
) -> list[ReindexResult]:
    """Re-cut ``doc_ids`` (even those already current), or every document that needs it."""
    if doc_ids is None:
        needing = documents_needing_reindex(library)
        targets = needing + [d for d in documents_without_vectors(library) if d not in needing]
    else:
        targets = [library.document(doc_id).doc_id for doc_id in doc_ids]  # DocumentNotFound early
    ingestor = Ingestor(library, options, progress, cancel)
    results: list[ReindexResult] = []
    for done, doc_id in enumerate(targets):
        cancel.raise_if_cancelled()
        before = library.document(doc_id)
        progress(Progress(Stage.RECUT_PASSAGES, done, len(targets), before.title))
        if before.state == "extracting":
            results.append(_result(before.doc_id, before.title, "incomplete", before.passages, library))
            continue
        ingestor.recut(doc_id)
        results.append(_result(doc_id, before.title, "reindexed", before.passages, library))
    progress(Progress(Stage.RECUT_PASSAGES, len(targets), len(targets)))
    return results


@dataclass(frozen=True, slots=True)
class LibraryReindex:
    documents: list[ReindexResult]
    reembedded: ReembedResult | None  # None: the library already uses the configured model


def reindex_library(
    library: Library,
    doc_ids: Sequence[str] | None = None,
    *,
    options: IngestOptions | None = None,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken = NEVER_CANCELLED,
    ocr: bool = False,
) -> LibraryReindex:
    """Re-cut what needs it (or ``doc_ids``), then re-embed the library with the configured
    model (``options.embedding_model`` or the settings') if it uses another one. ``ocr``: first
    read by OCR the scanned pages of documents stored without it. Resumable."""
    scanned = read_scanned_documents(library, options=options, progress=progress, cancel=cancel) if ocr else []
    documents = scanned + reindex(library, doc_ids, options=options, progress=progress, cancel=cancel)
    model = options.embedding_model if options else None
    return LibraryReindex(documents, reembed(library, model, progress=progress, cancel=cancel))


def _result(doc_id: str, title: str, status: str, passages_before: int, library: Library) -> ReindexResult:
    after = library.document(doc_id)
    return ReindexResult(doc_id, title, status, passages_before, after.passages, after.passage_format)


__all__ = [
    "PASSAGE_FORMAT",
    "LibraryReindex",
    "ReindexResult",
    "documents_needing_ocr",
    "documents_needing_reindex",
    "read_scanned_documents",
    "reindex",
    "reindex_library",
]

"""Switching the library to another embedding model: a resumable, cancellable re-embed.

The library's vectors all come from one model, ``Library.embedding_model``; ingest and re-cuts
embed with it whatever the settings name. ``reembed`` embeds every passage again with the
configured model into ``embeddings_staging``, document by document (each batch committed, so a
cancelled or killed job continues where it stopped). When every passage of the library has a
staged vector, one transaction swaps them into ``embeddings`` and sets the library's model.
Until then search uses the complete old vectors and their model (``reembed_status`` says how
far the job got). A document added or re-cut meanwhile has passages without staged vectors: the
job stages them before it swaps, so the index never mixes models.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from inference.cancel import NEVER_CANCELLED, CancelToken
from inference.progress import Progress, ProgressCallback, Stage, no_progress
from summarizer.library.storage.metadata_text import clean_metadata_text
from summarizer.library.storage.store import Library, transaction

if TYPE_CHECKING:
    from summarizer.library.vectors.embedder import Embedder

TARGET_KEY = "embedding_model_target"  # meta: the model an unfinished re-embed switches to
BATCH = 64  # passages embedded per transaction


@dataclass(frozen=True, slots=True)
class ReembedStatus:
    """An unfinished re-embed: search still uses ``model``."""

    model: str | None
    target: str
    documents_done: int
    documents: int

    def to_json(self) -> dict[str, Any]:
        return {
            "model": self.target,
            "searching_with": self.model,
            "documents_done": self.documents_done,
            "documents": self.documents,
        }


@dataclass(frozen=True, slots=True)
class ReembedResult:
    previous_model: str
    model: str
    documents: int
    passages: int  # embedded by this run (a resumed job counts only what was left)

    def to_json(self) -> dict[str, Any]:
        return {
            "reembedded": {
                "from": self.previous_model,
                "to": self.model,
                "documents": self.documents,
                "passages": self.passages,
            }
        }


def configured_model(name: str | None = None) -> str:
    """``name``, or the model the settings (``PAGEWISE_EMBEDDING_MODEL``) name, as stored."""
    from summarizer.library.vectors.embedding_model import canonical_name, configured_model_name

    return canonical_name(name or configured_model_name())


def _document_counts(library: Library, target: str) -> tuple[int, int]:
    """(documents whose passages all have a staged ``target`` vector, documents with passages)."""
    row = library.db.execute(
        "SELECT COUNT(*), COALESCE(SUM(staged = passages), 0) FROM (SELECT COUNT(*) AS passages, "
        "COUNT(s.passage_id) AS staged FROM passages p LEFT JOIN embeddings_staging s "
        "ON s.passage_id = p.passage_id AND s.model = ? GROUP BY p.doc_id)",
        [target],
    ).fetchone()
    return int(row[1]), int(row[0])


def reembed_status(library: Library) -> ReembedStatus | None:
    """How far an unfinished re-embed got, or None when none is under way."""
    target = library.meta(TARGET_KEY)
    if target is None or target == library.embedding_model:
        return None
    done, total = _document_counts(library, target)
    return ReembedStatus(library.embedding_model, target, done, total)


def needs_reembed(library: Library, model_name: str | None = None) -> bool:
    """The library has vectors of another model than ``model_name`` (default: the configured one)."""
    current = library.embedding_model
    return current is not None and current != configured_model(model_name)


def model_notice(library: Library, model_name: str | None = None) -> str | None:
    """One line for the user when the configured model is not the library's, else None."""
    current = library.embedding_model
    target = configured_model(model_name)
    if current is None or current == target:
        return None
    status = reembed_status(library)
    if status is not None and status.target == target:
        return (
            f"re-embedding the library with {target} is unfinished ({status.documents_done} of "
            f"{status.documents} documents); search uses {current} until it is done. "
            "Run `pagewise reindex` to finish it."
        )
    return (
        f"the library is embedded with {current}, but the settings name {target}; search uses {current}. "
        f"Run `pagewise reindex` to re-embed the library with {target}."
    )


def _abandon(library: Library) -> None:
    with transaction(library.db):
        library.db.execute("DELETE FROM embeddings_staging")
        library.db.execute("DELETE FROM meta WHERE key = ?", [TARGET_KEY])


def reembed(
    library: Library,
    model_name: str | None = None,
    *,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken = NEVER_CANCELLED,
) -> ReembedResult | None:
    """Switch the library to ``model_name`` (default: the configured model). None when it uses
    that model already (an unfinished re-embed to another model is then dropped)."""
    from summarizer.library.vectors.embedder import load_embedder
    from summarizer.library.vectors.vector_index import refresh_index

    target = configured_model(model_name)
    previous = library.embedding_model
    if previous is None or previous == target:
        if library.meta(TARGET_KEY) is not None:
            _abandon(library)
        return None
    progress(Progress(Stage.LOAD_EMBEDDER, 0, None))
    embedder = load_embedder(target)
    target = embedder.name
    with transaction(library.db):
        library.db.execute("DELETE FROM embeddings_staging WHERE model != ?", [target])
        library.set_meta(TARGET_KEY, target)
    embedded = 0
    while True:
        pending = _pending_documents(library, target)
        if not pending and _swap(library, target):
            break
        for doc_id, title in pending:
            cancel.raise_if_cancelled()
            done, total = _document_counts(library, target)
            progress(Progress(Stage.REEMBED_PASSAGES, done, total, title))
            embedded += _stage_document(library, embedder, doc_id, cancel)
    documents = _document_counts(library, target)[1]
    progress(Progress(Stage.REEMBED_PASSAGES, documents, documents))
    progress(Progress(Stage.UPDATE_INDEX, 0, None))
    refresh_index(library)
    return ReembedResult(previous, target, documents, embedded)


def _pending_documents(library: Library, target: str) -> list[tuple[str, str]]:
    """Documents with passages that have no staged ``target`` vector, oldest first."""
    return [
        (str(r[0]), clean_metadata_text(str(r[1])))
        for r in library.db.execute(
            "SELECT d.doc_id, d.title FROM documents d WHERE EXISTS (SELECT 1 FROM passages p "
            "LEFT JOIN embeddings_staging s ON s.passage_id = p.passage_id AND s.model = ? "
            "WHERE p.doc_id = d.doc_id AND s.passage_id IS NULL) ORDER BY d.added_at, d.doc_id",
            [target],
        ).fetchall()
    ]


def _stage_document(library: Library, embedder: Embedder, doc_id: str, cancel: CancelToken) -> int:
    from summarizer.library.vectors.chunk_tokenizer import chunk_tokenizer
    from summarizer.library.vectors.embedding_windows import mean_of_windows, passage_windows

    tokenizer = chunk_tokenizer(embedder.name)
    todo = library.db.execute(
        "SELECT p.passage_id, p.search_text, p.heading FROM passages p LEFT JOIN embeddings_staging s "
        "ON s.passage_id = p.passage_id AND s.model = ? WHERE p.doc_id = ? AND s.passage_id IS NULL "
        "ORDER BY p.passage_id",
        [embedder.name, doc_id],
    ).fetchall()
    for start in range(0, len(todo), BATCH):
        cancel.raise_if_cancelled()
        chunk = todo[start : start + BATCH]
        windows = [passage_windows(r[1], r[2], tokenizer, embedder.max_seq_length) for r in chunk]
        vectors = mean_of_windows(embedder.encode([w for ws in windows for w in ws]), [len(ws) for ws in windows])
        with transaction(library.db):
            # A passage re-cut away while it was embedded is skipped (its staged row would dangle).
            library.db.conn.executemany(
                "INSERT OR REPLACE INTO embeddings_staging (passage_id, model, dim, vector) "
                "SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM passages WHERE passage_id = ?)",
                [(r[0], embedder.name, embedder.dim, v.tobytes(), r[0]) for r, v in zip(chunk, vectors, strict=True)],
            )
    return len(todo)


def _swap(library: Library, target: str) -> bool:
    """Move the staged vectors in and make ``target`` the library's model, in one transaction.
    False when a passage got no staged vector meanwhile (a document added or re-cut)."""
    with transaction(library.db):
        if _pending_documents(library, target):
            return False
        library.db.execute("DELETE FROM embeddings")
        library.db.execute(
            "INSERT INTO embeddings (passage_id, model, dim, vector) "
            "SELECT passage_id, model, dim, vector FROM embeddings_staging WHERE model = ?",
            [target],
        )
        library.db.execute("DELETE FROM embeddings_staging")
        library.set_meta("embedding_model", target)
        library.db.execute("DELETE FROM meta WHERE key = ?", [TARGET_KEY])
    return True


__all__ = [
    "ReembedResult",
    "ReembedStatus",
    "model_notice",
    "needs_reembed",
    "reembed",
    "reembed_status",
]

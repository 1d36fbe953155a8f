"""Embedding the passages that have no vector yet, with the library's one embedding model.

Ingest and re-cuts call ``embed_missing`` for their documents; ``reindex`` for the whole library.
A passage longer than the model's window is embedded as several windows whose vectors are
averaged (``summarizer.library.vectors.embedding_windows``), never truncated. Each batch commits, so a
cancelled or killed job goes on where it stopped.
"""

from __future__ import annotations

import json
import time
from typing import Any

from inference.cancel import NEVER_CANCELLED, CancelToken
from inference.errors import ModelError
from inference.progress import Progress, ProgressCallback, Stage, no_progress
from summarizer.library.storage.store import WORDS_ONLY, Library, transaction

EMBED_BATCH = 64  # passages embedded per transaction


def embed_missing(
    library: Library,
    doc_ids: list[str] | None,
    model_name: str | None = None,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken = NEVER_CANCELLED,
) -> int:
    """Embed the passages that have no vector from the library's model. Returns how many.

    The library's model (``Library.embedding_model``) wins over ``model_name``, which only names
    the model of a library that has no vectors yet: the index never mixes models. A passage
    longer than the model's window is embedded as several windows
    (``summarizer.library.vectors.embedding_windows``), never truncated.
    """
    while True:
        try:
            count = _embed_missing(library, doc_ids, library.embedding_model or model_name, progress, cancel)
        except _ModelChanged:
            continue  # a re-embed finished meanwhile: embed with the library's new model
        _forget_words_only(library, doc_ids)
        return count


def keep_words_only(library: Library, doc_id: str, error: ModelError) -> str:
    """Keep ``doc_id`` without vectors, saying why in its warnings, when the embedding model cannot
    be loaded (a Windows install folder too deep for its files, issue 54): it is searchable by
    words only until ``pagewise reindex`` (or adding it again) embeds it. Returns the warning."""
    note = f"{WORDS_ONLY}: {error} Then `pagewise reindex` gives it its vectors."
    with transaction(library.db):
        row = library.db.execute("SELECT warnings FROM documents WHERE doc_id = ?", [doc_id]).fetchone()
        kept = [w for w in json.loads(row[0] or "[]") if not str(w).startswith(WORDS_ONLY)]
        library.db.execute("UPDATE documents SET warnings = ? WHERE doc_id = ?", [json.dumps([*kept, note]), doc_id])
    return note


def _forget_words_only(library: Library, doc_ids: list[str] | None) -> None:
    """Documents kept by words only that have all their vectors now lose that warning."""
    rows = library.db.execute(
        "SELECT d.doc_id, d.warnings FROM documents d WHERE d.warnings LIKE ? AND NOT EXISTS "
        "(SELECT 1 FROM passages p WHERE p.doc_id = d.doc_id "
        "AND NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.passage_id = p.passage_id))",
        [f"%{WORDS_ONLY}%"],
    ).fetchall()
    for doc_id, warnings in rows:
        if doc_ids is None or doc_id in doc_ids:
            kept = [w for w in json.loads(warnings) if not str(w).startswith(WORDS_ONLY)]
            library.db.execute("UPDATE documents SET warnings = ? WHERE doc_id = ?", [json.dumps(kept), doc_id])


class _ModelChanged(Exception):
    pass


def _embed_missing(
    library: Library,
    doc_ids: list[str] | None,
    model_name: str | None,
    progress: ProgressCallback,
    cancel: CancelToken,
) -> int:
    from summarizer.library.vectors.chunk_tokenizer import chunk_tokenizer
    from summarizer.library.vectors.embedder import load_embedder
    from summarizer.library.vectors.embedding_windows import mean_of_windows, passage_windows

    progress(Progress(Stage.LOAD_EMBEDDER, 0, None))
    embedder = load_embedder(model_name)
    tokenizer = chunk_tokenizer(embedder.name)
    where = ""
    args: list[Any] = [embedder.name]
    if doc_ids:
        where = f" AND p.doc_id IN ({','.join('?' * len(doc_ids))})"
        args += doc_ids
    # Vectors from another model are replaced: the model's name is stored with each vector.
    with transaction(library.db):
        if library.embedding_model not in (None, embedder.name):
            raise _ModelChanged
        library.db.execute(
            "DELETE FROM embeddings WHERE model != ? AND passage_id IN "
            f"(SELECT p.passage_id FROM passages p WHERE 1{where})",
            args,
        )
    todo = library.db.execute(
        "SELECT p.passage_id, p.search_text, p.heading FROM passages p LEFT JOIN embeddings e "
        f"ON e.passage_id = p.passage_id WHERE e.passage_id IS NULL{where} "
        "ORDER BY length(p.search_text)",
        args[1:],
    ).fetchall()
    total = len(todo)
    started = time.monotonic()
    for start in range(0, total, EMBED_BATCH):
        cancel.raise_if_cancelled()
        chunk = todo[start : start + EMBED_BATCH]
        windows = [passage_windows(r[1], r[2], tokenizer, embedder.max_seq_length) for r in chunk]
        vectors = mean_of_windows(embedder.encode([w for ws in windows for w in ws]), [len(ws) for ws in windows])
        with transaction(library.db):
            # The first vectors name the library's model; a re-embed may have changed it since.
            if library.embedding_model not in (None, embedder.name):
                raise _ModelChanged
            library.set_meta("embedding_model", embedder.name)
            library.db.conn.executemany(
                "INSERT OR REPLACE INTO embeddings (passage_id, model, dim, vector) VALUES (?, ?, ?, ?)",
                [(r[0], embedder.name, embedder.dim, v.tobytes()) for r, v in zip(chunk, vectors, strict=True)],
            )
        done = start + len(chunk)
        elapsed = time.monotonic() - started
        progress(Progress(Stage.EMBED_PASSAGES, done, total, "", done / elapsed if elapsed else None))
    return total


__all__ = ["EMBED_BATCH", "embed_missing", "keep_words_only"]

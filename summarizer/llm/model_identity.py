"""The identity of a model file: the sha256 of its bytes, cached per (path, size, mtime).

Summaries are keyed by it, so renaming or moving a GGUF keeps its summaries, and replacing
the file under the same name invalidates them. Hashing a multi-GB file takes a while, so the
digest is kept in the library until the file's size or modification time changes.
"""

from __future__ import annotations

import contextlib
import hashlib
import threading
from collections.abc import Sequence
from pathlib import Path

from inference.cancel import NEVER_CANCELLED, Cancelled, CancelToken
from inference.engines.engine import Engine
from inference.errors import ModelError, PagewiseError
from inference.progress import Progress, ProgressCallback, Stage, no_progress
from summarizer.library.storage.queries import known_model_file_sha256, remember_model_file_sha256
from summarizer.library.storage.store import Library
from summarizer.summaries.store import summaries_possibly_by_model_of_size

_CHUNK = 8 * 1024 * 1024
NOT_HASHED = "not-hashed:"  # lookup_identity's key for a model file never hashed: matches no summary

_locks_guard = threading.Lock()
_file_locks: dict[Path, threading.Lock] = {}


def _file_lock(file: Path) -> threading.Lock:
    with _locks_guard:
        return _file_locks.setdefault(file, threading.Lock())


def model_sha256(
    library: Library,
    path: Path | str,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken = NEVER_CANCELLED,
) -> str:
    """The sha256 of the model file at ``path`` (hex), from the cache when the file is unchanged."""
    file = Path(path).resolve()
    try:
        stat = file.stat()
    except OSError as error:
        raise ModelError(
            f"Cannot read the model file {file} ({error.strerror}). Check the path (--model or PAGEWISE_MODEL).",
            path=file,
        ) from None
    known = known_model_file_sha256(library, file, stat.st_size, stat.st_mtime_ns)
    if known is not None:
        return known
    lock = _file_lock(file)  # one read per file: a second caller waits for the first one's digest
    while not lock.acquire(timeout=0.1):
        cancel.raise_if_cancelled()
    try:
        known = known_model_file_sha256(library, file, stat.st_size, stat.st_mtime_ns)
        return known if known is not None else _hash_and_remember(library, file, stat.st_size, stat.st_mtime_ns,
                                                                  progress, cancel)  # fmt: skip
    finally:
        lock.release()


def _hash_and_remember(
    library: Library, file: Path, size: int, mtime_ns: int, progress: ProgressCallback, cancel: CancelToken
) -> str:
    digest = hashlib.sha256()
    done = 0
    try:
        with file.open("rb") as handle:
            while chunk := handle.read(_CHUNK):
                cancel.raise_if_cancelled()
                digest.update(chunk)
                done += len(chunk)
                progress(Progress(Stage.HASH_MODEL, done, size, file.name))
    except OSError as error:
        raise ModelError(f"Cannot read the model file {file} ({error.strerror}).", path=file) from None
    value = digest.hexdigest()
    remember_model_file_sha256(library, file, size, mtime_ns, value)
    return value


def known_model_sha256(library: Library, path: Path | str) -> str | None:
    """The sha256 of the model file at ``path`` if it was hashed since it last changed, else None:
    the file is not read (for the GUI thread, which never hashes a model)."""
    file = Path(path).resolve()
    try:
        stat = file.stat()
    except OSError:
        return None
    return known_model_file_sha256(library, file, stat.st_size, stat.st_mtime_ns)


def engine_identity(
    library: Library, engine: Engine, progress: ProgressCallback = no_progress, cancel: CancelToken = NEVER_CANCELLED
) -> str:
    """What summaries made by ``engine`` are stored under: its model file's sha256 (hashed once,
    then cached in the library by path, size and time), or for a server, which has no file here,
    its kind and model name."""
    path = engine.model_path
    if path and Path(path).is_file():
        return model_sha256(library, path, progress, cancel)
    return f"{type(engine).__name__}:{engine.model_name}"


def lookup_identity(
    library: Library,
    engine: Engine,
    doc_ids: Sequence[str],
    progress: ProgressCallback = no_progress,
    cancel: CancelToken = NEVER_CANCELLED,
) -> str:
    """The identity to read the stored summaries of ``doc_ids`` by, reading the model file only
    where it must. A model file hashed before gives its sha256 from the cache. One never hashed
    can only have made a stored summary of these documents if it had the same size as the model
    that made it (the cache keeps each hashed file's size); where none did, this returns a key that
    matches no stored summary, without reading the file, so a model's first question does not wait
    for gigabytes to be hashed (issue 47: 4.9 GB took ~10 s on the GPU machine). Storing a summary
    always takes ``engine_identity``, the real digest."""
    path = engine.model_path
    if not path or not Path(path).is_file():
        return engine_identity(library, engine, progress, cancel)
    known = known_model_sha256(library, path)
    if known is not None:
        return known
    size = Path(path).stat().st_size
    if not summaries_possibly_by_model_of_size(library, doc_ids, size):
        return f"{NOT_HASHED}{size}"
    return model_sha256(library, path, progress, cancel)


def hash_in_background(library_file: Path, model_file: Path | str, cancel: CancelToken) -> threading.Thread:
    """Start ``model_sha256`` of ``model_file`` in a thread of its own, with its own connection to
    the library at ``library_file``: the window's background load runs it beside the load, so that
    the digest is kept before summaries need it and nobody waits for it. A problem reading the
    file is the load's to report, so it is not reported here."""

    def run() -> None:
        with contextlib.suppress(PagewiseError, OSError, Cancelled), Library.open(library_file) as library:
            model_sha256(library, model_file, cancel=cancel)

    thread = threading.Thread(target=run, name="model-hash", daemon=True)
    thread.start()
    return thread

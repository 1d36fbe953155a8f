"""The identity of a model file: the sha256 of its bytes, cached per (path, size, mtime).

Summaries are keyed by it, so renaming or moving a GGUF keeps its summaries, and replacing
the file under the same name invalidates them. Hashing a multi-GB file takes a while, so the
digest is kept in the library until the file's size or modification time changes.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from inference.cancel import NEVER_CANCELLED, CancelToken
from inference.engines.engine import Engine
from inference.errors import ModelError
from inference.progress import Progress, ProgressCallback, Stage, no_progress
from summarizer.library.storage.queries import known_model_file_sha256, remember_model_file_sha256
from summarizer.library.storage.store import Library

_CHUNK = 8 * 1024 * 1024


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
    digest = hashlib.sha256()
    done = 0
    try:
        with file.open("rb") as handle:
            while chunk := handle.read(_CHUNK):
                cancel.raise_if_cancelled()
                digest.update(chunk)
                done += len(chunk)
                progress(Progress(Stage.HASH_MODEL, done, stat.st_size, file.name))
    except OSError as error:
        raise ModelError(f"Cannot read the model file {file} ({error.strerror}).", path=file) from None
    value = digest.hexdigest()
    remember_model_file_sha256(library, file, stat.st_size, stat.st_mtime_ns, value)
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

"""Which model the window talks to, as the summaries stored in the library name it: the model
file's digest (``summarizer.llm.model_identity.engine_identity``), computed once a process and
remembered, so that the GUI thread can look it up without touching the file (``known_identity``).

No Qt here: ``model_identity`` runs in the LLM thread (it may hash a file of gigabytes).
"""

from __future__ import annotations

import threading
from pathlib import Path

from inference.cancel import NEVER_CANCELLED, CancelToken
from inference.engines.engine import Engine
from inference.progress import ProgressCallback, no_progress
from summarizer.library.storage.store import Library

_known_models: dict[str, str] = {}
_known_lock = threading.Lock()


def _engine_key(engine: Engine) -> str:
    """The cache key: the model file with its size and time (a file replaced under the same name
    is hashed again), or the server's model."""
    path = engine.model_path
    if path:
        try:
            stat = Path(path).stat()
            return f"{path}@{stat.st_size}:{stat.st_mtime_ns}"
        except OSError:
            return path
    return f"{type(engine).__name__}:{engine.model_name}"


def model_identity(
    library: Library, engine: Engine, progress: ProgressCallback = no_progress, cancel: CancelToken = NEVER_CANCELLED
) -> str:
    """``summarizer.llm.model_identity.engine_identity``, remembered for this process so that the GUI
    thread can show it without touching the file (``known_identity``)."""
    from summarizer.llm.model_identity import engine_identity

    key = _engine_key(engine)
    with _known_lock:
        if key in _known_models:
            return _known_models[key]
    value = engine_identity(library, engine, progress, cancel)
    with _known_lock:
        _known_models[key] = value
    return value


def known_identity(engine: Engine | None) -> str | None:
    """The identity if already computed (the GUI thread never hashes a model file)."""
    if engine is None or not engine.loaded:
        return None
    with _known_lock:
        return _known_models.get(_engine_key(engine))

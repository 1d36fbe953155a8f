"""The FAISS inner-product index next to the database: a cache of the embeddings table.

The file records the embeddings generation it was built from and a checksum. It is rebuilt
from SQLite when missing, damaged or stale, and always written atomically (temp file, fsync,
rename), so a process killed while writing leaves either the old file or the new one.

An index loaded in this process grows by the vectors added since (a document added: its new
passages) instead of being rebuilt from every vector in the library; a removal or a re-embed
rebuilds it. Adding a data room of 449 contracts rebuilt and rewrote the whole index after each
one, a cost that grew with the library (issue 46); a batch now writes the file once, at its end
(``refresh_index(save=False)`` after each document).
"""

from __future__ import annotations

import contextlib
import json
import os
import struct
import threading
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

import numpy as np
import numpy.typing as npt

from summarizer.library.storage.store import Library

_T = TypeVar("_T")
MAGIC = b"PWFAISS1"
_HEADER = struct.Struct("<8sQI")  # magic, header-json length, crc32 of header json + payload


class VectorIndex:
    """Vectors of all passages, searchable by inner product (cosine: vectors are normalized).
    A search on one thread and ``grow`` on another take turns."""

    def __init__(self, index: Any, generation: int, model: str | None) -> None:
        self.index = index
        self.generation = generation
        self.model = model
        self._lock = threading.Lock()
        self._last_id: int | None = None

    @property
    def last_id(self) -> int:
        """The highest passage id in the index (-1 when empty): passage ids only grow."""
        import faiss

        if self._last_id is None:
            self._last_id = int(faiss.vector_to_array(self.index.id_map).max()) if self.size else -1
        return self._last_id

    def grow(self, ids: npt.NDArray[np.int64], vectors: npt.NDArray[np.float32], generation: int) -> None:
        """Add ``vectors`` (of passages whose ids are above ``last_id``): the index of ``generation``."""
        last = self.last_id
        with self._lock:
            self.index.add_with_ids(vectors, ids)
            self.generation = generation
            self._last_id = max(last, int(ids.max()))

    @property
    def size(self) -> int:
        return int(self.index.ntotal)

    def search(
        self, query: npt.NDArray[np.float32], k: int, allowed_ids: list[int] | None = None
    ) -> list[tuple[int, float]]:
        import faiss

        if self.size == 0 or k <= 0:
            return []
        params = None
        if allowed_ids is not None:
            if not allowed_ids:
                return []
            selector = faiss.IDSelectorBatch(np.asarray(allowed_ids, dtype=np.int64))
            params = faiss.SearchParameters()
            params.sel = selector
        # One query: OpenMP threads only wait on each other on a busy machine (72 ms against 7 ms
        # on two shared cores at 100k vectors, docs/retrieval.md). The setting is per thread.
        threads = faiss.omp_get_max_threads()
        faiss.omp_set_num_threads(1)
        try:
            with self._lock:
                scores, ids = self.index.search(query.reshape(1, -1), min(k, self.size), params=params)
        finally:
            faiss.omp_set_num_threads(threads)
        return [(int(i), float(s)) for i, s in zip(ids[0], scores[0], strict=True) if i >= 0]


def _build(library: Library) -> VectorIndex:
    # One read snapshot: a re-embed swapping models meanwhile cannot give a half-built index.
    return _in_snapshot(library, _build_in_snapshot)


def _in_snapshot(library: Library, read: Callable[[Library], _T]) -> _T:
    if library.db.conn.in_transaction:
        return read(library)
    library.db.execute("BEGIN")
    try:
        return read(library)
    finally:
        library.db.execute("COMMIT")


def _grown(library: Library, old: VectorIndex) -> VectorIndex | None:
    """``old`` grown by the vectors added since it was built, when adding them is all that changed:
    every insert or delete of a vector bumps the generation by one, so as many new vectors of its
    model (ids above its last) as bumps means nothing of it was removed or replaced. None
    otherwise (a removal, a re-embed, another model): the caller rebuilds."""
    model = library.embedding_model
    if model is None or model != old.model:
        return None
    last = old.last_id

    def read(library: Library) -> tuple[int, list[tuple[int, bytes]]]:
        rows = library.db.execute(
            "SELECT passage_id, vector FROM embeddings WHERE model = ? AND passage_id > ? ORDER BY passage_id",
            [model, last],
        ).fetchall()
        return library.embeddings_generation(), rows

    generation, rows = _in_snapshot(library, read)
    if generation - old.generation != len(rows) or not rows:
        return None
    ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    vectors = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), old.index.d)
    old.grow(ids, vectors, generation)
    return old


def _build_in_snapshot(library: Library) -> VectorIndex:
    import faiss

    generation = library.embeddings_generation()
    # Only the vectors of the library's model: the index never mixes models (a vector of
    # another model is left over from before the library recorded its model).
    model = library.embedding_model
    row = library.db.execute("SELECT dim FROM embeddings WHERE model = ? LIMIT 1", [model]).fetchone()
    dim = int(row[0]) if row else 384
    index = faiss.IndexIDMap2(faiss.IndexFlatIP(dim))
    cursor = library.db.execute(
        "SELECT passage_id, vector FROM embeddings WHERE model = ? ORDER BY passage_id", [model]
    )
    while True:
        rows = cursor.fetchmany(8192)
        if not rows:
            break
        ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        vectors = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), dim)
        index.add_with_ids(vectors, ids)
    return VectorIndex(index, generation, model)


def _write(path: Path, built: VectorIndex) -> None:
    import faiss

    payload = faiss.serialize_index(built.index).tobytes()
    header = json.dumps({"generation": built.generation, "model": built.model}).encode()
    crc = zlib.crc32(payload, zlib.crc32(header))
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with tmp.open("wb") as handle:
        handle.write(_HEADER.pack(MAGIC, len(header), crc))
        handle.write(header)
        half = len(payload) // 2
        handle.write(payload[:half])
        _test_pause_mid_write(handle)
        handle.write(payload[half:])
        handle.flush()
        os.fsync(handle.fileno())
    try:
        _replace_when_free(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)  # not left beside the index, one more each time
        raise


# Windows cannot replace a file another process has open: a window reading the index while the
# ingest process or `pagewise remove` rewrites it (issue 54). Readers hold it for one read, so
# the rewrite waits for them up to a second, then gives up (the index is only a cache).
REPLACE_TRIES = 20
REPLACE_WAIT_S = 0.05


def _replace_when_free(tmp: Path, path: Path) -> None:
    for attempt in range(REPLACE_TRIES):
        try:
            os.replace(tmp, path)
            return
        except PermissionError:
            if attempt == REPLACE_TRIES - 1:
                raise
            time.sleep(REPLACE_WAIT_S)


def _test_pause_mid_write(handle: BinaryIO) -> None:
    """Test hook: the kill-and-resume test stops the process half way through this write."""
    pause = os.environ.get("PAGEWISE_TEST_PAUSE_INDEX_WRITE")
    if pause:
        handle.flush()
        Path(pause.split(":", 1)[1]).touch()
        time.sleep(float(pause.split(":", 1)[0]))


def _read(path: Path) -> VectorIndex | None:
    """The cached index, or None when the file is missing or damaged."""
    import faiss

    try:
        data = path.read_bytes()
        magic, header_len, crc = _HEADER.unpack_from(data)
        if magic != MAGIC:
            return None
        start = _HEADER.size
        header = data[start : start + header_len]
        payload = data[start + header_len :]
        if zlib.crc32(payload, zlib.crc32(header)) != crc:
            return None
        meta = json.loads(header)
        index = faiss.deserialize_index(np.frombuffer(payload, dtype=np.uint8))
        return VectorIndex(index, int(meta["generation"]), meta.get("model"))
    except (OSError, ValueError, struct.error, KeyError, RuntimeError):
        return None


def index_path_for(library: Library) -> Path:
    return library.path.with_name("vectors.faiss")


# Indexes already loaded in this process, by file path: a warm search reads no file.
_loaded: dict[Path, VectorIndex] = {}


def forget_loaded() -> None:
    """Drop the in-process copies (as a new process would start)."""
    _loaded.clear()


def load_index(library: Library, *, rebuild_if_stale: bool = True) -> VectorIndex:
    """The FAISS index for ``library``: this process's copy (grown by the vectors added since),
    else the file, else rebuilt from SQLite; the file is written when it was stale unless
    ``rebuild_if_stale`` is False."""
    path = index_path_for(library)
    generation = library.embeddings_generation()
    in_memory = _loaded.get(path)
    if in_memory is not None and in_memory.generation == generation:
        return in_memory
    grown = _grown(library, in_memory) if in_memory is not None else None
    if grown is not None:
        if rebuild_if_stale:
            save_index(library, grown)
        _loaded[path] = grown
        return grown
    cached = _read(path)
    if cached is not None and cached.generation == generation:
        _loaded[path] = cached
        return cached
    built = _build(library)
    if rebuild_if_stale:
        save_index(library, built)
    _loaded[path] = built
    return built


def save_index(library: Library, built: VectorIndex) -> None:
    # The index is only a cache: a full disk costs a rebuild next time, nothing more.
    with contextlib.suppress(OSError):
        _write(index_path_for(library), built)


def refresh_index(library: Library, *, save: bool = True) -> VectorIndex:
    """Bring this process's index (and, when ``save``, the cached file) up to date with the
    embeddings table. A batch passes ``save=False`` after each document and saves at its end."""
    index = load_index(library, rebuild_if_stale=save)
    if save and _file_generation(index_path_for(library)) != index.generation:
        save_index(library, index)
    return index


def _file_generation(path: Path) -> int | None:
    """The generation the cached file records, read from its header alone (None: no such file)."""
    try:
        with path.open("rb") as handle:
            head = handle.read(_HEADER.size)
            magic, header_len, _ = _HEADER.unpack(head)
            if magic != MAGIC:
                return None
            return int(json.loads(handle.read(header_len))["generation"])
    except (OSError, ValueError, struct.error, KeyError, TypeError):
        return None

"""The FAISS inner-product index next to the database: a cache of the embeddings table.

The file records the embeddings generation it was built from and a checksum. It is rebuilt
from SQLite when missing, damaged or stale, and always written atomically (temp file, fsync,
rename), so a process killed while writing leaves either the old file or the new one.
"""

from __future__ import annotations

import contextlib
import json
import os
import struct
import time
import zlib
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
import numpy.typing as npt

from summarizer.library.storage.store import Library

MAGIC = b"PWFAISS1"
_HEADER = struct.Struct("<8sQI")  # magic, header-json length, crc32 of header json + payload


class VectorIndex:
    """Vectors of all passages, searchable by inner product (cosine: vectors are normalized)."""

    def __init__(self, index: Any, generation: int, model: str | None) -> None:
        self.index = index
        self.generation = generation
        self.model = model

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
            scores, ids = self.index.search(query.reshape(1, -1), min(k, self.size), params=params)
        finally:
            faiss.omp_set_num_threads(threads)
        return [(int(i), float(s)) for i, s in zip(ids[0], scores[0], strict=True) if i >= 0]


def _build(library: Library) -> VectorIndex:
    # One read snapshot: a re-embed swapping models meanwhile cannot give a half-built index.
    if library.db.conn.in_transaction:
        return _build_in_snapshot(library)
    library.db.execute("BEGIN")
    try:
        return _build_in_snapshot(library)
    finally:
        library.db.execute("COMMIT")


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
    os.replace(tmp, path)


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
    """The FAISS index for ``library``, rebuilt from SQLite if missing, damaged or stale."""
    path = index_path_for(library)
    generation = library.embeddings_generation()
    in_memory = _loaded.get(path)
    if in_memory is not None and in_memory.generation == generation:
        return in_memory
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


def refresh_index(library: Library) -> VectorIndex:
    """Bring the cached file up to date with the embeddings table."""
    return load_index(library)

"""What adding one document costs the vector index in a library of N contracts, before and after
issue 46's change: the whole index rebuilt from SQLite and its file rewritten (before) against the
index in memory grown by the document's vectors (after; the file is written once per batch).

    python -m lab.bench.index_refresh [--home build/dataroom-bench/home-449] [--sizes 10,100,449]

For each N, the library's first N documents (in the order they were added) stand for the library
and the next one for the document added. Reads the library only (the files are written to a
temporary folder). Prints one JSON line per N.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--home", type=Path, default=Path("build/dataroom-bench/home-449"))
    parser.add_argument("--sizes", default="10,100,449")
    args = parser.parse_args(argv)
    os.environ["PAGEWISE_HOME"] = str(args.home)
    import faiss
    import numpy as np

    from summarizer.library.storage.store import Library
    from summarizer.library.vectors.vector_index import VectorIndex, _write

    with Library.open() as library:
        model = library.embedding_model
        docs = [d.doc_id for d in library.documents() if d.state == "ready"]
        rows = library.db.execute(
            "SELECT p.doc_id, e.passage_id, e.vector FROM embeddings e JOIN passages p USING (passage_id) "
            "WHERE e.model = ? ORDER BY e.passage_id",
            [model],
        ).fetchall()
    by_doc: dict[str, list[tuple[int, bytes]]] = {}
    for doc_id, pid, vector in rows:
        by_doc.setdefault(doc_id, []).append((pid, vector))
    dim = len(rows[0][2]) // 4

    def arrays(pairs: list[tuple[int, bytes]]) -> tuple[np.ndarray, np.ndarray]:
        ids = np.array([p for p, _ in pairs], dtype=np.int64)
        return np.frombuffer(b"".join(v for _, v in pairs), dtype=np.float32).reshape(len(pairs), dim), ids

    with tempfile.TemporaryDirectory() as folder:
        for size in (int(s) for s in args.sizes.split(",")):
            size = min(size, len(docs) - 1)
            library_rows = [r for d in docs[:size] for r in by_doc.get(d, [])]
            added = by_doc.get(docs[size], [])
            # Before: every vector of the library (and the new document) read from SQLite into a
            # new index, the file rewritten.
            last = max(p for p, _ in library_rows + added)
            started = time.perf_counter()
            with Library.open() as library:
                read = library.db.execute(
                    "SELECT passage_id, vector FROM embeddings WHERE model = ? AND passage_id <= ? ORDER BY passage_id",
                    [model, last],
                ).fetchall()
            index = faiss.IndexIDMap2(faiss.IndexFlatIP(dim))
            index.add_with_ids(*arrays(read))
            _write(Path(folder) / "vectors.faiss", VectorIndex(index, 1, model))
            rebuild_s = time.perf_counter() - started
            # After: the index in memory grown by the document's vectors (read from SQLite).
            in_memory = faiss.IndexIDMap2(faiss.IndexFlatIP(dim))
            in_memory.add_with_ids(*arrays(library_rows))
            grown = VectorIndex(in_memory, 1, model)
            first_new = min(p for p, _ in added)
            started = time.perf_counter()
            with Library.open() as library:
                new = library.db.execute(
                    "SELECT passage_id, vector FROM embeddings WHERE model = ? AND passage_id BETWEEN ? AND ?",
                    [model, first_new, last],
                ).fetchall()
            vectors, ids = arrays(new)
            grown.grow(ids, vectors, 2)
            grow_s = time.perf_counter() - started
            row = {
                "contracts": size,
                "vectors": len(library_rows),
                "added": len(added),
                "rebuild_and_write_ms": round(1000 * rebuild_s, 1),
                "grow_ms": round(1000 * grow_s, 2),
                "file_mb": round((Path(folder) / "vectors.faiss").stat().st_size / 1e6, 1),
            }
            print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

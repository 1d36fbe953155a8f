"""Benchmark of the document library (issue 2's targets), on this machine's CPU.

    .venv/bin/python -m scripts.bench_library [--skip-1000] [--passages 100000]

Reports:
- ingest of the 154-page fixture, a ~300-page and a ~1,000-page PDF (made by concatenating the
  fixture contracts): pages/s for extraction, passages/s for embedding, end-to-end pages/s and
  the process's peak memory; each ingest runs in a fresh process;
- search latency at ~100k passages (synthetic vectors, real passage texts for FTS), warm
  (median and p95 over many queries in one process) and cold (a new `pagewise search` process:
  start, imports, model load, index load).

Not a test: prints a Markdown table and writes bench-out/library.json.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONTRACTS = ROOT / "tests" / "fixtures" / "contracts"


def concat_pdf(target: Path, names: list[str]) -> int:
    from pypdf import PdfWriter

    writer = PdfWriter()
    for name in names:
        writer.append(str(CONTRACTS / name))
    with target.open("wb") as handle:
        writer.write(handle)
    return len(writer.pages)


INGEST_CHILD = r"""
import json, resource, sys, time
from pathlib import Path
from inference.progress import Progress
from summarizer.library.ingest import ingest_path
from summarizer.library.storage.store import Library

marks = {}
def progress(p: Progress) -> None:
    now = time.perf_counter()
    marks.setdefault(p.stage + ":first", now)
    marks[p.stage + ":last"] = now

start = time.perf_counter()
with Library.open() as library:
    result = ingest_path(library, Path(sys.argv[1]), progress=progress)
end = time.perf_counter()
extract = marks["Reading pages:last"] - start
embed = marks.get("Embedding passages:last", end) - marks.get("Cutting passages:first", end)
print(json.dumps({
    "pages": result.pages, "passages": result.passages, "total_s": end - start,
    "extract_s": extract, "chunk_embed_s": embed,
    "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
}))
"""


def bench_ingest(pdf: Path) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "PAGEWISE_HOME": home}
        out = subprocess.run(
            [sys.executable, "-c", INGEST_CHILD, str(pdf)], cwd=ROOT, env=env, capture_output=True, text=True
        )
        if out.returncode:
            raise SystemExit(out.stderr)
        data: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    data["extract_pages_per_s"] = data["pages"] / data["extract_s"]
    data["embed_passages_per_s"] = data["passages"] / data["chunk_embed_s"]
    data["end_to_end_pages_per_s"] = data["pages"] / data["total_s"]
    return data


def build_search_library(home: Path, n_passages: int) -> None:
    import numpy as np

    from summarizer.library.ingest import ingest_path
    from summarizer.library.storage.store import Library, now_iso, transaction

    with Library.open(home / "library.sqlite") as library:
        ingest_path(library, CONTRACTS / "license-17p.pdf")  # real passages and vectors
        texts = [r[0] for r in library.db.execute("SELECT search_text FROM passages").fetchall()]
        rng = random.Random(7)
        vectors = np.random.default_rng(7).standard_normal((n_passages, 384)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        with transaction(library.db):
            library.db.execute(
                "INSERT INTO documents (doc_id, path, title, pages, content_sha256, status, state, added_at, "
                "updated_at) VALUES ('synthetic', '/synthetic.pdf', 'synthetic', ?, 'x', 'indexed', 'ready', ?, ?)",
                [n_passages // 5, now_iso(), now_iso()],
            )
            rows = []
            for i in range(n_passages):
                words = rng.choice(texts).split()
                rng.shuffle(words)
                text = " ".join(words)
                page = i // 5 + 1
                rows.append(("synthetic", i, text, text, json.dumps([[page, 0, len(text)]]), page, page, 150))
            library.db.conn.executemany(
                "INSERT INTO passages (doc_id, seq, text, search_text, spans, page_start, page_end, n_tokens) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                rows,
            )
            ids = [r[0] for r in library.db.execute("SELECT passage_id FROM passages WHERE doc_id = 'synthetic'")]
            library.db.conn.executemany(
                "INSERT INTO embeddings (passage_id, model, dim, vector) VALUES (?, ?, 384, ?)",
                [
                    (pid, "sentence-transformers/all-MiniLM-L6-v2", v.tobytes())
                    for pid, v in zip(ids, vectors, strict=True)
                ],
            )
        from summarizer.library.vectors.vector_index import refresh_index

        refresh_index(library)


QUERIES = [
    "termination for convenience",
    "who owns the intellectual property",
    "governing law and jurisdiction",
    "limitation of liability cap",
    "can the licensee assign this agreement",
    "confidentiality obligations after termination",
    "payment terms and late fees",
    '§ 6.2 (a) "Termination" AND breach*',
]


def bench_search(n_passages: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        os.environ["PAGEWISE_HOME"] = str(home)
        t0 = time.perf_counter()
        build_search_library(home, n_passages)
        build_s = time.perf_counter() - t0
        env = {**os.environ, "PAGEWISE_HOME": str(home)}
        cold = []
        for query in QUERIES[:3]:
            t = time.perf_counter()
            subprocess.run(
                [sys.executable, "-m", "app.cli", "search", "--all", query, "--json"],
                cwd=ROOT,
                env=env,
                check=True,
                capture_output=True,
            )
            cold.append(time.perf_counter() - t)
        from summarizer.library.storage.store import Library
        from summarizer.search.retrieval import search

        with Library.open(home / "library.sqlite") as library:
            first = time.perf_counter()
            search(library, QUERIES[0], k=3)  # loads the model and the index once
            first_s = time.perf_counter() - first
            warm = []
            for _ in range(5):
                for query in QUERIES:
                    t = time.perf_counter()
                    search(library, query, k=3)
                    warm.append(time.perf_counter() - t)
            one_doc = []
            for query in QUERIES:
                t = time.perf_counter()
                search(library, query, k=3, doc_ids=["synthetic"])
                one_doc.append(time.perf_counter() - t)
            total = library.db.execute("SELECT COUNT(*) FROM passages").fetchone()[0]
    warm.sort()
    return {
        "passages": total,
        "build_s": build_s,
        "cold_process_s_median": statistics.median(cold),
        "first_query_in_process_s": first_s,
        "warm_ms_median": 1000 * statistics.median(warm),
        "warm_ms_p95": 1000 * warm[int(len(warm) * 0.95) - 1],
        "warm_one_document_ms_median": 1000 * statistics.median(one_doc),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-1000", action="store_true", help="skip the 1,000-page ingest")
    parser.add_argument("--search-only", action="store_true", help="only the search benchmark")
    parser.add_argument("--passages", type=int, default=100_000, help="passages for the search benchmark")
    args = parser.parse_args()
    results: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as tmp:
        pdfs = {"154-page fixture (collaboration)": CONTRACTS / "collaboration-154p.pdf"}
        p300 = Path(tmp) / "p300.pdf"
        n = concat_pdf(
            p300,
            [
                "franchise-115p.pdf",
                "distributor-17p.pdf" if (CONTRACTS / "distributor-17p.pdf").exists() else "license-17p.pdf",
                "license-17p.pdf",
                "supply-16p.pdf",
                "endorsement-8p.pdf",
                "franchise-115p.pdf",
                "license-17p.pdf",
            ],
        )
        pdfs[f"{n}-page text PDF (concatenated)"] = p300
        if not args.skip_1000:
            p1000 = Path(tmp) / "p1000.pdf"
            n = concat_pdf(
                p1000,
                ["franchise-115p.pdf"] * 8
                + ["license-17p.pdf", "supply-16p.pdf", "endorsement-8p.pdf", "license-17p.pdf"],
            )
            pdfs[f"{n}-page text PDF (concatenated)"] = p1000
        for label, pdf in pdfs.items():
            if args.search_only:
                break
            print(f"ingest: {label} ...", file=sys.stderr, flush=True)
            results[label] = bench_ingest(pdf)
    print(f"search at {args.passages} passages ...", file=sys.stderr, flush=True)
    results["search"] = bench_search(args.passages)

    print(
        "| ingest | pages | passages | extraction pages/s | embedding passages/s | end-to-end pages/s | peak RSS MiB |"
    )
    print("|---|---|---|---|---|---|---|")
    for label, r in results.items():
        if label == "search":
            continue
        assert isinstance(r, dict)
        print(
            f"| {label} | {r['pages']} | {r['passages']} | {r['extract_pages_per_s']:.1f} | "
            f"{r['embed_passages_per_s']:.1f} | {r['end_to_end_pages_per_s']:.1f} | {r['peak_rss_mib']:.0f} |"
        )
    s = results["search"]
    assert isinstance(s, dict)
    print()
    header = ["search at", "warm median ms", "warm p95 ms", "warm, one-document filter ms"]
    header += ["first query in process s", "cold process s"]
    print("| " + " | ".join(header) + " |")
    print("|---|---|---|---|---|---|")
    print(
        f"| {s['passages']} passages | {s['warm_ms_median']:.1f} | {s['warm_ms_p95']:.1f} | "
        f"{s['warm_one_document_ms_median']:.1f} | {s['first_query_in_process_s']:.2f} | "
        f"{s['cold_process_s_median']:.2f} |"
    )
    out = ROOT / "bench-out"
    out.mkdir(exist_ok=True)
    (out / "library.json").write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

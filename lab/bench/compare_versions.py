"""Time and peak memory of ``pagewise compare`` on edited pairs of about 10, 100 and 500 pages:
from files (both added to a fresh library first, as ``pagewise compare FILE FILE`` does: read, cut,
embed, index) and with both already in the library (the stored clauses compared).

    flock /tmp/pagewise-cpu.lock .venv/bin/python -m lab.bench.compare_versions \
        [--out docs/data/compare-timing/compare_timing.json]

Pairs (``lab.eval.known_edits``' edits, one of each kind, seed 1; the new version reflowed):
``endorsement-8p`` (about 10 pages), ``franchise-115p`` (about 100) and ``franchise-115p``'s clauses
five times over (about 500; added without vectors, which the comparison never reads). Each
measurement runs in a child process of its own, so its peak RSS (``ru_maxrss``) is its own; the
CLI run is ``pagewise compare OLD_ID NEW_ID --json`` timed from outside (Python's start and
imports included). No model is used.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lab.eval.compare_known_edits import FIXTURES, NEW_WIDTH, OLD_WIDTH, base_clauses, write_version
from lab.eval.known_edits import apply_edits
from lab.results import write_json

PAIRS = {"10p": ("endorsement-8p", 1), "100p": ("franchise-115p", 1), "500p": ("franchise-115p", 5)}
WITHOUT_VECTORS = {"500p"}  # added without embedding (minutes on 2 cores that the comparison never reads)


def make_pair(name: str, workdir: Path) -> tuple[Path, Path]:
    fixture, copies = PAIRS[name]
    clauses = base_clauses(FIXTURES / f"{fixture}.pdf", workdir) * copies
    pair = apply_edits(clauses, 1)
    old = write_version(workdir / f"{name}-old.pdf", pair.old, OLD_WIDTH)
    new = write_version(workdir / f"{name}-new.pdf", pair.new, NEW_WIDTH)
    return old, new


def _peak_rss_mib() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)  # KiB on Linux


def child_from_files(old: Path, new: Path, embed: bool) -> dict[str, object]:
    """Both files added to the (fresh) library, then compared: ``pagewise compare FILE FILE``."""
    from summarizer.compare.library_versions import compare_documents
    from summarizer.library.ingest import IngestOptions, ingest_path
    from summarizer.library.storage.store import Library

    options = IngestOptions(embed=embed)
    started = time.perf_counter()
    with Library.open() as library:
        old_result = ingest_path(library, old, options)
        new_result = ingest_path(library, new, options)
        ingested = time.perf_counter()
        comparison = compare_documents(library, old_result.doc_id, new_result.doc_id)
        done = time.perf_counter()
        pages = (library.document(old_result.doc_id).pages, library.document(new_result.doc_id).pages)
    return {
        "old_id": old_result.doc_id,
        "new_id": new_result.doc_id,
        "pages": pages,
        "clauses": (len(comparison.old_clauses), len(comparison.new_clauses)),
        "changes": sum(1 for c in comparison.changes if not c.hidden),
        "embedded": embed,
        "ingest_s": round(ingested - started, 2),
        "compare_s": round(done - ingested, 2),
        "total_s": round(done - started, 2),
        "peak_rss_mib": _peak_rss_mib(),
    }


def child_in_library(old_id: str, new_id: str) -> dict[str, object]:
    """The two stored documents compared (their stored clauses read, aligned, classified)."""
    from summarizer.compare.library_versions import compare_documents
    from summarizer.library.storage.store import Library

    with Library.open() as library:
        started = time.perf_counter()
        compare_documents(library, old_id, new_id)
        done = time.perf_counter()
    return {"compare_s": round(done - started, 2), "peak_rss_mib": _peak_rss_mib()}


def _child(args: list[str], home: Path) -> dict[str, object]:
    env = dict(os.environ, PAGEWISE_HOME=str(home))
    out = subprocess.run(
        [sys.executable, "-m", "lab.bench.compare_versions", *args], env=env, check=True, capture_output=True, text=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def measure(name: str, workdir: Path) -> dict[str, object]:
    old, new = make_pair(name, workdir)
    home = workdir / f"{name}-home"
    embed = "yes" if name not in WITHOUT_VECTORS else "no"
    from_files = _child(["--from-files", str(old), str(new), embed], home)
    in_library = _child(["--in-library", str(from_files["old_id"]), str(from_files["new_id"])], home)
    env = dict(os.environ, PAGEWISE_HOME=str(home))
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "app.cli", "compare", str(from_files["old_id"]), str(from_files["new_id"]), "--json"],
        env=env,
        check=True,
        capture_output=True,
    )
    cli_s = round(time.perf_counter() - started, 2)
    result = {"pair": name, "from_files": from_files, "in_library": in_library, "cli_in_library_s": cli_s}
    print(json.dumps(result), flush=True)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--pairs", nargs="*", default=list(PAIRS), choices=list(PAIRS))
    parser.add_argument("--out", type=Path, help="write the figures as JSON")
    parser.add_argument("--from-files", nargs=3, help=argparse.SUPPRESS)  # OLD NEW yes|no (embed)
    parser.add_argument("--in-library", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.from_files:
        old, new, embed = args.from_files
        print(json.dumps(child_from_files(Path(old), Path(new), embed == "yes")))
        return
    if args.in_library:
        print(json.dumps(child_in_library(*args.in_library)))
        return
    with tempfile.TemporaryDirectory() as tmp:
        results = [measure(name, Path(tmp)) for name in args.pairs]
    if args.out:
        record = {"cpus": os.cpu_count(), "model": None, "pairs": results}
        write_json(args.out, record)


if __name__ == "__main__":
    main()

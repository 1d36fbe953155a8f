"""Ingest speed on a long filing, this tree against another (issue 28: within 20% of before).

    .venv/bin/python -m lab.bench.filing_ingest [--pdf ../shared/data/financebench-dev/pdfs/BOEING_2022_10K.pdf]
        [--before DIR] [--runs 2] [--out FILE.json]

``--before`` is a checkout of the earlier Pagewise (``git worktree add /tmp/before 3b1d755``);
both trees ingest the same PDF with this interpreter, each run in a fresh process and a fresh
library, alternating, and the best of ``--runs`` is kept. Reported per tree: seconds and pages/s
for the whole ingest (reading pages, cutting, embedding), and for reading and cutting alone
(``--no-embed`` runs), plus the document's kind and passages. Not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from lab.results import write_json

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_PDF = ROOT.parent / "shared" / "data" / "financebench-dev" / "pdfs" / "BOEING_2022_10K.pdf"

CHILD = """
import json, sys, time
from pathlib import Path
from summarizer.library.ingest import IngestOptions, ingest_path
from summarizer.library.storage.store import Library
embed = sys.argv[2] == "1"
with Library.open() as library:
    started = time.perf_counter()
    result = ingest_path(library, Path(sys.argv[1]), IngestOptions(embed=embed))
    seconds = time.perf_counter() - started
    record = library.document(result.doc_id)
print(json.dumps({"seconds": seconds, "pages": record.pages, "passages": record.passages,
                  "kind": getattr(record, "kind", None)}))
"""


def ingest_once(tree: Path, pdf: Path, embed: bool) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="pagewise-bench-") as home:
        env = {**os.environ, "PAGEWISE_HOME": home, "PYTHONPATH": str(tree)}
        out = subprocess.run(
            [sys.executable, "-c", CHILD, str(pdf), "1" if embed else "0"],
            cwd=tree,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
    result: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pdf", type=Path, default=DEFAULT_PDF)
    ap.add_argument("--before", type=Path, help="a checkout of the earlier Pagewise to compare with")
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    trees = {"after": ROOT, **({"before": args.before.resolve()} if args.before else {})}
    best: dict[str, dict[str, dict[str, object]]] = {name: {} for name in trees}
    for _ in range(args.runs):
        for embed in (False, True):
            for name, tree in trees.items():
                run = ingest_once(tree, args.pdf, embed)
                key = "with_embedding" if embed else "read_and_cut"
                if key not in best[name] or float(run["seconds"]) < float(best[name][key]["seconds"]):  # type: ignore[arg-type]
                    best[name][key] = run
    report: dict[str, object] = {
        "command": "python -m lab.bench.filing_ingest " + " ".join(sys.argv[1:]),
        "pdf": args.pdf.name,
    }
    for name, runs in best.items():
        report[name] = {
            key: {
                **run,
                "pages_per_s": round(int(run["pages"]) / float(run["seconds"]), 2),
                "seconds": round(float(run["seconds"]), 2),
            }  # type: ignore[arg-type]
            for key, run in runs.items()
        }
    if "before" in report:
        for key in ("read_and_cut", "with_embedding"):
            after = report["after"][key]["pages_per_s"]  # type: ignore[index]
            before = report["before"][key]["pages_per_s"]  # type: ignore[index]
            report[f"{key}_after_vs_before"] = round(after / before, 3)
    print(json.dumps(report, indent=1))
    if args.out:
        write_json(args.out, report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Ingest speed of a Word contract beside LibreOffice's PDF rendering of the same contract (issue 43).

    .venv/bin/python -m lab.bench.docx_ingest [--folder ../shared/data/docx-contracts] [--rendered DIR]
        [--names common-paper-cloud-service-agreement ...] [--runs 2] [--out FILE.json]

Each file is added to a fresh library in a fresh process, the .docx and its PDF alternating, and
the best of ``--runs`` is kept: seconds for the whole ingest (reading, cutting, embedding) and for
reading and cutting alone (``embed=False``), with pages (a Word document's: paragraphs and table
rows) and passages. The PDFs come from ``soffice --headless --convert-to pdf`` (``--rendered`` reuses
them). Run it alone on the machine (``flock /tmp/pagewise-cpu.lock``). Not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

from lab.bench.filing_ingest import ingest_once
from lab.eval.docx_numbering import FOLDER, render
from lab.results import write_json

ROOT = Path(__file__).resolve().parents[2]
NAMES = ("common-paper-cloud-service-agreement", "common-paper-business-associate-agreement", "common-paper-mutual-nda")


def best(path: Path, embed: bool, runs: int) -> dict[str, object]:
    results = [ingest_once(ROOT, path, embed) for _ in range(runs)]  # this tree, in a fresh process
    return min(results, key=lambda r: float(str(r["seconds"])))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--folder", type=Path, default=FOLDER)
    ap.add_argument("--rendered", type=Path)
    ap.add_argument("--names", nargs="+", default=list(NAMES))
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--read-only", action="store_true", help="only reading and cutting (no embedding runs)")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        rendered = args.rendered or Path(scratch)
        files = [args.folder / f"{name}.docx" for name in args.names]
        missing = [f for f in files if not (rendered / f"{f.stem}.pdf").exists()]
        if missing:
            render(missing, rendered)
        for docx in files:
            pdf = rendered / f"{docx.stem}.pdf"
            row: dict[str, object] = {"name": docx.stem}
            for label, path in (("docx", docx), ("pdf", pdf)):
                row[label] = {"read_and_cut": best(path, False, args.runs)}
                if not args.read_only:
                    row[label]["full"] = best(path, True, args.runs)
            rows.append(row)
            print(json.dumps(row), flush=True)
    if args.out:
        write_json(args.out, {"cpus": os.cpu_count(), "rows": rows})
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""``pagewise compare`` on real variants: the shared Common Paper Cloud Service Agreement in its four
forms (the base agreement; without an SLA, with an SLA, with AI terms), the base against each and
the variants against each other. Every reported difference is written out to be read.

    flock /tmp/pagewise-cpu.lock .venv/bin/python -m lab.eval.compare_real_variants \
        [--shared ../shared/data/docx-contracts] [--out docs/data/compare-real-variants]

Writes ``counts.json`` (per pair: verdict, clauses, changes by kind, material) and one Markdown
report per pair (``pagewise compare --format md``), the lists read by hand in docs/compare.md.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from collections import Counter
from pathlib import Path

from lab.results import write_json
from summarizer.compare.library_versions import compare_documents
from summarizer.compare.report import comparison_markdown
from summarizer.library.ingest import IngestOptions, ingest_path
from summarizer.library.storage.store import Library

BASE = "common-paper-cloud-service-agreement"
VARIANTS = ("common-paper-csa-without-sla", "common-paper-csa-with-sla", "common-paper-csa-with-ai")
PAIRS = [
    *((BASE, v) for v in VARIANTS),
    (VARIANTS[0], VARIANTS[1]),
    (VARIANTS[0], VARIANTS[2]),
    (VARIANTS[1], VARIANTS[2]),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--shared", type=Path, default=Path("../shared/data/docx-contracts"))
    parser.add_argument("--out", type=Path, default=Path("docs/data/compare-real-variants"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    counts = []
    with tempfile.TemporaryDirectory() as tmp, Library.open(Path(tmp) / "library.sqlite") as library:
        ids = {
            name: ingest_path(library, args.shared / f"{name}.docx", IngestOptions(embed=False)).doc_id
            for name in (BASE, *VARIANTS)
        }
        for old, new in PAIRS:
            comparison = compare_documents(library, ids[old], ids[new])
            shown = [c for c in comparison.changes if not c.hidden]
            counts.append(
                {
                    "old": old,
                    "new": new,
                    "verdict": comparison.verdict,
                    "clauses": [len(comparison.old_clauses), len(comparison.new_clauses)],
                    "changes": len(shown),
                    "by_kind": dict(Counter(c.kind for c in shown)),
                    "material": sum(1 for c in shown if c.material),
                    "notes": list(comparison.notes),
                }
            )
            report = comparison_markdown(comparison, old, new, ("¶", "¶"))
            (args.out / f"{old.removeprefix('common-paper-')}--{new.removeprefix('common-paper-')}.md").write_text(
                report, encoding="utf-8"
            )
            print(json.dumps(counts[-1]))
    write_json(args.out / "counts.json", counts)


if __name__ == "__main__":
    main()

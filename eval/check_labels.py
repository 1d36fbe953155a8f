"""Checks a label file: every category of the CUAD list labelled, every quote found on its pages.

    python eval/check_labels.py eval/labels/license-17p.json --text-dir DIR

DIR/<stem>/page-NNN.txt holds each page's text as pypdf extracts it (eval/extract_pages.py writes it).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from quote_match import normalize

CATEGORIES = Path(__file__).resolve().parent / "cuad_categories.txt"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("labels", type=Path, nargs="+")
    ap.add_argument("--text-dir", type=Path, required=True)
    args = ap.parse_args()
    names = [line.strip() for line in CATEGORIES.read_text().splitlines() if line.strip()]
    bad = 0
    for path in args.labels:
        data = json.loads(path.read_text())
        stem = Path(data["document"]).stem
        labels = data["labels"]
        for name in names:
            if name not in labels:
                print(f"{path}: missing category {name!r}")
                bad += 1
        for name in labels:
            if name not in names:
                print(f"{path}: unknown category {name!r}")
                bad += 1
        for name, entry in labels.items():
            if entry["status"] == "absent":
                continue
            for clause in entry["clauses"]:
                pages = clause["pages"]
                text = " ".join((args.text_dir / stem / f"page-{p:03d}.txt").read_text() for p in pages)
                if normalize(clause["quote"]) not in normalize(text):
                    print(f"{path}: {name}: quote not found verbatim on pages {pages}: {clause['quote'][:80]!r}")
                    bad += 1
        present = sum(1 for e in labels.values() if e["status"] != "absent")
        print(f"{path}: {present} present, {len(labels) - present} absent")
    print("OK" if not bad else f"{bad} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The review's evidence against the clause labels (contract-review issue, evidence half).

    .venv/bin/python -m lab.eval.score_review_evidence [--home DIR] [--set NAME=VALUE ...] [--out FILE.json]

Runs ``pagewise review --evidence-only`` (``summarizer.review.evidence.review_evidence``) with the bundled
CUAD checklist over the six labelled contracts and counts, for every category a contract has, the
share of its labelled quotes found in the item's top-3 (and top-10) evidence passages, by the
retrieval issue's matching rule (lab/eval/quote_match.py). Reported overall, for the four tuning
contracts, for the two held apart, and by category. "Probably absent" (status ``absent``, the
clause ranker's threshold): its precision (the share of cells called absent whose category the
labels mark absent) and recall (the share of the labels' absent cells called absent), and the
seconds each contract's evidence-only review took.

``--set NAME=VALUE`` (a ``RetrievalParams`` field, as ``lab.eval.score_validation``'s) changes the
search each of an item's queries runs (``summarizer.review.evidence.WITHOUT_RANKER``: the product's
retrieval settings with the clause ranker left to the item's own pass), e.g.
``--set lexicon_ranking_weight=0.25``; the item's ranker pass keeps the product's settings.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from collections import defaultdict
from dataclasses import replace
from pathlib import Path
from typing import Any

from lab.eval.quote_match import quote_found
from lab.eval.score_retrieval import HELD_APART, fixture_contracts_dir, ingest_all, load_labels, retrieval_params

ROOT = Path(__file__).resolve().parents[2]


def query_search_params(settings: list[str]) -> Any:
    """The settings of the search each of an item's queries runs, with ``NAME=VALUE`` overrides:
    the product's (``summarizer.review.evidence.WITHOUT_RANKER``) when there are none, the clause
    ranker always left to the item's own pass."""
    return replace(retrieval_params(settings), rerank_top=0)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--home", type=Path, help="library folder (PAGEWISE_HOME); default: a new temporary one")
    ap.add_argument("--contracts", type=Path)
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="a RetrievalParams override")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    os.environ["PAGEWISE_HOME"] = str(args.home or tempfile.mkdtemp(prefix="pagewise-review-eval-"))
    from summarizer.library.storage.store import Library
    from summarizer.review import evidence
    from summarizer.review.checklist import load_checklist
    from summarizer.review.evidence import review_evidence

    evidence.WITHOUT_RANKER = query_search_params(args.set)

    labels = load_labels()
    doc_ids = ingest_all(args.contracts or fixture_contracts_dir(), list(labels))
    checklist = load_checklist("cuad")
    rows: list[dict[str, Any]] = []
    cells: list[dict[str, Any]] = []
    seconds: dict[str, float] = {}
    with Library.open() as library:
        for stem, data in labels.items():
            started = time.perf_counter()
            (review,) = review_evidence(library, [doc_ids[stem]], checklist)
            seconds[stem] = round(time.perf_counter() - started, 2)
            by_category = {item.category: item for item in review.items}
            for category, entry in data["labels"].items():
                item = by_category[category]
                cells.append(
                    {
                        "contract": stem,
                        "category": category,
                        "labelled_absent": entry["status"] == "absent",
                        "called_absent": item.status == "absent",
                        "clause_score": item.clause_score,
                    }
                )
                if entry["status"] == "absent":
                    continue
                texts = [e.text for e in by_category[category].evidence]
                quotes = [c["quote"] for c in entry["clauses"]]
                rows.append(
                    {
                        "contract": stem,
                        "category": category,
                        "top3": sum(any(quote_found(q, t) for t in texts[:3]) for q in quotes) / len(quotes),
                        "top10": sum(any(quote_found(q, t) for t in texts[:10]) for q in quotes) / len(quotes),
                        "passages_read": by_category[category].passages_read,
                    }
                )

    def mean(subset: list[dict[str, Any]], key: str) -> float:
        return sum(r[key] for r in subset) / len(subset) if subset else 0.0

    groups = {
        "all": rows,
        "tuning_contracts": [r for r in rows if r["contract"] not in HELD_APART],
        "held_apart": [r for r in rows if r["contract"] in HELD_APART],
    }
    by_category: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        by_category[r["category"]].append(r)
    summary = {
        name: {"labelled": len(s), "top3": mean(s, "top3"), "top10": mean(s, "top10")} for name, s in groups.items()
    }
    summary["by_category"] = {c: {"labelled": len(s), "top3": mean(s, "top3")} for c, s in by_category.items()}
    for name, subset in (
        ("all", cells),
        ("tuning_contracts", [c for c in cells if c["contract"] not in HELD_APART]),
        ("held_apart", [c for c in cells if c["contract"] in HELD_APART]),
    ):
        called = [c for c in subset if c["called_absent"]]
        truly = [c for c in subset if c["labelled_absent"]]
        right = sum(c["labelled_absent"] for c in called)
        summary[name]["absent"] = {
            "cells": len(subset),
            "labelled_absent": len(truly),
            "called_absent": len(called),
            "precision": right / len(called) if called else None,
            "recall": right / len(truly) if truly else None,
        }
    summary["seconds_per_contract"] = seconds
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        settings = {"settings": args.set}
        args.out.write_text(json.dumps(settings | {"summary": summary, "rows": rows, "cells": cells}, indent=1))
    for name in groups:
        s = summary[name]
        print(f"{name:17} labelled {s['labelled']:3}  evidence top-3 {s['top3']:.3f}  top-10 {s['top10']:.3f}")
        print(f"{'':17} probably absent: {json.dumps(s['absent'])}")
    print(f"seconds per contract: {json.dumps(seconds)}")
    for category, s in summary["by_category"].items():
        print(f"  {category:36} n={s['labelled']}  top-3 {s['top3']:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

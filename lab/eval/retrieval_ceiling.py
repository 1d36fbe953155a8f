"""The best recall@k any ranking of a library's passages could reach on the labelled set.

    .venv/bin/python -m lab.eval.retrieval_ceiling --home DIR [--out FILE.json]

``--home``: a library made by lab/eval/score_retrieval.py (the six fixture contracts). For every
question that lab/eval/score_retrieval.py asks (a category present in a contract), the passages of
that contract are taken in the order that finds the most of the category's labelled quotes
(greedy: at each place the passage that adds the most quotes not found yet; the same rule,
lab/eval/quote_match.py, that scores search), and recall@k of that order is reported, per set and per
contract, beside nothing else: a diagnostic of what the passages allow (a quote longer than a
passage, or split across two, caps a question below 1), not a choice. It reads the held-apart
contracts' labels as lab/eval/score_retrieval.py does and decides nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

from lab.eval.quote_match import quote_found
from lab.eval.score_retrieval import HELD_APART, KS, load_labels

ROOT = Path(__file__).resolve().parents[2]


def best_order(holds: list[set[int]], k: int) -> list[int]:
    """Up to ``k`` passage indexes (``holds[j]``: the quotes passage j holds), each adding the most
    quotes not found by the ones before."""
    found: set[int] = set()
    order: list[int] = []
    for _ in range(min(k, len(holds))):
        best = max((j for j in range(len(holds)) if j not in order), key=lambda j: len(holds[j] - found))
        if not holds[best] - found:
            break
        order.append(best)
        found |= holds[best]
    return order


def ceiling(quotes: list[str], texts: list[str]) -> dict[str, float]:
    holds = [{i for i, q in enumerate(quotes) if quote_found(q, t)} for t in texts]
    order = best_order(holds, max(KS))
    out = {}
    for k in KS:
        found = set().union(*(holds[j] for j in order[:k])) if order else set()
        out[f"r@{k}"] = len(found) / len(quotes)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--home", type=Path, required=True, help="a library made by lab/eval/score_retrieval.py")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    os.environ["PAGEWISE_HOME"] = str(args.home)
    from summarizer.library.storage.store import Library

    labels = load_labels()
    rows: list[dict[str, Any]] = []
    with Library.open() as library:
        doc_ids = {Path(d.path).stem: d.doc_id for d in library.documents()}
        for stem, data in labels.items():
            if stem not in doc_ids:
                raise SystemExit(f"{stem} is not in the library at {args.home}: run lab/eval/score_retrieval.py first")
            texts = [
                str(r[0])
                for r in library.db.execute(
                    "SELECT text FROM passages WHERE doc_id = ? ORDER BY passage_id", [doc_ids[stem]]
                ).fetchall()
            ]
            for category, entry in data["labels"].items():
                if entry["status"] == "absent":
                    continue
                quotes = [c["quote"] for c in entry["clauses"]]
                rows.append({"contract": stem, "category": category, **ceiling(quotes, texts)})
    questions = json.loads((ROOT / "lab" / "eval" / "questions.json").read_text())
    # lab/eval/score_retrieval.py asks every question of a category: weigh each category by them.
    weighted = [r for r in rows for _ in questions[r["category"]]]

    def agg(subset: list[dict[str, Any]]) -> dict[str, float]:
        n = len(subset)
        return {f"recall@{k}": round(sum(r[f"r@{k}"] for r in subset) / n, 4) for k in KS} | {"questions": n}

    by_contract: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in weighted:
        by_contract[r["contract"]].append(r)
    summary = {
        "all": agg(weighted),
        "tuning_contracts": agg([r for r in weighted if r["contract"] not in HELD_APART]),
        "held_apart": agg([r for r in weighted if r["contract"] in HELD_APART]),
        "by_contract": {c: agg(v) for c, v in sorted(by_contract.items())},
    }
    if args.out:
        args.out.write_text(json.dumps({"command": " ".join(sys.argv), "summary": summary, "rows": rows}, indent=1))
    for name in ("all", "tuning_contracts", "held_apart"):
        s = summary[name]
        print(f"{name:17} questions {s['questions']:3}  ceiling recall@1 {s['recall@1']:.3f}  @3 {s['recall@3']:.3f}")
    for name, s in summary["by_contract"].items():
        print(f"  {name:20} n={s['questions']:3}  @1 {s['recall@1']:.3f}  @3 {s['recall@3']:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Calibrate the review's "probably absent" threshold on the validation contracts (CUAD).

    .venv/bin/python scripts/ranker_absent.py [--data .device/ranker/data.json.xz] \
        [--out docs/data/s13/absent-calibration.json]

For every checklist item (summarizer/review/checklists/cuad.csv) of every validation contract,
the review's steps are copied: each of the item's queries and its question ranks the contract's
passages (BM25 with the legal lexicon, as scripts/ranker_data.py ranks them: the validation
contracts have no PDF, so not Pagewise's library), the rankings are fused by reciprocal rank
(k = 5), and the shipped clause ranker scores the item's question against the first
``RetrievalParams.rerank_top`` passages; the item's score is the best of those. A category with
no CUAD quote in the contract is a true "absent". The threshold is the highest score below which
"absent" keeps precision >= ``--precision`` on these contracts; the table has precision and
recall of "absent" at every candidate threshold. The labelled set's figures (never used to
choose) are eval/score_review_evidence.py's.
"""

from __future__ import annotations

import argparse
import csv
import json
import lzma
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from ranker_data import ContractBM25, query_words  # noqa: E402


def table(scored: list[tuple[float, bool]], thresholds: list[float]) -> list[dict[str, float]]:
    rows = []
    absent_total = sum(1 for _, present in scored if not present)
    for t in thresholds:
        called = [present for s, present in scored if s < t]
        right = sum(1 for present in called if not present)
        rows.append(
            {
                "threshold": t,
                "called_absent": len(called),
                "precision": round(right / len(called), 4) if called else 1.0,
                "recall": round(right / absent_total, 4) if absent_total else 0.0,
            }
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=ROOT / ".device" / "ranker" / "data.json.xz")
    parser.add_argument("--precision", type=float, default=0.95)
    parser.add_argument("--every", type=int, default=1, help="every Nth validation contract (to save time)")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "data" / "s13" / "absent-calibration.json")
    args = parser.parse_args()
    from summarizer.search.clause_ranker import load_ranker, passage_text
    from summarizer.search.retrieval import DEFAULT_PARAMS

    ranker = load_ranker()
    with lzma.open(args.data) as f:
        data = json.load(f)
    valid = [c for c in data["contracts"] if c["split"] == "validation"][:: args.every]
    with (ROOT / "summarizer" / "review" / "checklists" / "cuad.csv").open(newline="") as f:
        items = list(csv.DictReader(f))
    scored: list[tuple[float, bool]] = []
    per_item: list[dict[str, Any]] = []
    started = time.perf_counter()
    for c in valid:
        bm25 = ContractBM25(c["passages"])
        present = {e["category"].lower() for e in c["eval_examples"] if e["positive"]}
        for item in items:
            queries = [*(q.strip() for q in item["queries"].split("|") if q.strip()), item["question"]]
            fused: dict[int, float] = {}
            for q in queries:
                for rank, i in enumerate(bm25.rank(query_words(q))[:10], start=1):
                    fused[i] = fused.get(i, 0.0) + 1.0 / (5 + rank)
            head = sorted(fused, key=lambda i: (-fused[i], i))[: DEFAULT_PARAMS.rerank_top]
            texts = [passage_text(c["passages"][i]["heading"], c["passages"][i]["text"]) for i in head]
            best = max(ranker.score_texts(item["question"], texts), default=-99.0)
            is_present = item["category"].lower() in present
            scored.append((best, is_present))
            per_item.append(
                {"contract": c["file"], "category": item["category"], "present": is_present, "score": round(best, 3)}
            )
    thresholds = sorted({round(s, 1) for s, _ in scored})
    rows = table(scored, thresholds)
    good = [r for r in rows if r["precision"] >= args.precision and r["called_absent"] >= 10]
    chosen = max(good, key=lambda r: r["threshold"]) if good else None
    result = {
        "command": "scripts/ranker_absent.py " + " ".join(sys.argv[1:]),
        "contracts": len(valid),
        "items": len(scored),
        "absent": sum(1 for _, p in scored if not p),
        "target_precision": args.precision,
        "chosen": chosen,
        "table": rows,
        "seconds": round(time.perf_counter() - started, 1),
        "per_item": per_item,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps({k: v for k, v in result.items() if k not in ("table", "per_item")}, indent=1))


if __name__ == "__main__":
    main()

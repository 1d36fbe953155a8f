"""Calibrate the review's "probably absent" rule on CUAD's validation contracts.

    .venv/bin/python -m lab.training.absent_calibration --home /tmp/valhome [--write] \
        [--out docs/data/absent-calibration/search-prior-cells.json]

``--home``: a library holding the 39 validation contracts (lab/eval/score_validation.py builds it;
never trained on). For every item of the bundled CUAD checklist and every contract, the review's
own evidence step runs (``summarizer.review.evidence.scored_evidence``: each query searched, the
rankings fused, the clause ranker reading the item's question against the best passages); its
best ranker score is kept with whether the lawyers found such a clause there (CUAD's empty
categories are true "absent").

The rule: ``P(absent)`` from a logistic model of two numbers, the best ranker score
and the log-odds of the category's share of the *training* contracts holding such a clause
(``cuad_presence``: most contracts have a governing-law clause, few a most-favoured-nation one).
An item is called absent when ``P(absent) >= threshold``; the threshold is the lowest at which
"absent" keeps precision >= ``--precision`` on these contracts, with each contract's
probabilities from a model fitted without it (5 folds by contract), so the choice is not made on
a fit that has seen the cell. Other inputs are compared the same way (``features_compared``:
recall at that precision and log-loss, e.g. a heading among the evidence that names the
category). A category with no training share (a user's own checklist) keeps the score-only
rule: absent below ``score_only_below``, chosen by the same rule; ``--tuning`` makes both
thresholds stricter until the four tuning contracts reach ``--tuning-precision``. The labelled
set's figures (never used to choose) are lab/eval/score_review_evidence.py's. ``--write`` stores the
model in summarizer/review/checklists/absent-model.json, which the review loads.

The earlier rule (a score threshold of -1.7 chosen with BM25-only rankings of the texts, not
Pagewise's search) is in docs/data/absent-calibration/bm25-retrained-ranker.json.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from lab.eval.cuad_corpus import CORPUS, cuad_annotations, is_validation
from lab.eval.score_retrieval import HELD_APART
from lab.results import write_json
from summarizer.review.absence import AbsenceModel

ROOT = Path(__file__).resolve().parents[2]

MODEL = ROOT / "summarizer" / "review" / "checklists" / "absent-model.json"
FOLDS = 5
P_THRESHOLDS = [round(t, 3) for t in np.arange(0.5, 0.995, 0.005)]


def cuad_presence(corpus: Path) -> dict[str, float]:
    """Each category's share of the training contracts (not validation) that hold such a clause,
    smoothed by one of each (Laplace), keyed by the lower-case CUAD name."""
    total: dict[str, int] = {}
    present: dict[str, int] = {}
    for row in cuad_annotations(corpus):
        if is_validation(row["file"]):
            continue
        c = row["category"].lower()
        total[c] = total.get(c, 0) + 1
        present[c] = present.get(c, 0) + bool(row["quotes"])
    return {c: round((present[c] + 1) / (total[c] + 2), 4) for c in sorted(total)}


# The inputs compared (cross-validated, on these contracts only); the first is the shipped model's,
# summarizer/review/absence.py's formula: [1, best score, log-odds of the category's share].
FEATURE_SETS = ("score+share", "score", "score+heading", "score+share+heading", "score+share+score*share")


def features(cell: dict[str, Any], share: float, kind: str = FEATURE_SETS[0]) -> list[float]:
    log_odds = math.log(share / (1.0 - share))
    row = [1.0, cell["score"]]
    if "share" in kind.split("+"):
        row.append(log_odds)
    if "heading" in kind.split("+"):  # a passage among the evidence under a heading naming the category
        row.append(1.0 if cell["headed"] else 0.0)
    if "score*share" in kind.split("+"):
        row.append(cell["score"] * log_odds)
    return row


def cross_validated(x: np.ndarray, y: np.ndarray, folds: np.ndarray) -> np.ndarray:
    """Each cell's P(absent) from a model fitted without its contract's fold."""
    p = np.zeros(len(y))
    for f in range(FOLDS):
        w = fit(x[folds != f], y[folds != f])
        p[folds == f] = 1.0 / (1.0 + np.exp(-(x[folds == f] @ w)))
    return p


def fit(x: np.ndarray, y: np.ndarray, l2: float = 1e-3) -> np.ndarray:
    """Logistic regression by Newton's method (y = 1: absent), a small ridge on the slopes."""
    w = np.zeros(x.shape[1])
    ridge = np.diag([0.0] + [l2] * (x.shape[1] - 1))
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-(x @ w)))
        grad = x.T @ (p - y) + ridge @ w
        hess = (x * (p * (1 - p))[:, None]).T @ x + ridge
        step = np.linalg.solve(hess, grad)
        w -= step
        if float(np.abs(step).max()) < 1e-9:
            break
    return w


def table(called_by: list[tuple[float, bool]], thresholds: list[float], above: bool) -> list[dict[str, float]]:
    """Precision and recall of "absent" at each threshold; ``above``: absent when value >= t
    (probabilities), else when value < t (scores)."""
    absent_total = sum(1 for _, present in called_by if not present)
    rows = []
    for t in thresholds:
        called = [present for v, present in called_by if (v >= t if above else v < t)]
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


def meets(row: dict[str, float], precision: float) -> bool:
    """A threshold's row keeps ``precision`` and calls at least 10 cells absent."""
    return row["precision"] >= precision and row["called_absent"] >= 10


def best_recall(rows: list[dict[str, float]], precision: float) -> dict[str, float] | None:
    """The row with the most recall among those that meet ``precision`` (the lowest threshold on a tie)."""
    good = [r for r in rows if meets(r, precision)]
    return max(good, key=lambda r: (r["recall"], -r["threshold"])) if good else None


def tighten(
    rows: list[dict[str, float]], tuning: list[tuple[float, bool]], precision: float, above: bool
) -> list[dict[str, Any]]:
    """For each validation row (from the calibrated threshold to stricter ones), the tuning cells'
    precision and recall at its threshold and whether they reach ``precision``."""
    out = []
    for row in rows:
        (t,) = table(tuning, [row["threshold"]], above=above)
        out.append({"validation": row, "tuning": t, "meets": meets(t, precision)})
    return out


def review_cells(home: Path, corpus: Path) -> list[dict[str, Any]]:
    """The review's best ranker score for every item of every validation contract in ``home``."""
    os.environ["PAGEWISE_HOME"] = str(home)
    from summarizer.library.storage.store import Library
    from summarizer.review.checklist import load_checklist
    from summarizer.review.evidence import headed_by, scored_evidence

    checklist = load_checklist("cuad")
    present: dict[str, set[str]] = {}
    for row in cuad_annotations(corpus):
        if is_validation(row["file"]) and row["quotes"]:
            present.setdefault(Path(row["file"]).stem, set()).add(row["category"].lower())
    cells = []
    with Library.open() as library:
        docs = [d for d in library.documents() if d.state == "ready"]
        for n, record in enumerate(docs, start=1):
            for item in checklist.items:
                evidence, _, score = scored_evidence(library, record.doc_id, item)
                cells.append(
                    {
                        "contract": record.title,
                        "category": item.category,
                        "present": item.category.lower() in present.get(record.title, set()),
                        "score": round(score if score is not None else -99.0, 3),
                        # a passage among the evidence under a heading naming the category
                        "headed": bool(headed_by(library, item.category, [e.passage_id for e in evidence])),
                    }
                )
            print(f"{n}/{len(docs)} {record.title[:60]}", file=sys.stderr)
    return cells


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--precision", type=float, default=0.95)
    parser.add_argument(
        "--tuning",
        type=Path,
        help="an lab/eval/score_review_evidence.py --out JSON: the threshold must also give the four tuning "
        "contracts' cells precision >= --tuning-precision (the held-apart pair's cells are not read)",
    )
    parser.add_argument("--tuning-precision", type=float, default=0.90)
    parser.add_argument("--cells", type=Path, help="reuse the cells of an earlier --out instead of reviewing again")
    parser.add_argument("--write", action="store_true", help=f"store the model in {MODEL.relative_to(ROOT)}")
    parser.add_argument(
        "--out", type=Path, default=ROOT / "docs" / "data" / "absent-calibration" / "search-prior-cells.json"
    )
    args = parser.parse_args()
    started = time.perf_counter()
    shares = cuad_presence(args.corpus)
    cells = json.loads(args.cells.read_text())["cells"] if args.cells else review_cells(args.home, args.corpus)
    share_of = [shares[c["category"].lower()] for c in cells]
    y = np.array([0.0 if c["present"] else 1.0 for c in cells])
    contracts = sorted({c["contract"] for c in cells})
    fold_of = {name: i % FOLDS for i, name in enumerate(contracts)}
    folds = np.array([fold_of[c["contract"]] for c in cells])
    compared = {}
    for kind in FEATURE_SETS:
        p = cross_validated(np.array([features(c, s, kind) for c, s in zip(cells, share_of, strict=True)]), y, folds)
        rows = table([(float(v), c["present"]) for v, c in zip(p, cells, strict=True)], P_THRESHOLDS, above=True)
        log_loss = -float(np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))
        compared[kind] = {"chosen": best_recall(rows, args.precision), "log_loss": round(log_loss, 4), "rows": rows}
    x = np.array([features(c, s) for c, s in zip(cells, share_of, strict=True)])
    w = fit(x, y)
    p_rows = compared[FEATURE_SETS[0]]["rows"]
    chosen = best_recall(p_rows, args.precision)
    scores = [(c["score"], c["present"]) for c in cells]
    s_rows = table(scores, sorted({round(s, 1) for s, _ in scores}), above=False)
    good = [r for r in s_rows if meets(r, args.precision)]
    score_only = max(good, key=lambda r: r["threshold"]) if good else None
    fitted = AbsenceModel(float(w[0]), float(w[1]), float(w[2]), 1.0, -99.0, shares)
    tuning_rows: list[dict[str, Any]] = []
    score_only_rows: list[dict[str, Any]] = []
    if args.tuning:
        # The calibration does not carry over whole from CUAD's texts to the fixtures' PDFs (at
        # validation precision 0.95 the four tuning contracts' is 0.85): each threshold is made
        # stricter, to the first that also gives the tuning four's cells --tuning-precision.
        tuning_cells = [
            c
            for c in json.loads(args.tuning.read_text())["cells"]
            if c["contract"] not in HELD_APART and c["clause_score"] is not None
        ]
        by_p = [
            (p, not c["labelled_absent"])
            for c in tuning_cells
            if (p := fitted.probability(c["clause_score"], c["category"])) is not None
        ]
        by_score = [(c["clause_score"], not c["labelled_absent"]) for c in tuning_cells]
        if chosen:
            stricter = [r for r in p_rows if r["threshold"] >= chosen["threshold"] and r["precision"] >= args.precision]
            tuning_rows = tighten(stricter, by_p, args.tuning_precision, above=True)
            chosen = next((r["validation"] for r in tuning_rows if r["meets"]), chosen)
        if score_only:
            stricter = [r for r in s_rows if r["threshold"] <= score_only["threshold"]][::-1]
            score_only_rows = tighten(stricter, by_score, args.tuning_precision, above=False)
            score_only = next((r["validation"] for r in score_only_rows if r["meets"]), score_only)
    model = {
        "about": "lab/training/absent_calibration.py: P(absent) = 1 / (1 + exp(-(intercept + score * best ranker score "
        "+ share * log(share / (1 - share))))), absent when P >= threshold; without a share: absent when "
        "the best score < score_only_below",
        "intercept": round(float(w[0]), 4),
        "score": round(float(w[1]), 4),
        "share": round(float(w[2]), 4),
        "threshold": chosen["threshold"] if chosen else 1.0,
        "score_only_below": score_only["threshold"] if score_only else -99.0,
        "cuad_presence": shares,
    }
    result = {
        "command": "python -m lab.training.absent_calibration " + " ".join(sys.argv[1:]),
        "contracts": len(contracts),
        "items": len(cells),
        "absent": int(y.sum()),
        "target_precision": args.precision,
        "model": {k: v for k, v in model.items() if k != "cuad_presence"},
        "features_compared": {k: {"chosen": v["chosen"], "log_loss": v["log_loss"]} for k, v in compared.items()},
        "chosen": chosen,
        "tuning_check": tuning_rows,
        "score_only_chosen": score_only,
        "score_only_tuning_check": score_only_rows,
        "table_probability": p_rows,
        "table_score_only": s_rows,
        "seconds": round(time.perf_counter() - started, 1),
        "cells": cells,
    }
    write_json(args.out, result)
    if args.write:
        write_json(MODEL, model)
    print(json.dumps({k: v for k, v in result.items() if not k.startswith("table") and k != "cells"}, indent=1))


if __name__ == "__main__":
    main()

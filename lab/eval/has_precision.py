"""What an evidence-only "has X" cell is worth: its precision against CUAD's lawyers (issue 56, item 3).

    .venv/bin/python -m lab.eval.has_precision [--out docs/data/has-precision/read480.json]

An evidence-only cell "has" the clause when passages were found and the absence model
(summarizer/review/absence.py, the shipped ``absent-model.json``) does not call it "probably
absent". This script reads the cells the absence calibration already scored, with no new review:

- *validation*: ``docs/data/absent-calibration/read480-cells.json``, every item of the bundled
  CUAD checklist on the 39 validation contracts (never trained on), the best ranker score of the
  review's own evidence and whether CUAD's lawyers found such a clause;
- *tuning*: ``docs/data/absent-calibration/read480-review-final.json``, the labelled set's cells
  (lab/eval/labels/), without the held-apart pair (``HELD_APART``): four contracts.

It reports the precision of "has" on each (overall and per item on validation), then whether a
middle state "likely present" can be drawn by the best score: the threshold is chosen on the
tuning cells only (the lowest score, in steps of 0.1, at which "has" and the score at least the
threshold keeps precision >= ``--precision`` over at least 10 cells) and its precision on
validation is reported, never used to choose. "Likely present" is shipped only if that
validation precision is >= ``--precision`` too; otherwise the cell is relabelled "candidate
passage" (docs/checklists.md has the figures).

P(absent) is not tried as the middle state's measure: the absence model's weights were fitted on
these validation cells, so its validation figure would not be held apart.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from lab.eval.score_retrieval import HELD_APART
from lab.results import write_json
from summarizer.review.absence import AbsenceModel, absence_model

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "docs" / "data" / "absent-calibration"
Cell = tuple[float, str, bool]  # best ranker score, category, labelled present


def validation_cells(path: Path) -> list[Cell]:
    return [(float(c["score"]), c["category"], bool(c["present"])) for c in json.loads(path.read_text())["cells"]]


def tuning_cells(path: Path) -> list[Cell]:
    return [
        (float(c["clause_score"]), c["category"], not c["labelled_absent"])
        for c in json.loads(path.read_text())["cells"]
        if c["contract"] not in HELD_APART and c["clause_score"] is not None
    ]


def precision(cells: list[Cell]) -> dict[str, Any]:
    right = sum(present for _, _, present in cells)
    return {"cells": len(cells), "present": right, "precision": round(right / len(cells), 3) if cells else None}


def has_cells(cells: list[Cell], model: AbsenceModel) -> list[Cell]:
    """The cells an evidence-only table shows as "has": not probably absent."""
    return [c for c in cells if not model.is_absent(c[0], c[1])]


def summary(cells: list[Cell], model: AbsenceModel) -> dict[str, Any]:
    absent = [c for c in cells if model.is_absent(c[0], c[1])]
    wrong_absent = sum(present for _, _, present in absent)
    return {
        "items": len(cells),
        "has": precision(has_cells(cells, model)),
        "probably_absent": {"cells": len(absent), "labelled_present": wrong_absent},
    }


def at_threshold(cells: list[Cell], model: AbsenceModel, threshold: float) -> dict[str, Any]:
    kept = [c for c in has_cells(cells, model) if c[0] >= threshold]
    row = precision(kept)
    present = sum(p for _, _, p in cells)
    row["recall"] = round(row["present"] / present, 3) if present else None
    return {"threshold": threshold, **row}


def choose(cells: list[Cell], model: AbsenceModel, target: float) -> dict[str, Any] | None:
    """The lowest score threshold whose "has" cells keep ``target`` precision over >= 10 cells."""
    for step in range(-50, 101):
        row = at_threshold(cells, model, step / 10)
        if row["cells"] >= 10 and row["precision"] >= target:
            return row
    return None


def per_item(cells: list[Cell], model: AbsenceModel) -> dict[str, dict[str, Any]]:
    items: dict[str, list[Cell]] = {}
    for cell in has_cells(cells, model):
        items.setdefault(cell[1], []).append(cell)
    return {name: precision(group) for name, group in sorted(items.items())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--validation", type=Path, default=DATA / "read480-cells.json")
    parser.add_argument("--tuning", type=Path, default=DATA / "read480-review-final.json")
    parser.add_argument("--precision", type=float, default=0.90)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "data" / "has-precision" / "read480.json")
    args = parser.parse_args()
    model = absence_model()
    validation, tuning = validation_cells(args.validation), tuning_cells(args.tuning)
    chosen = choose(tuning, model, args.precision)
    on_validation = at_threshold(validation, model, chosen["threshold"]) if chosen else None
    ships = bool(on_validation and on_validation["precision"] and on_validation["precision"] >= args.precision)
    result = {
        "command": "python -m lab.eval.has_precision " + " ".join(sys.argv[1:]),
        "validation": summary(validation, model),
        "tuning": summary(tuning, model),
        "likely_present": {
            "target_precision": args.precision,
            "chosen_on_tuning": chosen,
            "on_validation": on_validation,
            "ships": ships,
        },
        "validation_by_threshold": [at_threshold(validation, model, t / 2) for t in range(0, 15)],
        "tuning_by_threshold": [at_threshold(tuning, model, t / 2) for t in range(0, 15)],
        "validation_has_by_item": per_item(validation, model),
    }
    write_json(args.out, result)
    print(json.dumps({k: result[k] for k in ("validation", "tuning", "likely_present")}, indent=1))


if __name__ == "__main__":
    main()

"""What each part of the legal lexicon and each hand-set weight still adds, now that the trained
ranker reorders the fused ranking (issue 26, item 5).

    .venv/bin/python -m lab.eval.lexicon_ablation --home /tmp/evalhome --val-home /tmp/valhome \
        [--weights [--no-entries]] [--out docs/data/lexicon/ablation.json]

``--home``: a library holding the six labelled fixtures (lab/eval/score_retrieval.py builds it);
``--val-home``: one holding CUAD's 39 validation contracts (lab/eval/score_validation.py builds it).
Every question of both sets is asked once with the shipped settings. Then, for each entry of
``summarizer.search.legal_lexicon.LEXICON``, the entry is taken out and only the questions whose
expansion terms change are asked again (the others cannot change): the table gives, per entry,
how many questions it touches and recall@3 with and without it on the four tuning contracts, on
the validation contracts and (reported only, never used to choose) on the two held apart.
``--weights`` also asks every question with each hand-set weight of ``RetrievalParams`` at its
neutral value (and with no lexicon at all).

The rule: an entry or weight is deleted only when taking it out costs nothing on the deciding
sets: recall@3 summed over the tuning four's and the validation contracts' questions does not
drop and neither set loses more than a question's worth (``verdict``). The first rule written
(keep only what is worth more than 0.5% of the pooled recall) would have deleted entries whose
removal loses a question on each set; it was replaced by this one after the first run, before
any entry was deleted, and the held-apart pair was not looked at for it.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from lab.eval.quote_match import quote_found
from lab.eval.score_retrieval import HELD_APART, load_labels
from lab.eval.score_validation import CORPUS, labels_of, validation_contracts
from lab.results import write_json

ROOT = Path(__file__).resolve().parents[2]

GROUPS = ("tuning", "validation", "held_apart")
# Each weight at the value that switches it off.
NEUTRAL = {
    "heading_weight": 1.0,
    "attachment_weight": 1.0,
    "max_term_share": 1.0,
    "max_overlap": 1.0,
    "vector_weight": 0.0,
    "expand_query": False,
}


@dataclasses.dataclass
class Question:
    group: str  # tuning, held_apart, validation
    home: str
    doc_id: str
    contract: str
    question: str
    quotes: list[str]


def doc_ids_by_title(home: Path) -> dict[str, str]:
    from summarizer.library.storage.store import Library

    os.environ["PAGEWISE_HOME"] = str(home)
    with Library.open() as library:
        return {Path(d.path).stem: d.doc_id for d in library.documents()}


def questions_of(home: Path, labels: dict[str, dict[str, Any]], group_of: Any) -> list[Question]:
    questions: dict[str, list[str]] = json.loads((ROOT / "lab" / "eval" / "questions.json").read_text())
    ids = doc_ids_by_title(home)
    out = []
    for stem, data in labels.items():
        if stem not in ids:
            raise SystemExit(f"{stem} is not in the library {home}: build it first (see the docstring)")
        for category, entry in data["labels"].items():
            if entry["status"] == "absent":
                continue
            quotes = [c["quote"] for c in entry["clauses"]]
            out += [Question(group_of(stem), str(home), ids[stem], stem, q, quotes) for q in questions[category]]
    return out


def recall3(questions: list[Question], params: Any) -> list[float]:
    from summarizer.library.storage.store import Library
    from summarizer.search.retrieval import search

    scores = [0.0] * len(questions)
    for home in dict.fromkeys(q.home for q in questions):
        os.environ["PAGEWISE_HOME"] = home
        with Library.open() as library:
            for i, q in enumerate(questions):
                if q.home == home:
                    texts = [r.text for r in search(library, q.question, doc_ids=[q.doc_id], k=3, params=params)]
                    scores[i] = sum(any(quote_found(x, t) for t in texts) for x in q.quotes) / len(q.quotes)
    return scores


def by_group(questions: list[Question], scores: list[float]) -> dict[str, dict[str, float]]:
    out = {}
    for group in GROUPS:
        picked = [s for q, s in zip(questions, scores, strict=True) if q.group == group]
        out[group] = {"questions": len(picked), "recall@3": round(sum(picked) / len(picked), 4) if picked else 0.0}
    return out


def verdict(questions: list[Question], base: list[float], without: list[float]) -> str:
    """``keep`` when removing lowers the deciding sets' recall (the module docstring's rule)."""
    deciding = [i for i, q in enumerate(questions) if q.group != "held_apart"]
    loss = sum(base[i] - without[i] for i in deciding)
    per_set = {
        g: sum(base[i] - without[i] for i in deciding if questions[i].group == g) for g in ("tuning", "validation")
    }
    if loss > 1e-9 or max(per_set.values()) > 1.0:
        return "keep"
    return "delete"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--home", type=Path, required=True)
    ap.add_argument("--val-home", type=Path, required=True)
    ap.add_argument("--corpus", type=Path, default=CORPUS)
    ap.add_argument("--weights", action="store_true", help="also each hand-set weight at its neutral value")
    ap.add_argument("--no-entries", action="store_true", help="skip the lexicon entries (with --weights: weights only)")
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "data" / "lexicon" / "ablation.json")
    args = ap.parse_args()
    from summarizer.search import legal_lexicon
    from summarizer.search.retrieval import DEFAULT_PARAMS

    started = time.perf_counter()
    fixtures = questions_of(args.home, load_labels(), lambda s: "held_apart" if s in HELD_APART else "tuning")
    names = {name for name, _ in validation_contracts(args.corpus)}
    spelled = set(json.loads((ROOT / "lab" / "eval" / "questions.json").read_text()))
    validation = questions_of(args.val_home, labels_of(args.corpus, names, spelled), lambda s: "validation")
    questions = fixtures + validation
    base = recall3(questions, DEFAULT_PARAMS)
    report: dict[str, Any] = {
        "command": "python -m lab.eval.lexicon_ablation " + " ".join(sys.argv[1:]),
        "shipped": by_group(questions, base),
        "entries": [],
        "weights": [],
    }
    print(json.dumps(report["shipped"]), file=sys.stderr)
    full = legal_lexicon.LEXICON
    limit = DEFAULT_PARAMS.max_expansion_terms
    try:
        for entry in () if args.no_entries else full:
            without = tuple(e for e in full if e is not entry)
            touched = [
                i
                for i, q in enumerate(questions)
                if legal_lexicon.expand(full, q.question, limit) != legal_lexicon.expand(without, q.question, limit)
            ]
            legal_lexicon.LEXICON = without
            scores = list(base)
            for i, s in zip(touched, recall3([questions[i] for i in touched], DEFAULT_PARAMS), strict=True):
                scores[i] = s
            legal_lexicon.LEXICON = full
            row = {
                "concept": entry.concept,
                "questions_touched": {g: sum(questions[i].group == g for i in touched) for g in GROUPS},
                "without": by_group(questions, scores),
                "verdict": verdict(questions, base, scores),
            }
            report["entries"].append(row)
            print(json.dumps(row), file=sys.stderr)
    finally:
        legal_lexicon.LEXICON = full
    if args.weights:
        for name, value in NEUTRAL.items():
            scores = recall3(questions, dataclasses.replace(DEFAULT_PARAMS, **{name: value}))
            row = {"weight": name, "shipped": getattr(DEFAULT_PARAMS, name), "neutral": value}
            row |= {"without": by_group(questions, scores), "verdict": verdict(questions, base, scores)}
            report["weights"].append(row)
            print(json.dumps(row), file=sys.stderr)
    report["seconds"] = round(time.perf_counter() - started)
    write_json(args.out, report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

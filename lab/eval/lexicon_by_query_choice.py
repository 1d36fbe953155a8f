"""How the rule of ``RetrievalParams.lexicon_by_query`` was chosen (issue 58 item 2), from runs made
before it, on the tuning data only.

    .venv/bin/python -m lab.eval.lexicon_by_query_choice --cuad-home build/r58/evalhome \\
        --acord-home build/acord/home [--out docs/data/lexicon-by-query/choice.json]

A query's search depends only on which of two settings it gets: today's (the lexicon's terms in the
one BM25 query) or the lexicon as a ranking of weight 0.25. Both were run on every query already:

- ACORD's 51 training queries, cross-validated NDCG@5 (docs/data/acord/lexicon-tries.json: the
  systems ``search`` and ``search, lexicon as a lower-weighted ranking (w=0.25)``);
- the labelled set's four tuning contracts, recall@3 of CUAD's questions
  (docs/data/retrieval/labelled-lexicon_ranking_weight=0.json and =0.25.json, their tuning rows).

So a rule's figure on each is the mean, over queries, of the w=0.25 row where the rule fires and the
today row where it does not. No validation contract, no ACORD validation query and no row of the
labelled set's held-apart pair is read. The rules (each fires when the query has a term that):

- ``first``: lab.eval.acord_tries's (no matched lexicon entry covers it, at most 5% of passages);
- ``held``: ... and at least one passage holds it;
- ``held, id > T``: ... and it is not among the first T entries of the shipped clause ranker's
  WordPiece vocabulary (common English; summarizer.search.distinctive), T from 3,000 to 13,000;
- ``not a question``: the first rule, for a query that is not a question (no '?', no question
  word first); considered, not taken: a rule about the query's form, which CUAD's questions (all
  questions) cannot test.
"""

from __future__ import annotations

import argparse
import json
import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from statistics import mean
from typing import Any

from lab.results import write_json

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "docs" / "data"
TRAIN = "train (cross-validated)"
THRESHOLDS = tuple(range(3000, 13001, 500))
QUESTION = re.compile(
    r"^\s*(who|what|when|where|which|why|how|is|are|does|do|did|can|could|will|would|should|must|may|has|have|if)\b",
    re.IGNORECASE,
)
# (word, passages holding it) of a query's words that no lexicon entry covers, at most 5% of passages
Terms = list[tuple[str, int]]


def candidate_terms(home: Path, queries: Sequence[str]) -> dict[str, Terms]:
    """Each query's first-rule terms (lab.eval.acord_tries) with how many passages hold each."""
    os.environ["PAGEWISE_HOME"] = str(home)
    from lab.eval.acord_tries import distinctive_terms
    from summarizer.library.storage.queries import passage_id_range, passages_matching_in_id_range
    from summarizer.library.storage.store import Library
    from summarizer.search.fts_query import fts_string

    out: dict[str, Terms] = {}
    with Library.open() as library:
        bounds = passage_id_range(library, None)
        assert bounds is not None
        for query in queries:
            out[query] = [
                (w, passages_matching_in_id_range(library, fts_string(w), *bounds))
                for w in distinctive_terms(library, query)
            ]
    return out


def vocabulary_ids() -> dict[str, int]:
    from summarizer.library.storage.paths import assets_dir

    path = assets_dir() / "models" / "clause-ranker" / "tokenizer.json"
    return dict(json.loads(path.read_text(encoding="utf-8"))["model"]["vocab"])


def rules() -> dict[str, Callable[[str, Terms], bool]]:
    ids = vocabulary_ids()
    found: dict[str, Callable[[str, Terms], bool]] = {
        "first": lambda _q, terms: bool(terms),
        "held": lambda _q, terms: any(n > 0 for _, n in terms),
    }

    def uncommon(rank: int) -> Callable[[str, Terms], bool]:
        return lambda _q, terms: any(n > 0 and ids.get(w, 10**9) > rank for w, n in terms)

    for t in THRESHOLDS:
        found[f"held, id > {t}"] = uncommon(t)
    found["not a question"] = lambda q, terms: bool(terms) and "?" not in q and not QUESTION.match(q)
    return found


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cuad-home", type=Path, required=True, help="the labelled set's library (six contracts)")
    ap.add_argument("--acord-home", type=Path, required=True, help="the ACORD library")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    from lab.eval.score_retrieval import HELD_APART

    acord_rows = json.loads((DATA / "acord" / "lexicon-tries.json").read_text())["rows"]
    today = {r["query"]: r["ndcg@5"] for r in acord_rows if r["system"] == "search" and r["split"] == TRAIN}
    weighed = {
        r["query"]: r["ndcg@5"]
        for r in acord_rows
        if r["system"] == "search, lexicon as a lower-weighted ranking (w=0.25)" and r["split"] == TRAIN
    }
    labelled = [
        [r for r in json.loads((DATA / "retrieval" / f"labelled-lexicon_ranking_weight={w}.json").read_text())["rows"]]
        for w in ("0", "0.25")
    ]
    tuning = [[r for r in rows if r["contract"] not in HELD_APART] for rows in labelled]
    assert [(r["contract"], r["question"]) for r in tuning[0]] == [(r["contract"], r["question"]) for r in tuning[1]]
    questions = sorted({r["question"] for r in tuning[0]})
    cuad_terms = candidate_terms(args.cuad_home.resolve(), questions)
    acord_terms = candidate_terms(args.acord_home.resolve(), list(today))
    table: list[dict[str, Any]] = [
        {"rule": "today (none fires)", "acord": mean(today.values()), "tuning": mean(r["r@3"] for r in tuning[0])},
        {"rule": "w=0.25 (all fire)", "acord": mean(weighed.values()), "tuning": mean(r["r@3"] for r in tuning[1])},
    ]
    for name, fires in rules().items():
        acord_fired = {q for q in today if fires(q, acord_terms[q])}
        cuad_fired = {q for q in questions if fires(q, cuad_terms[q])}
        table.append(
            {
                "rule": name,
                "acord": mean(weighed[q] if q in acord_fired else today[q] for q in today),
                "acord_fired": len(acord_fired),
                "tuning": mean(
                    b["r@3"] if a["question"] in cuad_fired else a["r@3"] for a, b in zip(*tuning, strict=True)
                ),
                "tuning_fired": len(cuad_fired),
            }
        )
    print(
        f"| rule | ACORD train CV NDCG@5 (fires on, of {len(today)}) "
        f"| tuning four recall@3 (fires on, of the {len(questions)} questions asked of them) |"
    )
    print("|---|---|---|")
    for row in table:
        fired = [f" ({row[k]})" if k in row else "" for k in ("acord_fired", "tuning_fired")]
        print(f"| {row['rule']} | {row['acord']:.3f}{fired[0]} | {row['tuning']:.3f}{fired[1]} |")
    if args.out:
        report = {"acord_queries": len(today), "tuning_questions": len(questions), "tuning_rows": len(tuning[0])}
        write_json(args.out, report | {"table": table})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

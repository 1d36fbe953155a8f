"""The clauses a trained clause ranker is asked about on ACORD, written once from the ACORD library.

    flock /tmp/pagewise-cpu.lock env PYTHONPATH=$PWD .venv/bin/python -m lab.eval.acord_candidates \
        [--home build/acord/home] [--out docs/data/acord/candidates.json]

For each of the 57 training and validation queries: the plain hybrid's first ``HYBRID_DEPTH``
clauses (lab.eval.acord_systems' ``hybrid``: BM25 of the query's own words and the clause embedder,
fused by reciprocal rank, no ranker) and ``search``'s first 10 before its ranker (``DEFAULT_PARAMS``
with ``rerank_top=0``), as clause ids, best first. Nothing here reads a grade: the lists are what
search would show a ranker, so the training (lab.training.acord_ranker) can use them as the hard
negatives of a training query and as the passages it reorders for a scored one, on a machine that
has no Pagewise library (the GPU machine), and lab.eval.acord_trained can score the trained
ranker through the product's own ``retrieval.rerank`` on the same clauses.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from lab.eval.acord import DATA, ROOT, read_queries
from lab.eval.acord_library import HOME, clause_of_passage, use_home

OUT = ROOT / "docs" / "data" / "acord" / "candidates.json"
HYBRID_DEPTH = 50  # the plain hybrid's first 50 (search's own candidates from each ranking are 50)
SEARCH_DEPTH = 10  # search's first 10 before the ranker: what the product's ranker reorders


def candidates(queries: Sequence[str]) -> dict[str, dict[str, list[str]]]:
    """Query -> {"hybrid": clause ids, "search": clause ids}, best first."""
    from lab.eval.acord_systems import plain_params
    from summarizer.library.storage.store import Library
    from summarizer.search.retrieval import DEFAULT_PARAMS, search

    clause_of = clause_of_passage()
    plain = plain_params()
    unranked = replace(DEFAULT_PARAMS, rerank_top=0)
    out: dict[str, dict[str, list[str]]] = {}
    with Library.open() as library:
        for query in queries:
            hybrid = search(library, query, k=HYBRID_DEPTH, params=plain)
            searched = search(library, query, k=SEARCH_DEPTH, params=unranked)
            out[query] = {
                "hybrid": list(dict.fromkeys(clause_of[r.passage_id] for r in hybrid)),
                "search": list(dict.fromkeys(clause_of[r.passage_id] for r in searched)),
            }
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DATA, help="the acord-train folder")
    ap.add_argument("--home", type=Path, default=HOME, help="the ACORD library, built by lab.eval.score_acord")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    use_home(args.home)
    queries = [q.text for q in read_queries(args.data)]
    found = candidates(queries)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(
        json.dumps({"hybrid_depth": HYBRID_DEPTH, "search_depth": SEARCH_DEPTH, "queries": found}) + "\n"
    )
    print(f"{len(found)} queries -> {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Warm library-wide search with the lexicon as a ranking of its own or not (issue 58, Keep: "the
search stays <= 1 s warm on the 449-contract library").

    PAGEWISE_HOME=<a copy of build/dataroom-bench/home-449> .venv/bin/python -m lab.bench.lexicon_search_latency \
        [--weights 0,0.25] [--by-query] [--rounds 3] [--out docs/data/dataroom-scale/lexicon-latency.json]

``RetrievalParams.lexicon_ranking_weight`` 0 is one BM25 query holding the question's words and the
lexicon's terms; above 0 the lexicon's terms are a second BM25 ranking of that weight (two FTS5
queries a search instead of one). ``--by-query`` also times each weight above 0 with
``lexicon_by_query`` on: the second ranking only for a question with distinctive terms of its own
(summarizer.search.distinctive, which counts the library's passages holding each candidate word).
The questions: the 13 variant questions
(lab/eval/dataroom_variant_questions.json) and the six category questions of
``lab.eval.dataroom_quality``. Timed, in one process after a first search has loaded the encoder,
the ranker and the term counts (warm):

* ``search --all``: ``summarizer.search.retrieval.search(library, question, k=3)``, what
  ``pagewise search --all QUESTION`` runs (its default ``-k`` 3), without the printing;
* ``by contract``: ``summarizer.search.by_contract.best_passage_per_contract``, what the window's
  library-wide question runs before any model is asked (``pagewise ask --all`` runs ``search``).

Each question is asked under every setting in turn, ``--rounds`` times, so the settings share the
machine's load. Prints one JSON object (median, p95 and max in ms per setting and call) and writes
it to ``--out``. Opening a library writes its WAL files: point ``PAGEWISE_HOME`` at a copy.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path

from lab.eval.dataroom_quality import CATEGORY_QUESTIONS, VARIANTS
from lab.results import write_json


def questions() -> list[str]:
    variants = [q["question"] for q in json.loads(VARIANTS.read_text())["questions"]]
    return variants + list(CATEGORY_QUESTIONS.values())


def figures(seconds: Sequence[float]) -> dict[str, float]:
    ordered = sorted(seconds)
    return {
        "n": len(ordered),
        "median_ms": round(1000 * statistics.median(ordered), 1),
        "p95_ms": round(1000 * ordered[int(0.95 * (len(ordered) - 1))], 1),
        "max_ms": round(1000 * ordered[-1], 1),
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--weights", default="0,0.25", help="lexicon_ranking_weight values, comma-separated")
    parser.add_argument(
        "--by-query",
        action="store_true",
        help="also each weight above 0 with lexicon_by_query on (the lexicon chosen by the query)",
    )
    parser.add_argument("--rounds", type=int, default=3, help="times each question is asked under each setting")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    if "PAGEWISE_HOME" not in os.environ:
        raise SystemExit("set PAGEWISE_HOME to (a copy of) the data room's library, e.g. build/dataroom-bench/home-449")
    from summarizer.library.storage.store import Library
    from summarizer.search.by_contract import LIBRARY_PARAMS, best_passage_per_contract
    from summarizer.search.retrieval import DEFAULT_PARAMS, search

    weights = [float(w) for w in args.weights.split(",")]
    settings = [(w, False) for w in weights] + [(w, True) for w in weights if args.by_query and w > 0]
    asked = questions()
    timings: dict[tuple[str, str], list[float]] = {}
    per_question: dict[str, dict[str, list[float]]] = {}
    with Library.open() as library:
        documents = len(library.documents())
        search(library, "warm up the encoder, the ranker and the term counts", k=3)
        best_passage_per_contract(library, "warm up the library-wide question")
        for _round in range(args.rounds):
            for question in asked:
                for weight, by_query in settings:
                    one = replace(DEFAULT_PARAMS, lexicon_ranking_weight=weight, lexicon_by_query=by_query)
                    wide = replace(LIBRARY_PARAMS, lexicon_ranking_weight=weight, lexicon_by_query=by_query)
                    calls: dict[str, Callable[[], object]] = {
                        "search --all": partial(search, library, question, k=3, params=one),
                        "by contract": partial(best_passage_per_contract, library, question, params=wide),
                    }
                    setting = f"lexicon_ranking_weight={weight}" + (", lexicon_by_query" if by_query else "")
                    for name, call in calls.items():
                        started = time.perf_counter()
                        call()
                        elapsed = time.perf_counter() - started
                        timings.setdefault((name, setting), []).append(elapsed)
                        per_question.setdefault(f"{name} | {setting} | {question}", {"s": []})["s"].append(elapsed)
    result = {
        "library": os.environ["PAGEWISE_HOME"],
        "documents": documents,
        "questions": len(asked),
        "rounds": args.rounds,
        "cpus": os.cpu_count(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "timings": {f"{name}, {setting}": figures(s) for (name, setting), s in timings.items()},
        "slowest": sorted(
            ((key, round(1000 * max(v["s"]), 1)) for key, v in per_question.items()), key=lambda kv: -kv[1]
        )[:5],
    }
    print(json.dumps(result, indent=1))
    if args.out:
        write_json(args.out, result)


if __name__ == "__main__":
    main()

"""How many queries of each evaluation have distinctive terms, by the two rules (issue 58 item 2).

    .venv/bin/python -m lab.eval.distinctive_counts --home valhome=build/r58/valhome \\
        --home evalhome=build/r58/evalhome --home reviewhome=build/r58/reviewhome \\
        --home acord=build/acord/home [--out docs/data/lexicon-by-query/counts.json]

A query's distinctive terms depend on the library (a word held by at most 5% of its passages), so
each query set is counted against the library its figure is run on: CUAD's questions
(lab/eval/questions.json) against the validation contracts' library (lab.eval.score_validation)
and the labelled set's (lab.eval.score_retrieval), the CUAD review checklist's queries and questions
against the review's library (lab.eval.score_review_evidence: the same six contracts), ACORD's
training and validation queries against the ACORD library (lab.eval.acord_library). Two rules:

- ``first``: lab.eval.acord_tries.distinctive_terms (not covered by a matched lexicon entry, held by
  at most 5% of the passages, none at all included), the rule of the earlier tries;
- ``stricter``: summarizer.search.distinctive.distinctive_terms (also held by at least one passage,
  and not a common English word), what ``RetrievalParams.lexicon_by_query`` chooses by.

Reads the libraries only (no search, no embedding). Prints each query with its terms by both rules.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lab.results import write_json

ROOT = Path(__file__).resolve().parents[2]
SETS = {  # library name -> the query sets counted against it
    "valhome": ("cuad questions",),
    "evalhome": ("cuad questions",),
    "reviewhome": ("cuad questions", "review checklist"),
    "acord": ("acord train", "acord valid"),
}


def query_set(name: str) -> list[str]:
    if name == "cuad questions":
        questions: dict[str, list[str]] = json.loads((ROOT / "lab" / "eval" / "questions.json").read_text())
        return [q for qs in questions.values() for q in qs]
    if name == "review checklist":
        from summarizer.review.checklist import load_checklist

        return [q for item in load_checklist("cuad").items for q in (*item.queries, item.question)]
    from lab.eval.acord import read_queries

    return [q.text for q in read_queries() if q.split == name.split()[1]]


def count(home: Path, sets: Sequence[str]) -> dict[str, Any]:
    os.environ["PAGEWISE_HOME"] = str(home)
    from lab.eval.acord_tries import distinctive_terms as first_rule
    from summarizer.library.storage.store import Library
    from summarizer.search import retrieval
    from summarizer.search.distinctive import distinctive_terms

    out: dict[str, Any] = {}
    with Library.open() as library:
        for name in sets:
            rows = []
            for query in query_set(name):
                stricter = distinctive_terms(query, lambda words: retrieval._term_counts.shares(library, words))
                rows.append({"query": query, "first": first_rule(library, query), "stricter": stricter})
            out[name] = {
                "queries": len(rows),
                "first": sum(bool(r["first"]) for r in rows),
                "stricter": sum(bool(r["stricter"]) for r in rows),
                "rows": rows,
            }
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--home", action="append", default=[], metavar="NAME=DIR", help=f"a library: {', '.join(SETS)}")
    ap.add_argument("--out", type=Path, help="write the counts and each query's terms as JSON")
    args = ap.parse_args(argv)
    report: dict[str, Any] = {}
    for setting in args.home:
        name, _, folder = setting.partition("=")
        if name not in SETS:
            raise SystemExit(f"--home {setting}: the library's name is one of {', '.join(SETS)}")
        report[name] = count(Path(folder).resolve(), SETS[name])
    for name, sets in report.items():
        for set_name, found in sets.items():
            print(f"{name:10} {set_name:17} first {found['first']:3} of {found['queries']:3}  ", end="")
            print(f"stricter {found['stricter']:3} of {found['queries']:3}")
            for row in found["rows"]:
                print(f"    {row['query'][:72]:72} {row['first']} -> {row['stricter']}")
    if args.out:
        write_json(args.out, report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

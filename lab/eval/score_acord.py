"""NDCG@5 and @10 on ACORD (lawyer-graded variant questions) for BM25, the clause embedder, the
hybrid, the hybrid + the clause ranker and search as the product runs it, in one run.

    flock /tmp/pagewise-cpu.lock env PYTHONPATH=$PWD .venv/bin/python -m lab.eval.score_acord \
        [--home build/acord/home] [--out docs/data/acord/results.json] [--rebuild] [--tries] [--lexicon] \
        [--trained build/acord/gpu/scores.json] [--only "bm25,hybrid"]
    .venv/bin/python -m lab.eval.score_acord --tables-of docs/data/acord/results.json

The corpus goes into a library of its own through Pagewise's ingest, each clause one passage
(lab.eval.acord_library says how); the library is kept in ``--home`` and reused (a first build
embeds the 3,931 clauses: minutes on two cores). Each query is asked over the whole corpus and
scored by ACORD's metric (lab.eval.acord: gains = the graded score, ungraded = 0).

Two figures per system, chosen by nothing but the training and validation queries:

- **train (cross-validated)**, the primary one: the 51 training queries in ``acord.FOLDS`` folds by
  query, each scored by the system fitted on the other folds (systems that learn nothing score
  every training query alike; the folds are there for the ones that will).
- **valid**: the 6 validation queries, scored by the system fitted on all the training queries.

Both also per ACORD category and per query type (``cuad1``: a CUAD category with a variant;
``cuad2``: a finer liability or indemnification variant). Writes the figures, the per-query scores
and each query's top 10 clause ids as JSON and prints the tables of docs/retrieval.md.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from lab.eval.acord import DATA, KS, ROOT, Query, mean, ndcg, query_folds, read_corpus, read_qrels, read_queries
from lab.eval.acord_library import HOME, build_library, clause_of_passage, use_home
from lab.eval.acord_systems import System
from lab.results import write_json

OUT = ROOT / "docs" / "data" / "acord" / "results.json"
TRAIN, VALID = "train (cross-validated)", "valid"


def score_system(
    system: System, queries: Sequence[Query], grades: Mapping[str, Mapping[str, int]], clause_of: Mapping[int, str]
) -> list[dict[str, Any]]:
    """One row per query: the training queries fold by fold, the validation queries by the system
    fitted on every training query."""
    train = [q for q in queries if q.split == "train"]
    by_text = {q.text: q for q in queries}
    runs: list[tuple[str, int | None, Sequence[str], Sequence[str]]] = [
        (TRAIN, fold, fitted_on, scored)
        for fold, (fitted_on, scored) in enumerate(query_folds([q.text for q in train]))
    ]
    runs.append((VALID, None, [q.text for q in train], [q.text for q in queries if q.split == "valid"]))
    rows = []
    for split, fold, fitted_on, scored in runs:
        ranking = system.fit(fitted_on, {q: grades[q] for q in fitted_on})
        for text in scored:
            started = time.perf_counter()
            passages = ranking(text)
            elapsed = time.perf_counter() - started
            ranked = list(dict.fromkeys(clause_of[pid] for pid in passages if pid in clause_of))
            query = by_text[text]
            rows.append(
                {
                    "system": system.name,
                    "split": split,
                    "fold": fold,
                    "query": text,
                    "category": query.category,
                    "type": query.type,
                    **{f"ndcg@{k}": round(ndcg(ranked, grades[text], k), 4) for k in KS},
                    "ms": round(elapsed * 1000, 1),
                    "top10": ranked[:10],
                }
            )
    return rows


def figures(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    return {**{f"ndcg@{k}": round(mean([r[f"ndcg@{k}"] for r in rows]), 4) for k in KS}, "queries": len(rows)}


def group(rows: Sequence[dict[str, Any]], key: Callable[[dict[str, Any]], str]) -> dict[str, dict[str, Any]]:
    groups: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault(key(row), []).append(row)
    return {name: figures(members) for name, members in sorted(groups.items())}


def summarize(rows: Sequence[dict[str, Any]], systems: Sequence[System]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for system in systems:
        mine = [r for r in rows if r["system"] == system.name]
        out[system.name] = {"about": system.about, "median_ms": round(statistics.median(r["ms"] for r in mine), 1)}
        for split in (TRAIN, VALID):
            picked = [r for r in mine if r["split"] == split]
            out[system.name][split] = {
                "all": figures(picked),
                "by_category": group(picked, lambda r: str(r["category"])),
                "by_type": group(picked, lambda r: str(r["type"])),
            }
    return out


def tables(summary: Mapping[str, Any]) -> str:
    """The markdown tables of docs/retrieval.md: every system on both splits, then NDCG@5 by
    category and by query type (a row per system)."""
    names = list(summary)
    bm25 = summary.get("bm25")
    lines = [
        "| system | train CV NDCG@5 | train CV NDCG@10 | valid NDCG@5 | valid NDCG@10 "
        "| x BM25 (@5, train CV / valid) |",
        "|---|---|---|---|---|---|",
    ]
    for name in names:
        cells = [summary[name][s]["all"][f"ndcg@{k}"] for s in (TRAIN, VALID) for k in KS]
        ratio = "-"
        if bm25 is not None:
            base = [bm25[s]["all"]["ndcg@5"] for s in (TRAIN, VALID)]
            ratio = " / ".join(f"{c / b:.2f}" if b else "-" for c, b in zip((cells[0], cells[2]), base, strict=True))
        lines.append(f"| {name} | " + " | ".join(f"{c:.3f}" for c in cells) + f" | {ratio} |")
    for split in (TRAIN, VALID):
        groups = {**summary[names[0]][split]["by_category"], **summary[names[0]][split]["by_type"]}
        lines += ["", f"NDCG@5 by category and query type, {split} (queries):", ""]
        lines.append("| system | " + " | ".join(f"{g} ({groups[g]['queries']})" for g in groups) + " |")
        lines.append("|---" * (len(groups) + 1) + "|")
        for name in names:
            found = {**summary[name][split]["by_category"], **summary[name][split]["by_type"]}
            lines.append(f"| {name} | " + " | ".join(f"{found[g]['ndcg@5']:.3f}" for g in groups) + " |")
    return "\n".join(lines)


def remember_ranker_scores() -> None:
    """The clause ranker's score of a (query, passage) pair computed once per run: many systems
    reorder the same passages with it (the lab's run only; the scores are the same)."""
    from summarizer.search.clause_ranker import ClauseRanker

    original = ClauseRanker.score_texts
    if getattr(original, "remembers", False):
        return
    known: dict[tuple[str, str, str], float] = {}

    def score_texts(self: ClauseRanker, query: str, texts: Sequence[str]) -> list[float]:
        folder = str(self.folder)
        missing = [t for t in dict.fromkeys(texts) if (folder, query, t) not in known]
        if missing:
            known.update({(folder, query, t): v for t, v in zip(missing, original(self, query, missing), strict=True)})
        return [known[(folder, query, t)] for t in texts]

    score_texts.remembers = True  # type: ignore[attr-defined]
    ClauseRanker.score_texts = score_texts  # type: ignore[method-assign]


def commit() -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
        return out.stdout.strip()
    except OSError:
        return "unknown"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DATA, help="the acord-train folder")
    ap.add_argument("--home", type=Path, default=HOME, help="the ACORD library (PAGEWISE_HOME), reused if built")
    ap.add_argument("--rebuild", action="store_true", help="build the library again from nothing")
    ap.add_argument("--tries", action="store_true", help="also the no-training tries (lab.eval.acord_tries)")
    ap.add_argument("--lexicon", action="store_true", help="also the lexicon tries (lab.eval.acord_lexicon)")
    ap.add_argument(
        "--trained",
        type=Path,
        action="append",
        default=[],
        help="a fine-tuned ranker's scores.json (lab.training.acord_ranker): its systems (lab.eval.acord_trained)",
    )
    ap.add_argument("--only", default="", help="only the systems whose names start with one of these (comma-separated)")
    ap.add_argument("--threads", type=int, default=2, help="cores for embedding the corpus")
    ap.add_argument("--out", type=Path, default=OUT, help="the JSON written")
    ap.add_argument("--tables-of", type=Path, help="only print the tables of a JSON this command wrote")
    args = ap.parse_args(argv)
    if args.tables_of:
        print(tables(json.loads(args.tables_of.read_text())["systems"]))
        return 0
    started = time.perf_counter()
    if args.rebuild and args.home.exists():
        shutil.rmtree(args.home)
    use_home(args.home)
    queries = read_queries(args.data)
    grades = read_qrels(args.data)
    build = build_library(read_corpus(args.data), args.threads)
    print(f"library: {build}", file=sys.stderr)
    clause_of = clause_of_passage()
    from lab.eval.acord_systems import baseline_systems
    from summarizer.library.storage.store import Library

    scoring_started = time.perf_counter()
    with Library.open() as library:
        systems = baseline_systems(library)
        if args.tries:
            from lab.eval.acord_tries import tries

            systems += tries(library)
        if args.lexicon:
            from lab.eval.acord_lexicon import lexicon_tries

            systems += lexicon_tries(library)
        for n, scores in enumerate(args.trained):
            from lab.eval.acord_trained import trained_systems

            label = "ACORD ranker" if n == 0 else f"ACORD ranker {n + 1}"
            systems += trained_systems(library, scores, label)
        if args.only:
            prefixes = tuple(p.strip() for p in args.only.split(",") if p.strip())
            systems = [s for s in systems if s.name.startswith(prefixes)]
        remember_ranker_scores()
        rows = [row for system in systems for row in score_system(system, queries, grades, clause_of)]
    summary = summarize(rows, systems)
    report = {
        "command": "python -m lab.eval.score_acord " + " ".join(argv if argv is not None else sys.argv[1:]),
        "commit": commit(),
        "library": build,
        "clauses": len(set(clause_of.values())),
        "passages": len(clause_of),
        "scoring_s": round(time.perf_counter() - scoring_started, 1),
        "total_s": round(time.perf_counter() - started, 1),
        "systems": summary,
        "rows": rows,
    }
    write_json(args.out, report)
    print(tables(summary))
    print(f"\n{len(queries)} queries, {report['total_s']} s in all ({report['scoring_s']} s scoring)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Recall of the clause labels through Pagewise search (the retrieval issue's score).

    .venv/bin/python -m lab.eval.score_retrieval [--home DIR] [--contracts DIR] [--out FILE.json]

Ingests the six labelled contracts into a library (``--home``, a fresh temporary one by
default; an existing one is reused and its documents re-ingested only when missing), then asks
every question of ``lab/eval/questions.json`` of every contract whose label for that category is
present, through ``summarizer.search.retrieval.search`` — the function behind
``pagewise search DOC "QUESTION" -k K --json`` (``--via-cli`` runs the command itself for a
sample, to check that the two agree).

Scoring (lab/eval/quote_match.py): a labelled quote is found when it appears in one returned
passage's ``text`` (both normalized), or for quotes over 20 words when 80% of its words do.
A question's score is the share of its category's quotes found; recall@k is the mean over
questions. Passage size: the mean length of the returned ``text`` at k=3.

``franchise-115p`` and ``supply-16p`` are held apart from tuning: reported on their own.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from lab.eval.quote_match import quote_found

ROOT = Path(__file__).resolve().parents[2]

HELD_APART = ("franchise-115p", "supply-16p")
KS = (1, 3, 10)


def fixture_contracts_dir() -> Path:
    for candidate in (ROOT.parent / "shared" / "fixtures" / "contracts", ROOT / "tests" / "fixtures" / "contracts"):
        if (candidate / "distributor-17p.pdf").exists():
            return candidate
    raise SystemExit("the six fixture contracts were not found: pass --contracts DIR")


def load_labels() -> dict[str, dict[str, Any]]:
    return {p.stem: json.loads(p.read_text()) for p in sorted((ROOT / "lab" / "eval" / "labels").glob("*.json"))}


def ingest_all(contracts: Path, stems: list[str]) -> dict[str, str]:
    from summarizer.library.ingest import ingest_path
    from summarizer.library.storage.store import Library

    doc_ids = {}
    with Library.open() as library:
        for stem in stems:
            started = time.perf_counter()
            result = ingest_path(library, contracts / f"{stem}.pdf")
            doc_ids[stem] = result.doc_id
            print(
                f"ingested {stem}: {result.pages} pages, {result.passages} passages "
                f"({result.status}) in {time.perf_counter() - started:.1f} s",
                file=sys.stderr,
            )
    return doc_ids


def force_kind(doc_ids: dict[str, str], kind: str | None) -> None:
    """Cut the documents again as ``kind`` (contract, filing, other) whatever they were found to
    be: how a wrong kind compares with the right one and with the generic path (``other``)."""
    if kind is None:
        return
    from summarizer.library.ingest import IngestOptions, Ingestor
    from summarizer.library.storage.store import Library

    with Library.open() as library:
        for name, doc_id in doc_ids.items():
            if library.document(doc_id).kind != kind:
                started = time.perf_counter()
                Ingestor(library, IngestOptions(kind=kind)).recut(doc_id)
                print(f"re-cut {name} as {kind} in {time.perf_counter() - started:.1f} s", file=sys.stderr)


def retrieval_params(settings: list[str]) -> Any:
    """``RetrievalParams`` with ``NAME=VALUE`` overrides (``--set heading_weight=2``)."""
    import dataclasses

    from summarizer.search.retrieval import DEFAULT_PARAMS

    changes: dict[str, Any] = {}
    fields = {f.name: f for f in dataclasses.fields(DEFAULT_PARAMS)}
    for setting in settings:
        name, _, value = setting.partition("=")
        if name not in fields:
            raise SystemExit(f"--set {setting}: no such parameter; known: {', '.join(fields)}")
        current = getattr(DEFAULT_PARAMS, name)
        changes[name] = value.lower() in ("1", "true", "yes") if isinstance(current, bool) else type(current)(value)
    return dataclasses.replace(DEFAULT_PARAMS, **changes)


def score(
    doc_ids: dict[str, str], labels: dict[str, dict[str, Any]], questions: dict[str, list[str]], params: Any
) -> dict[str, Any]:
    from summarizer.library.storage.store import Library
    from summarizer.search.retrieval import search

    rows = []
    latencies = []
    with Library.open() as library:
        search(library, "warm up", doc_ids=[next(iter(doc_ids.values()))], k=3, params=params)
        for stem, data in labels.items():
            for category, entry in data["labels"].items():
                if entry["status"] == "absent":
                    continue
                quotes = [c["quote"] for c in entry["clauses"]]
                for question in questions[category]:
                    started = time.perf_counter()
                    results = search(library, question, doc_ids=[doc_ids[stem]], k=max(KS), params=params)
                    latencies.append(time.perf_counter() - started)
                    texts = [r.text for r in results]
                    row: dict[str, Any] = {"contract": stem, "category": category, "question": question}
                    for k in KS:
                        found = sum(any(quote_found(q, t) for t in texts[:k]) for q in quotes)
                        row[f"r@{k}"] = found / len(quotes)
                    row["chars@3"] = sum(len(t) for t in texts[:3]) / max(1, len(texts[:3]))
                    row["first_hit_rank"] = next(
                        (i + 1 for i, t in enumerate(texts) if any(quote_found(q, t) for q in quotes)), None
                    )
                    rows.append(row)
    return {"rows": rows, "latency_ms_median": 1000 * sorted(latencies)[len(latencies) // 2]}


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    def agg(subset: list[dict[str, Any]]) -> dict[str, float]:
        n = len(subset)
        out = {f"recall@{k}": sum(r[f"r@{k}"] for r in subset) / n if n else 0.0 for k in KS}
        out["chars_per_passage"] = sum(r["chars@3"] for r in subset) / n if n else 0.0
        out["questions"] = n
        return out

    tuning = [r for r in rows if r["contract"] not in HELD_APART]
    held = [r for r in rows if r["contract"] in HELD_APART]
    by_category: dict[str, list[dict[str, Any]]] = defaultdict(list)
    by_contract: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        by_category[r["category"]].append(r)
        by_contract[r["contract"]].append(r)
    return {
        "all": agg(rows),
        "tuning_contracts": agg(tuning),
        "held_apart": agg(held),
        "by_contract": {c: agg(v) for c, v in sorted(by_contract.items())},
        "by_category": {c: agg(v) for c, v in by_category.items()},
    }


def via_cli_check(doc_ids: dict[str, str], questions: dict[str, list[str]], sample: int) -> int:
    """Runs ``pagewise search --json`` for a few questions and compares with the in-process results."""
    from summarizer.library.storage.store import Library
    from summarizer.search.retrieval import search

    mismatches = 0
    pairs = [(stem, q) for stem in doc_ids for qs in questions.values() for q in qs][:: max(1, 300 // sample)]
    with Library.open() as library:
        for stem, question in pairs[:sample]:
            out = subprocess.run(
                [sys.executable, "-m", "app.cli", "search", doc_ids[stem], question, "-k", "3", "--json"],
                capture_output=True,
                text=True,
                check=True,
                cwd=ROOT,
            )
            cli = [r["passage_id"] for r in json.loads(out.stdout)["results"]]
            here = [r.passage_id for r in search(library, question, doc_ids=[doc_ids[stem]], k=3)]
            mismatches += cli != here
    return mismatches


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--home", type=Path, help="library folder (PAGEWISE_HOME); default: a new temporary one")
    ap.add_argument("--contracts", type=Path, help="folder with the six fixture PDFs")
    ap.add_argument("--out", type=Path, help="write the full result JSON here")
    ap.add_argument(
        "--kind", choices=("contract", "filing", "other"), help="cut and search every document as this kind"
    )
    ap.add_argument("--via-cli", type=int, default=0, metavar="N", help="also check N questions through the CLI")
    ap.add_argument(
        "--misses",
        action="store_true",
        help="print the tuning contracts' questions whose clause is not in the top 3 (the held-apart ones' never)",
    )
    ap.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="override a summarizer.search.retrieval.RetrievalParams field (to measure a lever; the CLI check "
        "always uses the defaults)",
    )
    args = ap.parse_args()
    home = args.home or Path(tempfile.mkdtemp(prefix="pagewise-eval-"))
    os.environ["PAGEWISE_HOME"] = str(home)
    labels = load_labels()
    questions = json.loads((ROOT / "lab" / "eval" / "questions.json").read_text())
    started = time.perf_counter()
    doc_ids = ingest_all(args.contracts or fixture_contracts_dir(), list(labels))
    force_kind(doc_ids, args.kind)
    ingest_s = time.perf_counter() - started
    params = retrieval_params(args.set)
    result = score(doc_ids, labels, questions, params)
    summary = summarize(result["rows"])
    summary["params"] = {name: getattr(params, name) for name in params.__dataclass_fields__}
    summary["search_latency_ms_median"] = result["latency_ms_median"]
    summary["ingest_s"] = ingest_s
    summary["kind"] = args.kind or "as found"
    if args.via_cli:
        summary["cli_mismatches"] = via_cli_check(doc_ids, questions, args.via_cli)
    if args.out:
        args.out.write_text(json.dumps({"summary": summary, "rows": result["rows"]}, indent=1))
    for name in ("all", "tuning_contracts", "held_apart"):
        s = summary[name]
        print(
            f"{name:17} questions {s['questions']:3}  recall@1 {s['recall@1']:.3f}  recall@3 {s['recall@3']:.3f}  "
            f"recall@10 {s['recall@10']:.3f}  chars/passage {s['chars_per_passage']:.0f}"
        )
    for name, s in summary["by_contract"].items():
        print(f"  {name:20} n={s['questions']:3}  r@3 {s['recall@3']:.3f}  r@10 {s['recall@10']:.3f}")
    print(f"search latency median {summary['search_latency_ms_median']:.1f} ms; ingest {ingest_s:.1f} s")
    if args.via_cli:
        print(f"CLI check: {summary['cli_mismatches']} of {args.via_cli} differ")
    if args.misses:
        for r in result["rows"]:
            if r["r@3"] < 1 and r["contract"] not in HELD_APART:
                print(
                    f"MISS {r['contract']:20} {r['category']:32} r@3={r['r@3']:.2f} "
                    f"rank={r['first_hit_rank']} {r['question']}"
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Page recall of Pagewise search on the FinanceBench development set (filings, not contracts).

    .venv/bin/python eval/score_financebench.py [--home DIR] [--data ../shared/data/financebench-dev] \
        [--set NAME=VALUE ...] [--compare NAME=VALUE ...] [--out FILE.json]

Ingests the 18 filings (``--home`` keeps the library between runs), then asks each of the 35
questions of ``questions.jsonl`` of its own document through ``summarizer.search.retrieval.search``
(what ``pagewise search DOC_ID QUESTION -k K --json`` runs). A hit at k: one of the top k
passages' page range holds an evidence page (the README's rule). ``--set`` changes the
parameters of the main run; ``--compare`` adds a second run with other parameters on the same
library and questions (``--compare rerank_top=0``: without the clause ranker).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "eval"))

from score_retrieval import retrieval_params  # noqa: E402

KS = (1, 3, 5, 10)


def ingest(data: Path, names: list[str]) -> dict[str, str]:
    from summarizer.library.ingest import ingest_path
    from summarizer.library.store import Library

    ids = {}
    with Library.open() as library:
        known = {Path(d.path).stem: d.doc_id for d in library.documents()}
        for name in names:
            if name in known:
                ids[name] = known[name]
                continue
            started = time.perf_counter()
            result = ingest_path(library, data / "pdfs" / f"{name}.pdf")
            ids[name] = result.doc_id
            print(f"ingested {name}: {result.pages} pages in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return ids


def run(questions: list[dict[str, Any]], ids: dict[str, str], params: Any) -> dict[str, Any]:
    from summarizer.library.store import Library
    from summarizer.search.retrieval import search

    hits = {k: 0 for k in KS}
    latencies = []
    rows = []
    with Library.open() as library:
        search(library, "warm up", doc_ids=[next(iter(ids.values()))], k=3, params=params)
        for q in questions:
            pages = {e["evidence_page_num"] + 1 for e in q["evidence"]}
            started = time.perf_counter()
            results = search(library, q["question"], doc_ids=[ids[q["doc_name"]]], k=max(KS), params=params)
            latencies.append(time.perf_counter() - started)
            first = next(
                (i + 1 for i, r in enumerate(results) if any(r.page_start <= p <= r.page_end for p in pages)), None
            )
            for k in KS:
                hits[k] += first is not None and first <= k
            rows.append({"id": q["financebench_id"], "doc": q["doc_name"], "first_hit_rank": first})
    n = len(questions)
    return {
        **{f"hit@{k}": round(hits[k] / n, 4) for k in KS},
        "questions": n,
        "search_latency_ms_median": round(1000 * sorted(latencies)[n // 2], 1),
        "rows": rows,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--home", type=Path, help="library folder (PAGEWISE_HOME); default: a new temporary one")
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "financebench-dev")
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    ap.add_argument("--compare", action="append", default=[], metavar="NAME=VALUE")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--docs", type=int, default=0, help="only the first N filings (by name) and their questions")
    args = ap.parse_args()
    home = args.home or Path(tempfile.mkdtemp(prefix="pagewise-financebench-"))
    os.environ["PAGEWISE_HOME"] = str(home)
    questions = [json.loads(line) for line in (args.data / "questions.jsonl").read_text().splitlines() if line]
    names = sorted({q["doc_name"] for q in questions})[: args.docs or None]
    questions = [q for q in questions if q["doc_name"] in names]
    started = time.perf_counter()
    ids = ingest(args.data, names)
    result: dict[str, Any] = {
        "command": "eval/score_financebench.py " + " ".join(sys.argv[1:]),
        "ingest_s": round(time.perf_counter() - started, 1),
        "main": {"set": args.set, **run(questions, ids, retrieval_params(args.set))},
    }
    if args.compare:
        result["compare"] = {"set": args.compare, **run(questions, ids, retrieval_params(args.compare))}
    summary = {k: {m: v for m, v in r.items() if m != "rows"} for k, r in result.items() if isinstance(r, dict)}
    print(json.dumps(summary, indent=1))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

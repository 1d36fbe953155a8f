"""Recall through Pagewise's search on CUAD's validation contracts (never trained on, not the fixtures).

    .venv/bin/python -m lab.eval.score_validation --home /tmp/valhome [--set NAME=VALUE ...] [--out FILE.json]

The 39 contracts that lab/eval/cuad_corpus.py keeps out of the ranker's training (``is_validation``:
by the hash of the file name) are the data that choices are made on besides the four tuning
fixtures. CUAD ships them as text, not PDF: each text is cut into pseudo-pages of ~3,000
characters (``cuad_corpus.pseudo_pages``, as the training data was) and those pages go through
Pagewise's own ingest (``Ingestor.ingest_pages``: passage cutter, document kind, embeddings,
vector index), so the search scored here is the product's, with only the PDF reading left out.

Questions: lab/eval/questions.json, as for the labelled set; a question is asked of a contract when
its category has lawyers' quotes in that contract. Scoring is lab/eval/score_retrieval.py's (a quote
is found in a returned passage as lab/eval/quote_match.py says; recall@k is the mean over questions).
An existing ``--home`` is reused; contracts missing from it are ingested (~3 min for all 39 on 2
cores).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from lab.eval.cuad_corpus import CORPUS, cuad_annotations, cuad_texts, is_validation, pseudo_pages
from lab.eval.score_retrieval import KS, retrieval_params, score
from lab.results import write_json

ROOT = Path(__file__).resolve().parents[2]


class TextPages:
    """A plain text as an ingest page source (``summarizer.library.ingest_read.PageSource``)."""

    def __init__(self, name: str, text: str) -> None:
        from summarizer.library.reading.pdf_extract import PageText

        self.path = Path("cuad-validation") / name
        self.content_sha256 = hashlib.sha256(text.encode()).hexdigest()
        self.title = Path(name).stem
        self._pages = [PageText(number=n, text=t) for n, t, _ in pseudo_pages(text)]
        self.page_count = len(self._pages)

    def pages(self, start: int = 1) -> Iterator[Any]:
        yield from self._pages[start - 1 :]


def validation_contracts(corpus: Path, limit: int = 0) -> list[tuple[str, str]]:
    picked = [(name, text) for name, text in cuad_texts(corpus) if is_validation(name)]
    return picked[:limit] if limit else picked


def labels_of(corpus: Path, names: set[str], categories: set[str]) -> dict[str, dict[str, Any]]:
    """eval/labels' shape (``{stem: {"labels": {category: {status, clauses}}}}``) from CUAD's quotes,
    with the categories spelled as lab/eval/questions.json spells them."""
    spelled = {c.lower(): c for c in categories}
    labels: dict[str, dict[str, Any]] = {}
    for row in cuad_annotations(corpus):
        if row["file"] not in names or row["category"].lower() not in spelled:
            continue
        quotes = [{"quote": q["text"]} for q in row["quotes"]]
        labels.setdefault(Path(row["file"]).stem, {"labels": {}})["labels"][spelled[row["category"].lower()]] = {
            "status": "present" if quotes else "absent",
            "clauses": quotes,
        }
    return labels


def ingest_all(contracts: list[tuple[str, str]]) -> dict[str, str]:
    from summarizer.library.ingest import IngestOptions, Ingestor
    from summarizer.library.storage.store import Library

    doc_ids = {}
    started = time.perf_counter()
    with Library.open() as library:
        ingestor = Ingestor(library, IngestOptions(ocr="never"))
        for name, text in contracts:
            source = TextPages(name, text)
            doc_ids[source.title] = ingestor.ingest_pages(source, source.path).doc_id
    print(
        f"{len(doc_ids)} validation contracts in the library ({time.perf_counter() - started:.0f} s)", file=sys.stderr
    )
    return doc_ids


SIZES = ((0, 40), (40, 80), (80, 10**9))  # passages per contract: short, middling, long


def passages_per_contract(doc_ids: dict[str, str]) -> dict[str, int]:
    from summarizer.library.storage.store import Library

    with Library.open() as library:
        return {
            stem: int(library.db.execute("SELECT COUNT(*) FROM passages WHERE doc_id = ?", [doc_id]).fetchone()[0])
            for stem, doc_id in doc_ids.items()
        }


def by_size(rows: list[dict[str, Any]], sizes: dict[str, int]) -> dict[str, dict[str, float]]:
    """Recall by how many passages the contract has (long contracts are where search misses)."""
    out = {}
    for low, high in SIZES:
        picked = [r for r in rows if low <= sizes[r["contract"]] < high]
        name = f"{low}-{high - 1} passages" if high < 10**9 else f"{low}+ passages"
        out[name] = aggregate(picked) | {"contracts": len({r["contract"] for r in picked})}
    return out


def aggregate(rows: list[dict[str, Any]]) -> dict[str, float]:
    n = len(rows)
    out: dict[str, float] = {f"recall@{k}": round(sum(r[f"r@{k}"] for r in rows) / n, 4) if n else 0.0 for k in KS}
    out["chars_per_passage"] = round(sum(r["chars@3"] for r in rows) / n, 1) if n else 0.0
    out["questions"] = n
    return out


def main() -> int:

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--home", type=Path, required=True, help="library folder (PAGEWISE_HOME), reused if it exists")
    ap.add_argument("--corpus", type=Path, default=CORPUS, help="the cuad-train folder")
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="a RetrievalParams override")
    ap.add_argument("--limit", type=int, default=0, help="only the first N validation contracts (a quick look)")
    ap.add_argument("--out", type=Path, help="write the result JSON here")
    args = ap.parse_args()
    os.environ["PAGEWISE_HOME"] = str(args.home)
    params = retrieval_params(args.set)
    questions: dict[str, list[str]] = json.loads((ROOT / "lab" / "eval" / "questions.json").read_text())
    contracts = validation_contracts(args.corpus, args.limit)
    labels = labels_of(args.corpus, {name for name, _ in contracts}, set(questions))
    doc_ids = ingest_all(contracts)
    result = score(doc_ids, labels, questions, params)
    rows = result["rows"]
    by_category: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        by_category.setdefault(r["category"], []).append(r)
    report = {
        "command": "python -m lab.eval.score_validation " + " ".join(sys.argv[1:]),
        "contracts": len(doc_ids),
        "validation": aggregate(rows),
        "latency_ms_median": round(result["latency_ms_median"], 1),
        "by_size": by_size(rows, passages_per_contract(doc_ids)),
        "by_category": {c: aggregate(v) for c, v in sorted(by_category.items())},
        "rows": rows,
    }
    print(json.dumps({k: v for k, v in report.items() if k not in ("rows", "by_category")}, indent=1))
    if args.out:
        write_json(args.out, report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

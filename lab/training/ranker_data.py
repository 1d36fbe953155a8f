"""Training data for Pagewise's clause ranker, from the 449 CUAD contracts of ../shared/data/cuad-train.

    .venv/bin/python -m lab.training.ranker_data [--corpus ../shared/data/cuad-train] \
        [--out .device/ranker/data.json.xz]

Each contract's text goes through Pagewise's own passage cutter (``split_passages``, the code the PDF
path uses) in pseudo-pages of about 3,000 characters (CUAD's text has no page breaks), so training
sees the passages search will see. A passage is **positive** for a category when it holds a
substantial part of one of the category's annotated quotes: the quote's characters inside the
passage are at least half of the quote or half of the passage. Quotes are located in this order:
the corpus's exact offsets; else every verbatim occurrence in the text (a quote that is not unique);
else a whitespace-insensitive search; else the evaluation's word rule (lab/eval/quote_match.py) against
each passage; what is still unplaced is left out and counted. A passage that holds some of a quote
but less than that is neither positive nor negative.

**Hard negatives** are the passages of the same contract that BM25 over the contract's passages
(query words plus Pagewise's legal lexicon expansion, the ranking that leads today's fusion) puts
first but that hold no quote of the category. A category the lawyers found absent in a contract
(an empty ``quotes`` list) keeps its BM25 top passages as negatives: "not here" is an answer.

Queries: ``lab/training/ranker_queries.json`` (written as users ask: plain questions, a lawyer's
question, two- or three-word searches) plus the checklist's question and retrieval queries
(``summarizer/review/checklists/cuad.csv``). The evaluation questions (lab/eval/questions.json) are
never used for training.

Split by contract: a contract is in validation when the first byte of the SHA-256 of its file name
is below 26 (~10%). The six fixture contracts are not in the corpus (its README); the script checks
that no fixture's title appears among the files anyway.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import lzma
import math
import random
import re
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from lab.eval.cuad_corpus import cuad_annotations, cuad_texts, is_validation, pseudo_pages
from lab.eval.quote_match import quote_found

ROOT = Path(__file__).resolve().parents[2]

HARD_NEGATIVES = 12
ABSENT_QUERIES = 4  # phrasings kept for a category the contract lacks
_WORD = re.compile(r"\w+")


def passages_of(text: str, tokenizer: Any) -> list[dict[str, Any]]:
    from summarizer.library.cutting.passages import split_passages

    pages = pseudo_pages(text)
    offset = {n: o for n, _, o in pages}
    out = []
    for p in split_passages(((n, t) for n, t, _ in pages), tokenizer):
        ranges = [(offset[s.page] + s.start, offset[s.page] + s.end) for s in p.spans]
        out.append({"heading": p.heading, "text": p.text, "ranges": ranges})
    return out


def _occurrences(text: str, quote: dict[str, Any]) -> tuple[str, list[tuple[int, int]]]:
    q = quote["text"]
    if quote.get("start") is not None and quote.get("end") is not None:
        return "exact", [(int(quote["start"]), int(quote["end"]))]
    found = [(m.start(), m.start() + len(q)) for m in re.finditer(re.escape(q), text)] if q.strip() else []
    if found:
        return "verbatim, not unique", found
    words = _WORD.findall(q)
    if words:
        pattern = r"\W+".join(re.escape(w) for w in words)
        found = [(m.start(), m.end()) for m in re.finditer(pattern, text)]
        if found:
            return "whitespace/punctuation", found
    return "", []


def _overlap(ranges: list[tuple[int, int]], start: int, end: int) -> int:
    return sum(max(0, min(e, end) - max(s, start)) for s, e in ranges)


def label_passages(
    text: str, passages: list[dict[str, Any]], quotes: list[dict[str, Any]], counts: Counter[str]
) -> tuple[set[int], set[int]]:
    """(positive passage indexes, partial ones) for one category's quotes."""
    positive: set[int] = set()
    partial: set[int] = set()
    for quote in quotes:
        how, spots = _occurrences(text, quote)
        placed = False
        for start, end in spots:
            for i, p in enumerate(passages):
                inside = _overlap(p["ranges"], start, end)
                if not inside:
                    continue
                length = sum(e - s for s, e in p["ranges"])
                if inside >= 0.5 * (end - start) or inside >= 0.5 * length:
                    positive.add(i)
                    placed = True
                else:
                    partial.add(i)
        if not placed and not spots:
            hits = [i for i, p in enumerate(passages) if quote_found(quote["text"], p["text"])]
            if hits:
                positive.update(hits)
                placed, how = True, "word rule in a passage"
        counts[how if placed else "left out"] += 1
    return positive, partial - positive


class ContractBM25:
    """Okapi BM25 (k1 1.2, b 0.75) over one contract's passages, heading words counted twice."""

    def __init__(self, passages: list[dict[str, Any]]) -> None:
        self.docs = [
            Counter(_WORD.findall(p["text"].lower())) + Counter(_WORD.findall(p["heading"].lower()) * 2)
            for p in passages
        ]
        self.lengths = [sum(d.values()) for d in self.docs]
        self.avg = sum(self.lengths) / max(1, len(self.lengths))
        df: Counter[str] = Counter()
        for d in self.docs:
            df.update(d.keys())
        n = len(self.docs)
        self.idf = {w: math.log(1 + (n - c + 0.5) / (c + 0.5)) for w, c in df.items()}

    def rank(self, words: list[str]) -> list[int]:
        scores = []
        for i, (d, length) in enumerate(zip(self.docs, self.lengths, strict=True)):
            s = 0.0
            for w in words:
                tf = d.get(w, 0)
                if tf:
                    s += self.idf[w] * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * length / self.avg))
            scores.append((s, i))
        return [i for s, i in sorted(scores, key=lambda x: (-x[0], x[1])) if s > 0]


def query_words(query: str) -> list[str]:
    from summarizer.search.legal_lexicon import expansion_terms

    words = _WORD.findall(query.lower())
    for term in expansion_terms(query, 16):
        words.extend(_WORD.findall(term.lower()))
    return list(dict.fromkeys(words))


def training_queries() -> dict[str, list[str]]:
    """Queries by category name in lower case (CUAD's files spell "Cap On Liability", ours "Cap on Liability")."""
    written = json.loads((ROOT / "lab" / "training" / "ranker_queries.json").read_text())
    queries: dict[str, list[str]] = {k.lower(): v for k, v in written.items()}
    with (ROOT / "summarizer" / "review" / "checklists" / "cuad.csv").open(newline="") as f:
        for row in csv.DictReader(f):
            extra = [row["question"], *(q.strip() for q in row["queries"].split("|") if q.strip())]
            key = row["category"].lower()
            queries[key] = list(dict.fromkeys([*queries[key], *extra]))
    return queries


def build(corpus: Path, limit: int | None = None) -> dict[str, Any]:
    from summarizer.library.vectors.chunk_tokenizer import chunk_tokenizer

    tokenizer = chunk_tokenizer("sentence-transformers/all-MiniLM-L6-v2")
    queries = training_queries()
    # The evaluation questions only score the validation contracts (choosing, never training).
    eval_questions = {
        k.lower(): v for k, v in json.loads((ROOT / "lab" / "eval" / "questions.json").read_text()).items()
    }
    by_file: dict[str, dict[str, list[dict[str, Any]]]] = defaultdict(dict)
    for row in cuad_annotations(corpus):
        by_file[row["file"]][row["category"]] = row["quotes"]
    fixtures = [p.stem for p in (ROOT / "tests" / "fixtures" / "contracts").glob("*.pdf")]
    counts: Counter[str] = Counter()
    contracts = []
    for n, (name, text) in enumerate(cuad_texts(corpus)):
        if limit is not None and n >= limit:
            break
        passages = passages_of(text, tokenizer)
        bm25 = ContractBM25(passages)
        examples = []
        for category, quotes in sorted(by_file[name].items()):
            positive, partial = label_passages(text, passages, quotes, counts) if quotes else (set(), set())
            if quotes and not positive:
                continue  # no quote of the category could be placed: the category is left out here
            phrasings = queries[category.lower()]
            if not quotes:  # a category the contract lacks: a few phrasings are negatives enough
                phrasings = random.Random(f"{name}/{category}").sample(phrasings, min(ABSENT_QUERIES, len(phrasings)))
            for query in phrasings:
                ranked = [i for i in bm25.rank(query_words(query)) if i not in positive and i not in partial]
                examples.append(
                    {
                        "category": category,
                        "query": query,
                        "positive": sorted(positive),
                        "hard": ranked[:HARD_NEGATIVES],
                        "partial": sorted(partial),
                    }
                )
        eval_examples = []
        if is_validation(name):
            for category, quotes in sorted(by_file[name].items()):
                positive, _ = label_passages(text, passages, quotes, Counter()) if quotes else (set(), set())
                for query in eval_questions.get(category.lower(), []):
                    eval_examples.append(
                        {
                            "category": category,
                            "query": query,
                            "positive": sorted(positive),
                            "candidates": bm25.rank(query_words(query))[:30],
                        }
                    )
        contracts.append(
            {
                "file": name,
                "eval_examples": eval_examples,
                "split": "validation" if is_validation(name) else "train",
                "passages": [{"heading": p["heading"], "text": p["text"]} for p in passages],
                "examples": examples,
            }
        )
        if n % 50 == 0:
            print(f"{n} contracts, {sum(len(c['passages']) for c in contracts)} passages", file=sys.stderr)
    assert not any(f in c["file"] for f in fixtures for c in contracts)
    return {"queries": queries, "quote_placement": dict(counts), "contracts": contracts}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "data" / "cuad-train")
    parser.add_argument("--out", type=Path, default=ROOT / ".device" / "ranker" / "data.json.xz")
    parser.add_argument("--limit", type=int, help="only the first N contracts (a quick look)")
    args = parser.parse_args()
    data = build(args.corpus, args.limit)
    sha = hashlib.sha256()
    archive = args.corpus / "cuad-train.tar.gz"
    sha.update(archive.read_bytes() if archive.exists() else b"")
    data["corpus_sha256"] = sha.hexdigest()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with (
        tempfile.NamedTemporaryFile("wb", dir=args.out.parent, delete=False) as tmp,
        lzma.LZMAFile(tmp, mode="wb", preset=9 | lzma.PRESET_EXTREME) as xz,
    ):  # xz, not gzip: 5.6 MB against 10 MB, so weights, data and the tree fit the device's 64 MiB
        xz.write(json.dumps(data, sort_keys=True).encode())
    Path(tmp.name).replace(args.out)
    splits = Counter(c["split"] for c in data["contracts"])
    positives = sum(1 for c in data["contracts"] for e in c["examples"] if e["positive"])
    absent = sum(1 for c in data["contracts"] for e in c["examples"] if not e["positive"])
    summary = {
        "contracts": dict(splits),
        "passages": sum(len(c["passages"]) for c in data["contracts"]),
        "examples_with_clause": positives,
        "examples_absent": absent,
        "quote_placement": data["quote_placement"],
        "corpus_sha256": data["corpus_sha256"],
        "out": str(args.out),
        "bytes": args.out.stat().st_size,
    }
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()

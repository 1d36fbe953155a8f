"""ACORD as the lab reads it: its queries, lawyers' grades and clauses, the metric, the folds.

ACORD (the Atticus Clause Retrieval Dataset, Wang et al., ACL 2025; CC BY 4.0) grades clauses of
real contracts against queries a lawyer asks when looking for precedent, 1-5 stars (0-4 in its
qrels). ``../shared/data/acord-train`` holds its training (51 queries) and validation (6) splits
and the whole 3,931-clause corpus; the test split is held out, so nothing here reads it.

The metric is ACORD's: NDCG@k over the whole corpus, the gain of a clause its graded score (0-4),
a clause never graded for the query a gain of 0, the ideal ranking made of all the query's grades
(so a system that ranks only part of the corpus is never flattered).

Folds are by query: the training queries are cut into ``FOLDS`` groups by the hash of their text,
and a query is only ever scored by a system fitted on the other groups.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import json
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "data" / "acord-train"
KS = (5, 10)
FOLDS = 5
SPLITS = ("train", "valid")


@dataclass(frozen=True, slots=True)
class Query:
    text: str  # ACORD's query id is its text
    category: str  # "Limitation of Liability", "Governing Law", ...
    type: str  # cuad1: a CUAD category with a variant; cuad2: a finer liability or indemnity variant
    split: str  # train | valid


def read_queries(data: Path = DATA) -> list[Query]:
    queries = []
    for line in (data / "queries.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            meta = row["metadata"]
            queries.append(Query(row["_id"], meta["category"], meta["type"], meta["split"]))
    return queries


def read_qrels(data: Path = DATA, splits: Sequence[str] = SPLITS) -> dict[str, dict[str, int]]:
    """Query text -> clause id -> graded score (0-4), every graded pair of ``splits``."""
    grades: dict[str, dict[str, int]] = {}
    for split in splits:
        with gzip.open(data / f"qrels-{split}.tsv.gz", "rt", encoding="utf-8", newline="") as handle:
            for row in csv.DictReader(handle, delimiter="\t"):
                grades.setdefault(row["query-id"], {})[row["corpus-id"]] = int(row["score"])
    return grades


def read_corpus(data: Path = DATA) -> dict[str, str]:
    """Clause id -> clause text, in the corpus file's order."""
    with gzip.open(data / "corpus.jsonl.gz", "rb") as raw:
        text = io.TextIOWrapper(raw, encoding="utf-8")
        return {row["_id"]: row["text"] for row in map(json.loads, text) if row}


def ndcg(ranked: Sequence[str], grades: Mapping[str, int], k: int) -> float:
    """NDCG@k of ``ranked`` (clause ids, best first): gain = grade, log2 discount, ungraded = 0.
    A clause listed twice counts once (its first place)."""
    seen: set[str] = set()
    dcg = 0.0
    place = 0
    for clause in ranked:
        if clause in seen:
            continue
        seen.add(clause)
        place += 1
        if place > k:
            break
        dcg += grades.get(clause, 0) / math.log2(place + 1)
    ideal = sorted((g for g in grades.values() if g > 0), reverse=True)[:k]
    idcg = sum(g / math.log2(place + 1) for place, g in enumerate(ideal, start=1))
    return dcg / idcg if idcg else 0.0


def fold_of(query: str, folds: int = FOLDS) -> int:
    return hashlib.sha256(query.encode("utf-8")).digest()[0] % folds


def query_folds(queries: Sequence[str], folds: int = FOLDS) -> Iterator[tuple[list[str], list[str]]]:
    """(fitted on, scored) query lists, one pair per fold: each query is scored in exactly one
    fold, by a system fitted on queries of the other folds only."""
    for fold in range(folds):
        scored = [q for q in queries if fold_of(q, folds) == fold]
        if scored:
            yield [q for q in queries if fold_of(q, folds) != fold], scored


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0

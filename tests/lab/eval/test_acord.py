"""ACORD's metric, the folds by query, and each clause as one passage of its own."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from lab.eval.acord import ndcg, query_folds


def test_ndcg_gains_are_the_grades_and_ungraded_clauses_count_zero() -> None:
    grades = {"a": 3, "b": 2, "c": 4, "d": 0}
    # ranked a (3), x (ungraded: 0), c (4): DCG = 3/log2(2) + 0 + 4/log2(4) = 5
    # ideal c, a, b: IDCG = 4 + 3/log2(3) + 2/log2(4)
    ideal = 4 + 3 / math.log2(3) + 1
    assert ndcg(["a", "x", "c"], grades, 5) == pytest.approx(5 / ideal)
    assert ndcg(["a", "x", "c"], grades, 5) == pytest.approx(0.72539, abs=1e-5)
    assert ndcg(["a"], grades, 1) == pytest.approx(3 / 4)
    assert ndcg(["c", "a", "b"], grades, 10) == pytest.approx(1.0)
    assert ndcg(["d", "x"], grades, 5) == 0.0


def test_ndcg_counts_a_clause_listed_twice_once_and_reads_only_k_places() -> None:
    grades = {"a": 4, "b": 4}
    assert ndcg(["a", "a", "b"], grades, 2) == pytest.approx(1.0)
    assert ndcg(["x", "a"], grades, 1) == 0.0
    assert ndcg(["a"], {}, 5) == 0.0  # a query without grades scores 0, not a division by zero


def test_each_query_is_scored_once_and_never_by_a_fold_fitted_on_it() -> None:
    queries = [f"query {i}" for i in range(51)]
    folds = list(query_folds(queries))
    assert len(folds) > 1
    scored = [q for _, part in folds for q in part]
    assert sorted(scored) == sorted(queries)
    for fitted_on, part in folds:
        assert not set(fitted_on) & set(part)
        assert set(fitted_on) | set(part) == set(queries)


def test_each_clause_is_one_passage_without_a_heading(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAGEWISE_HOME", str(tmp_path))
    from lab.eval.acord_library import add_clauses, clause_of_passage
    from summarizer.library.storage.store import Library

    long_clause = "12. LIMITATION OF LIABILITY. " + " ".join(
        f"({chr(97 + i)}) Neither party shall be liable for indirect damages arising under item {i}." * 6
        for i in range(20)
    )
    corpus = {"c1": "This Agreement shall be governed by the laws of the State of New York.", "c2": long_clause}
    with Library.open() as library:
        assert add_clauses(library, corpus)[0] == 2
        assert add_clauses(library, corpus)[0] == 0  # reused, not added twice
        headings = [r[0] for r in library.db.execute("SELECT heading FROM passages")]
    assert sorted(clause_of_passage().values()) == ["c1", "c2"]
    assert headings == ["", ""]

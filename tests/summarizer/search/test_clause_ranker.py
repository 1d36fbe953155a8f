from __future__ import annotations

import dataclasses
import logging
import shutil
from pathlib import Path

import pytest

from summarizer.search.clause_ranker import (
    ClauseRanker,
    RankerUnavailable,
    load_ranker,
    ranker_dir,
    ranker_or_warning,
)
from summarizer.search.retrieval import DEFAULT_PARAMS, rerank, search
from tests.summarizer.doc_factory import add_document

GOVERNING = (
    "12.4 Governing Law",
    "This Agreement shall be governed by and construed in accordance with the laws of the State of Delaware, "
    "without regard to its conflict of laws principles.",
)
NOTICE = ("12.5 Notices", "All notices shall be in writing and delivered by hand or by courier to the address above.")
NO_RANKER = dataclasses.replace(DEFAULT_PARAMS, rerank_top=0)
PAYMENT = ("4.1 Payment", "Distributor shall pay each invoice within thirty (30) days of its date, in US dollars.")


def test_the_shipped_ranker_loads_offline_and_knows_a_governing_law_clause() -> None:
    ranker = load_ranker()
    assert ranker.folder == ranker_dir()
    assert ranker.meta["format"] == "onnx-int8" and ranker.meta["kind"] == "cross-encoder"
    assert (ranker.folder / "model.onnx").stat().st_size <= 25 * 1024 * 1024
    scores = ranker.score("Which state's law governs this agreement?", [NOTICE, GOVERNING, PAYMENT])
    assert scores.index(max(scores)) == 1
    assert scores[1] - max(scores[0], scores[2]) > 2.0  # by a margin, not a coin toss


def test_a_passage_scores_the_same_whatever_it_is_ranked_with() -> None:
    ranker = load_ranker()
    passages = [GOVERNING, NOTICE, PAYMENT] * 2
    together = ranker.score("governing law", passages)
    alone = [ranker.score("governing law", [p])[0] for p in passages]
    assert together == alone  # the int8 model quantizes per run: one pair per run keeps scores stable
    assert together[:3] == together[3:]


def test_a_missing_ranker_names_its_file(tmp_path: Path) -> None:
    with pytest.raises(RankerUnavailable, match=r"ranker\.json does not exist"):
        ClauseRanker(tmp_path / "nowhere")


def test_a_truncated_model_names_the_file_and_says_what_to_do(tmp_path: Path) -> None:
    folder = tmp_path / "clause-ranker"
    shutil.copytree(ranker_dir(), folder)
    data = (folder / "model.onnx").read_bytes()
    (folder / "model.onnx").write_bytes(data[: len(data) // 3])
    with pytest.raises(RankerUnavailable, match=r"model\.onnx is missing or damaged.*reinstall Pagewise"):
        ClauseRanker(folder)


def test_search_falls_back_to_the_fused_order_with_a_warning(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    from summarizer.library.storage.store import Library

    with Library.open(tmp_path / "library.sqlite") as lib:
        doc = add_document(lib, [f"{GOVERNING[1]} {NOTICE[1]}", PAYMENT[1], f"governing law {PAYMENT[1]}"])
        with_ranker = search(lib, "governing law", doc_ids=[doc], k=3, use_vectors=False)
        assert with_ranker and all(r.ranker_score is not None for r in with_ranker)
        monkeypatch.setenv("PAGEWISE_RANKER", str(tmp_path / "no-ranker-here"))
        with caplog.at_level(logging.WARNING, logger="pagewise.search"):
            fallback = search(lib, "governing law", doc_ids=[doc], k=3, use_vectors=False)
            search(lib, "governing law", doc_ids=[doc], k=3, use_vectors=False)
        plain = search(lib, "governing law", doc_ids=[doc], k=3, use_vectors=False, params=NO_RANKER)
    assert [r.passage_id for r in fallback] == [r.passage_id for r in plain]
    assert all(r.ranker_score is None for r in fallback)
    warnings = [r.getMessage() for r in caplog.records if "no-ranker-here" in r.getMessage()]
    assert len(warnings) == 1 and "without the clause ranker" in warnings[0]
    assert ranker_or_warning(tmp_path / "no-ranker-here") is None


def test_rerank_reorders_only_the_head(tmp_path: Path) -> None:
    from summarizer.library.storage.store import Library

    with Library.open(tmp_path / "library.sqlite") as lib:
        doc = add_document(lib, [NOTICE[1], PAYMENT[1], GOVERNING[1], NOTICE[1] + " again"], words_per_passage=200)
        ids = [
            int(r[0]) for r in lib.db.execute("SELECT passage_id FROM passages WHERE doc_id = ? ORDER BY seq", [doc])
        ]
        ranked = [(pid, 1.0 / (i + 1)) for i, pid in enumerate(ids)]
        # The governing-law passage is third; with the ranker's order weighing 2 it leads the head of 3.
        reordered, scores = rerank(lib, "Which law governs the agreement?", ranked, top=3, weight=2.0)
        assert reordered[0][0] == ids[2]
        assert reordered[3] == ranked[3]  # beyond the head: untouched, and not scored
        assert set(scores) == set(ids[:3])
        assert rerank(lib, "Which law governs?", ranked, top=0, weight=2.0) == (ranked, {})


def test_pairs_run_side_by_side_score_as_they_do_one_after_the_other() -> None:
    passages = [GOVERNING, NOTICE, PAYMENT] * 3
    alone = ClauseRanker(ranker_dir(), threads=1).score("governing law", passages)
    side_by_side = ClauseRanker(ranker_dir(), threads=2)
    assert side_by_side.score("governing law", passages) == alone
    assert side_by_side.score("governing law", passages[:1]) == alone[:1]  # one pair: run on the caller's thread

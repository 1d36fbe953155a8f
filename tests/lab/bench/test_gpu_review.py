"""The GPU review benchmark's parts that need no GPU: the packed library, the evidence run, the
timed review with a scripted engine (statuses, tokens, a stop at the time limit), the arguments."""

from __future__ import annotations

import dataclasses
import json
import sys
import tarfile
from pathlib import Path

import pytest

from inference.engines.fake import FakeEngine, split_pieces
from lab.bench.gpu_review import main, parse_args, prepare, project, time_review
from summarizer.library.storage.store import Library
from summarizer.review.checklist import Checklist, load_checklist
from summarizer.review.item_answers import REPLY_TOKENS
from tests.conftest import CONTRACTS


@pytest.fixture(scope="module")
def library_tgz(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("bench") / "library.tgz"
    with pytest.MonkeyPatch.context() as patch:  # prepare points PAGEWISE_HOME at its own folder
        patch.setenv("PAGEWISE_HOME", str(path.parent / "home"))
        made = prepare(CONTRACTS / "endorsement-8p.pdf", path, vectors=False)
    assert made["pages"] == 8 and made["passages"] > 0 and not made["vectors"]
    return path


def test_the_packed_library_holds_one_contract_without_vectors(library_tgz: Path, tmp_path: Path) -> None:
    with tarfile.open(library_tgz) as tar:
        assert tar.getnames() == ["library.sqlite"]
        tar.extractall(tmp_path, filter="data")
    with Library.open(tmp_path / "library.sqlite") as library:
        (record,) = library.documents()
        assert record.pages == 8 and library.embedding_model is None


def test_evidence_run_writes_one_line(library_tgz: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "faiss", None)  # as on the GPU machine: no vectors, no FAISS needed
    assert (
        main(["run", "--out", str(tmp_path), "--library", str(library_tgz), "--runs", "evidence", "--items", "3"]) == 0
    )
    (line,) = (tmp_path / "review_bench.jsonl").read_text().splitlines()
    row = json.loads(line)
    assert row["run"] == "evidence" and row["items"] == 3 and row["statuses"] == {"evidence": 3}
    assert row["contract"] == "endorsement-8p.pdf" and row["vectors"] is False


def reply(found: bool, answer: str = "") -> str:
    return json.dumps({"found": found, "answer": answer, "quote": "", "pages": []})


def unpacked(library_tgz: Path, folder: Path) -> Library:
    with tarfile.open(library_tgz) as tar:
        tar.extractall(folder, filter="data")
    return Library.open(folder / "library.sqlite")


def first_items(n: int) -> Checklist:
    full = load_checklist("cuad")
    return dataclasses.replace(full, items=full.items[:n])


def test_a_timed_review_counts_statuses_and_tokens(library_tgz: Path, tmp_path: Path) -> None:
    engine = FakeEngine(n_ctx=32768)  # the whole contract is one reading
    cut_short = '{"found": true, "answer": "' + "and " * 300  # as random weights: the cap ends it
    engine.queue(reply(True, "Endorsement Agreement"), reply(False), cut_short)
    with unpacked(library_tgz, tmp_path) as library:
        (record,) = library.documents()
        row = time_review(library, engine, record.doc_id, first_items(3), "batched")
    assert row["statuses"] == {"answered": 1, "not_found": 1, "error": 1}
    assert (row["readings"], row["batches"], row["prompts"], row["stopped_at_limit"]) == (3, 1, 3, False)
    assert row["reply_cap"] == REPLY_TOKENS and row["max_generated"] == REPLY_TOKENS
    assert row["stop_reasons"] == {"eos": 2, "length": 1}
    assert row["generated_tokens"] == REPLY_TOKENS + len(split_pieces(reply(False))) + len(
        split_pieces(reply(True, "Endorsement Agreement"))
    )
    assert 0 < row["max_prompt_tokens"] < row["prompt_tokens"] <= 3 * row["max_prompt_tokens"]
    project(row, 41)
    assert row["projected_full_checklist_s"] == pytest.approx(row["s_per_item"] * 41, abs=0.1)


def test_a_review_stopped_at_the_limit_reports_what_was_done(library_tgz: Path, tmp_path: Path) -> None:
    engine = FakeEngine(n_ctx=32768, piece_delay_s=0.05, default_reply=reply(True, "x" * 150))
    with unpacked(library_tgz, tmp_path) as library:
        (record,) = library.documents()
        row = time_review(library, engine, record.doc_id, first_items(3), "single", limit_s=0.01)
    assert row["stopped_at_limit"] and row["readings"] < 3
    assert row["statuses"].get("pending", 0) == 3 - row["readings"]


def test_arguments() -> None:
    args = parse_args(["run", "--items", "3", "--single-items", "2", "--limit-s", "170"])
    assert (args.items, args.single_items, args.limit_s, args.budget, args.shape) == (
        3,
        2,
        170.0,
        "12GiB",
        "llama-3.1-8b",
    )
    with pytest.raises(SystemExit):
        parse_args(["run", "--runs", "evidence,fast"])
    with pytest.raises(SystemExit):
        parse_args(["run", "--items", "0"])

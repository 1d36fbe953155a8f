"""`pagewise review`: evidence-only runs, JSON keys, exports, and refusals."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from app.cli import main
from summarizer.library.storage.store import Library
from tests.conftest import CONTRACTS
from tests.inference.engines.openai_fake import FakeServer, Running
from tests.summarizer.doc_factory import add_document
from tests.summarizer.review.room_contracts import answer, contract

CHECKLIST = (
    "id,category,question,queries,type,expected\n"
    "law,Governing Law,Which law governs?,governed by the laws of | governing law,jurisdiction,\n"
    "ins,Insurance,Must a party carry insurance?,shall maintain insurance,yes_no,\n"
)


@pytest.fixture
def doc_id(capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["ingest", str(CONTRACTS / "endorsement-8p.pdf"), "--json"]) == 0
    return str(json.loads(capsys.readouterr().out.splitlines()[0])["doc_id"])


def test_review_evidence_only_json_and_exports(capsys: pytest.CaptureFixture[str], tmp_path: Path, doc_id: str) -> None:
    checklist = tmp_path / "two.csv"
    checklist.write_text(CHECKLIST)
    assert main(["review", doc_id, "--checklist", str(checklist), "--evidence-only", "--json"]) == 0
    (review,) = json.loads(capsys.readouterr().out)["reviews"]
    assert review["doc_id"] == doc_id and review["checklist"] == "two"
    law, insurance = review["items"]
    assert law["item_id"] == "law" and law["status"] == "evidence"
    assert set(law) == {
        "item_id", "category", "question", "answer", "type", "value", "status", "flag", "unverified", "reason",
        "citations", "quote", "evidence", "passages_read", "clause_score", "cached", "correction",
    }  # fmt: skip
    assert set(law["evidence"][0]) == {"passage_id", "page_start", "page_end", "heading", "text"}
    assert 1 <= len(insurance["evidence"]) <= 10

    out = tmp_path / "review.csv"
    assert (
        main(["review", doc_id, "--checklist", str(checklist), "--evidence-only", "--format", "csv", "--out", str(out)])
        == 0
    )
    rows = list(csv.DictReader(out.open()))
    assert [r["category"] for r in rows] == ["Governing Law", "Insurance"]
    assert all(r["pages"].startswith("p") for r in rows)


def test_review_with_a_missing_model_file_says_so(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, doc_id: str
) -> None:
    assert main(["review", doc_id, "--model", str(tmp_path / "none.gguf")]) != 0
    assert "none.gguf" in capsys.readouterr().err


def test_review_of_an_unknown_document(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["review", "nosuchdoc", "--evidence-only"]) != 0
    assert "nosuchdoc" in capsys.readouterr().err


def test_review_docx_memo_reads_back(capsys: pytest.CaptureFixture[str], tmp_path: Path, doc_id: str) -> None:
    import docx

    checklist = tmp_path / "two.csv"
    checklist.write_text(CHECKLIST)
    out = tmp_path / "memo.docx"
    argv = ["review", doc_id, "--checklist", str(checklist), "--evidence-only", "--format", "docx", "--out", str(out)]
    assert main(argv) == 0
    memo = docx.Document(str(out))
    assert "CONFIDENTIAL" in memo.sections[0].header.paragraphs[0].text
    text = "\n".join(p.text for p in memo.paragraphs)
    assert "Machine-generated" in text and "sha256" in text and "two" in text
    (grid,) = memo.tables
    assert [row.cells[0].text for row in grid.rows] == ["Item", "Governing Law", "Insurance"]
    assert grid.rows[1].cells[1].text.startswith("candidate: p")


def test_review_is_stored_reused_without_loading_and_corrected(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import argparse
    from typing import Any

    from app.commands._model_args import OpenModel
    from inference.engines.fake import FakeEngine
    from summarizer.library.storage.store import Library
    from summarizer.llm.model_identity import model_sha256
    from tests.summarizer.doc_factory import add_document

    with Library.open() as library:
        doc_id = add_document(library, ["This agreement is governed by the laws of the State of New York."])
    model_file = tmp_path / "model.gguf"
    model_file.write_bytes(b"weights")
    found = json.dumps({"found": True, "answer": "New York", "quote": "", "pages": [1]})
    engine = FakeEngine([found, json.dumps({"found": False, "answer": "", "quote": "", "pages": []})], n_ctx=4096)
    loads: list[str] = []

    def open_model(args: argparse.Namespace, library: Library, progress: Any, *, batch: bool) -> OpenModel:
        loads.append(args.model)
        engine.load()  # the command closes the model when done
        return OpenModel(engine, model_sha256(library, args.model), 1, None)

    monkeypatch.setattr("app.commands._model_args.open_model", open_model)
    checklist = tmp_path / "two.csv"
    checklist.write_text(CHECKLIST)
    argv = ["review", doc_id, "--checklist", str(checklist), "--model", str(model_file)]

    assert main([*argv, "--json"]) == 0
    *progress, room, last = (json.loads(line) for line in capsys.readouterr().out.splitlines())
    assert progress[-1]["progress"]["contracts_done"] == 1 and room["room"]["reviewed"] == 1
    first = last["reviews"][0]["items"]
    assert [(i["status"], i["cached"]) for i in first] == [("answered", False), ("not_found", False)]
    assert main([*argv, "--json"]) == 0
    again = json.loads(capsys.readouterr().out)["reviews"][0]["items"]
    assert [(i["status"], i["cached"]) for i in again] == [("answered", True), ("not_found", True)]
    assert len(loads) == 1 and len(engine.calls) == 2  # the model was not even loaded the second time

    edit = ["review", doc_id, "--checklist", str(checklist), "--item", "law"]
    assert main([*edit, "--set-value", "Delaware", "--accept", "--note", "per the amendment", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["correction"] | {"updated_at": ""} == {
        "value": "Delaware", "accepted": True, "note": "per the amendment", "updated_at": ""
    }  # fmt: skip
    assert main([*edit, "--note", "checked twice"]) == 0
    assert "value 'Delaware', accepted, note 'checked twice'" in capsys.readouterr().out
    assert main([*edit[:-1], "nosuch", "--accept"]) == 2
    assert "no item 'nosuch'" in capsys.readouterr().err

    out = tmp_path / "review.csv"
    assert main([*argv, "--format", "csv", "--out", str(out)]) == 0
    assert "Wrote" in capsys.readouterr().out
    law = next(csv.DictReader(out.open()))
    assert (law["value"], law["model_value"], law["accepted"], law["note"]) == (
        "Delaware", "New York", "yes", "checked twice"
    )  # fmt: skip
    engine.queue(found, json.dumps({"found": True, "answer": "yes", "quote": "", "pages": [1]}))
    assert main([*argv, "--fresh", "--json"]) == 0
    law, insurance = json.loads(capsys.readouterr().out.splitlines()[-1])["reviews"][0]["items"]
    assert not law["cached"] and law["correction"]["value"] == "Delaware" and insurance["value"] == "yes"
    assert len(loads) == 2 and len(engine.calls) == 4


def test_review_side_is_kept_in_the_json_and_the_memo(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, doc_id: str
) -> None:
    checklist = tmp_path / "two.csv"
    checklist.write_text(CHECKLIST)
    args = ["review", doc_id, "--checklist", str(checklist), "--evidence-only", "--side", "Company"]
    assert main([*args, "--json"]) == 0
    (review,) = json.loads(capsys.readouterr().out)["reviews"]
    assert review["side"] == "Company"
    out = tmp_path / "review.md"
    assert main([*args, "--format", "md", "--out", str(out)]) == 0
    assert "- reviewed for: Company" in out.read_text()


def test_review_all_evidence_only_to_a_workbook(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, doc_id: str
) -> None:
    import openpyxl

    checklist = tmp_path / "two.csv"
    checklist.write_text(CHECKLIST)
    out = tmp_path / "room.xlsx"
    argv = ["review", "--all", "--checklist", str(checklist), "--evidence-only", "--format", "xlsx", "--out", str(out)]
    assert main(argv) == 0
    assert "2 items x 1 contracts" in capsys.readouterr().out
    sheet = openpyxl.load_workbook(out)["Contracts"]
    assert [c.value for c in sheet[1]][2:] == ["Governing Law", "Insurance"]
    assert str(sheet.cell(row=2, column=3).value).startswith("candidate: p")
    assert main(["review", doc_id, "--all", "--evidence-only"]) == 2  # ids or --all, not both
    assert "not both" in capsys.readouterr().err


ROOM_CHECKLIST = (
    "id,category,question,queries,type\n"
    "law,Governing Law,Which law governs?,governed by the laws of,jurisdiction\n"
    "coc,Change of Control,Change of control?,change of control,yes_no\n"
)


def lines(capsys: pytest.CaptureFixture[str]) -> list[dict[str, object]]:
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_review_all_through_a_server_reports_and_continues(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    with Library.open() as library:
        ids = [add_document(library, contract(n), title=f"Contract {n}") for n in range(3)]
    checklist = tmp_path / "two.csv"
    checklist.write_text(ROOM_CHECKLIST)
    server = Running(FakeServer(total_slots=2, reply_for=answer, drop_after=3))
    argv = ["review", "--all", "--checklist", str(checklist), "--remote", server.url, "--json"]
    try:
        assert main(argv) == 75  # the fourth request finds the server gone: paused
        (error,) = [line for line in lines(capsys) if "error" in line]
        assert server.url in str(error["error"]) and "run the command again" in str(error["error"])
        server.state.drop_after = None
        before = len(server.state.requests)
        assert main(argv) == 0
        asked_again = [r for r in server.state.requests[before:] if r[0].startswith("POST") and "completions" in r[0]]
        *progress, room, reviews = lines(capsys)
    finally:
        server.stop()
    assert [p["progress"]["contracts_done"] for p in progress] == list(range(len(progress)))  # type: ignore[index]
    last = progress[-1]["progress"]
    assert last["contracts"] == 3 and last["contracts_done"] == 3 and last["items_per_min"]  # type: ignore[index]
    assert room["room"]["reviewed"] + room["room"]["skipped"] == 3  # type: ignore[index]
    # the items stored before the pause are not asked again (with the server's slots each on a
    # contract of its own, the pause may leave every contract half done: none skipped whole)
    assert len(asked_again) < 3 * 2
    assert room["room"]["busy_share"] is not None  # type: ignore[index]
    assert sorted(r["doc_id"] for r in reviews["reviews"]) == sorted(ids)  # type: ignore[index]
    assert all(r["items"][0]["value"] == "New York" for r in reviews["reviews"])  # type: ignore[index]

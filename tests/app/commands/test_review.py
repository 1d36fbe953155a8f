"""`pagewise review`: evidence-only runs, JSON keys, exports, and refusals."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from app.cli import main
from tests.conftest import CONTRACTS

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
        "item_id", "category", "question", "answer", "type", "value", "status", "flag", "reason",
        "citations", "quote", "evidence", "passages_read", "cached", "correction",
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
    assert grid.rows[1].cells[1].text.startswith("p")

"""The checklist side by side: each item's answer in both versions and the items whose clause
changed flagged, from stored answers (quotes pin the clause) or evidence only (the best passage)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.cli import main
from summarizer.compare.comparison import compare_pages
from summarizer.review.checklist_pair import side_by_side
from summarizer.review.evidence import DocumentReview, Evidence, ItemResult
from tests.pdf_factory import make_pdf
from tests.summarizer.compare.contract_text import contract_lines, contract_pages, edited

CAP_OLD = "The liability of each party shall not exceed the fees paid in the twelve months before the claim."
CAP_NEW = CAP_OLD.replace("twelve", "twenty-four")
LAW = "This Agreement is governed by the laws of the State of New York without regard to conflicts."
EXCLUSIONS = "Neither party is liable for lost profits, except for breach of confidentiality obligations."


def _answered(item_id: str, category: str, value: str, quote: str) -> ItemResult:
    evidence = [Evidence(1, 1, 1, quote)]
    return ItemResult(item_id, category, "?", "text", "answered", evidence, 1, value, value, quote=quote)


def _evidence_only(item_id: str, category: str, passage: str) -> ItemResult:
    return ItemResult(item_id, category, "?", "text", "evidence", [Evidence(2, 1, 1, passage)], 3)


def _review(doc_id: str, items: list[ItemResult]) -> DocumentReview:
    return DocumentReview(doc_id, doc_id, "sha", "cuad", "1", tuple(items))


def test_an_item_whose_quoted_clause_changed_is_flagged_with_both_values() -> None:
    comparison = compare_pages(contract_pages(), contract_pages(edited({"twelve": "twenty-four"})))
    old = _review(
        "old",
        [
            _answered("cap", "Cap on Liability", "12 months' fees", CAP_OLD),
            _answered("law", "Governing Law", "New York", LAW),
        ],
    )
    new = _review(
        "new",
        [
            _answered("cap", "Cap on Liability", "24 months' fees", CAP_NEW),
            _answered("law", "Governing Law", "New York", LAW),
        ],
    )
    cap, law = side_by_side(comparison, old, new)
    assert cap.changed and cap.line == "Cap on Liability: changed in 3.1 Cap, 12 months' fees → 24 months' fees"
    assert (cap.old.value, cap.new.value, cap.old.where) == ("12 months' fees", "24 months' fees", "p.\u00a01")
    assert not law.changed and law.line == "Governing Law: unchanged"
    assert cap.to_json()["changed_in"] == ["3.1 Cap"]


def test_an_evidence_only_item_is_flagged_by_its_best_passage_and_says_what_changed() -> None:
    comparison = compare_pages(contract_pages(), contract_pages(edited({"except for": "including"})))
    passage = f"3.2 Exclusions. {EXCLUSIONS} 3.3 Governing Law. {LAW}"
    fees = "2.1 Fees. Buyer shall pay the fees of $10,000 per month within thirty (30) days of each invoice."
    items = [_evidence_only("excl", "Exclusions", passage), _evidence_only("fees", "Fees", fees)]
    excl, fee_row = side_by_side(comparison, _review("old", items), _review("new", items))
    assert excl.changed and excl.line == "Exclusions: changed in 3.2 Exclusions, except for → including"
    assert excl.old.value is None and excl.old.shown == "evidence (p.\u00a01)"
    assert not fee_row.changed


def test_a_renumbered_clause_does_not_flag_its_item() -> None:
    articles = edited({})
    articles.insert(1, ("ARTICLE II", "INTERIM", [("2.1", "Interim", "Nothing here changes the other articles.")]))
    renumbered = [articles[0], articles[1]]
    for label, title, sections in articles[2:]:
        number = {"ARTICLE II": "III", "ARTICLE III": "IV"}[label]
        renumbered.append((f"ARTICLE {number}", title, [(str(int(n[0]) + 1) + n[1:], h, t) for n, h, t in sections]))
    comparison = compare_pages(contract_pages(), contract_pages(renumbered))
    item = [_answered("law", "Governing Law", "New York", LAW)]
    (law,) = side_by_side(comparison, _review("old", item), _review("new", item))
    assert not law.changed


def test_compare_checklist_json_and_markdown(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    old = make_pdf(tmp_path / "old.pdf", [contract_lines()])  # type: ignore[list-item]
    new = make_pdf(tmp_path / "new.pdf", [contract_lines(edited({"State of New York": "State of Delaware"}))])  # type: ignore[list-item]
    assert main(["compare", str(old), str(new), "--checklist", "cuad", "--json"]) == 0
    result = json.loads(capsys.readouterr().out.splitlines()[-1])
    rows = {row["category"]: row for row in result["checklist"]}
    assert len(rows) == 41, "every CUAD item, in both versions"
    assert rows["Governing Law"]["changed"] and rows["Governing Law"]["changed_in"] == ["3.3 Governing Law"]
    assert rows["Governing Law"]["old"]["status"] in {"evidence", "absent"}
    out = tmp_path / "changes.md"
    assert main(["compare", str(old), str(new), "--checklist", "cuad", "--format", "md", "--out", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert "## Checklist side by side" in text and "| Governing Law |" in text
    redline = tmp_path / "redline.docx"
    args = ["compare", str(old), str(new), "--checklist", "cuad", "--format", "docx", "--out", str(redline)]
    assert main(args) == 0
    from docx import Document

    tables = Document(str(redline)).tables
    checklist = next(t for t in tables if t.rows[0].cells[0].text == "Item")
    law = next(row for row in checklist.rows if row.cells[0].text == "Governing Law")
    assert law.cells[3].text.startswith("changed in 3.3 Governing Law")

""" "Probably absent" is shown as a label with the closest candidate's page, never as a percentage
(issue 42: cells shown at 94-99% "likely absent" were clauses the annotators marked present)."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

from summarizer.library.storage.store import Library
from summarizer.review.absence import absence_model
from summarizer.review.checklist import Checklist, ChecklistItem
from summarizer.review.evidence import DocumentReview, Evidence, ItemResult
from summarizer.review.export import to_csv, to_markdown
from summarizer.review.store import review_key, store_result, stored_results
from tests.summarizer.doc_factory import add_document

PERCENT = re.compile(r"\d\s*%|likely absent")
MFN = ChecklistItem("mfn", "Most Favored Nation", "Is there an MFN clause?", ("most favored",), "yes_no")
CHECKLIST = Checklist("one", "v1", (MFN,))


def absent_cell(reason: str | None = None) -> ItemResult:
    """An absent cell as review_evidence makes it: the closest candidate on p. 3."""
    evidence = [Evidence(7, 3, 3, "The Supplier shall offer prices no higher than its other customers.")]
    result = ItemResult(MFN.id, MFN.category, MFN.question, MFN.type, "absent", evidence, 9)
    result.clause_score = -5.2
    result.reason = absence_model().reason(-5.2, MFN.category) if reason is None else reason
    return result


def review_of(result: ItemResult) -> DocumentReview:
    return DocumentReview("d1", "Supply", "0" * 64, "one", "v1", (result,), "supply.pdf")


def test_the_reason_names_no_likelihood() -> None:
    model = absence_model()
    assert (model.probability(-5.2, MFN.category) or 0) >= model.threshold  # it is absent, at a high P
    for reason in (model.reason(-5.2, MFN.category), model.reason(-9.0, "Data Protection")):
        assert reason.startswith("probably absent: ") and not PERCENT.search(reason), reason


def test_the_exports_say_probably_absent_and_where_to_check_without_a_percentage(tmp_path: Path) -> None:
    import docx

    from summarizer.review.memo_docx import write_docx

    review = review_of(absent_cell())
    markdown = to_markdown([review])
    assert "| Most Favored Nation | probably absent — closest: p.\u00a03 |" in markdown
    (row,) = csv.DictReader(io.StringIO(to_csv([review])))
    assert row["status"] == "absent" and row["pages"] == "p.\u00a03"
    write_docx([review], tmp_path / "memo.docx")
    memo = docx.Document(str(tmp_path / "memo.docx"))
    cells = [c.text for t in memo.tables for r in t.rows for c in r.cells]
    assert "probably absent — closest: p.\u00a03" in cells
    shown = [markdown, *row.values(), *cells, *(p.text for p in memo.paragraphs)]
    assert not [text for text in shown if PERCENT.search(text)]


def test_a_reason_stored_with_a_percentage_is_read_back_without_it(tmp_path: Path) -> None:
    """A library reviewed before issue 42 holds "99% likely absent" in its stored reasons."""
    old = (
        "probably absent: the clause ranker's best passage scores -5.2 and 4% of contracts have such a clause: "
        "99% likely absent; the best candidate is still shown"
    )
    with Library.open(tmp_path / "library.sqlite") as lib:
        doc_id = add_document(lib, ["The Supplier shall offer prices no higher than its other customers."])
        key = review_key(lib, doc_id, CHECKLIST, "evidence/test", 0)
        store_result(lib, key, absent_cell(old))
        result = stored_results(lib, key, CHECKLIST.items)[MFN.id]
    assert result.status == "absent" and result.reason.startswith("probably absent: ")
    assert not PERCENT.search(result.reason) and not PERCENT.search(str(result.to_json()))

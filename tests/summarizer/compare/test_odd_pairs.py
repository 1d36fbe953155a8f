"""Odd pairs: an amendment against the full agreement, a Word version with unaccepted tracked
changes, a scanned version with pages hard to read. (The same file twice, unrelated documents and
a document still being added: test_comparison.py, test_library_versions.py, test_compare.py.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.cli import main
from summarizer.compare.comparison import DIFFERENT_DOCUMENTS, VERSIONS, compare_pages
from summarizer.compare.differences import CHANGED
from summarizer.compare.library_versions import compare_documents
from summarizer.library.ingest import ingest_path
from summarizer.library.storage.store import Library
from tests.docx_factory import para, write_docx
from tests.pdf_factory import make_pdf
from tests.summarizer.compare.contract_text import contract_lines, contract_pages, edited

AMENDMENT = """FIRST AMENDMENT TO SUPPLY AGREEMENT
This First Amendment amends the Supply Agreement between Acme Corp. and Beta Ltd.

1. Amendment of Section 2.1. Section 2.1 of the Agreement is deleted and replaced with the following: "Buyer
shall pay the fees of $12,500 per month within sixty (60) days of each invoice."

2. Amendment of Section 3.1. Section 3.1 of the Agreement is amended by replacing "twelve months" with
"twenty-four months".

3. Effect. Except as amended by this First Amendment, the Agreement remains in full force and effect.
"""

# An amendment that restates the clauses it changes, under their numbers: most of its clauses pair
# with the agreement's, so the share of paired clauses alone would call the two versions.
RESTATING_AMENDMENT = """AMENDMENT NO. 2
The Supply Agreement is hereby amended as follows. Sections 2.1, 2.2 and 3.1 are deleted in their entirety
and replaced with the following:

2.1 Fees. Buyer shall pay the fees of $12,500 per month within sixty (60) days of each invoice.

2.2 Late Payment. Late amounts bear interest at 1% per month until they are paid in full.

3.1 Cap. The liability of each party shall not exceed the fees paid in the twenty-four months before the claim.
"""


@pytest.mark.parametrize(
    ("amendment", "sections"),
    [(AMENDMENT, ("2.1", "3.1")), (RESTATING_AMENDMENT, ("2.1", "2.2", "3.1"))],
    ids=["short", "restating"],
)
def test_an_amendment_against_the_full_agreement_is_said_to_be_one(amendment: str, sections: tuple[str, ...]) -> None:
    comparison = compare_pages(contract_pages(), [(1, amendment)])
    assert comparison.verdict == DIFFERENT_DOCUMENTS and comparison.changes == ()
    assert comparison.amendment == "new"
    assert comparison.amended_sections == sections
    assert "looks like an amendment to the old one" in comparison.message
    backwards = compare_pages([(1, amendment)], contract_pages())
    assert backwards.amendment == "old" and "amendment to the new one" in backwards.message


def test_a_version_that_lost_clauses_without_amending_words_is_still_a_version() -> None:
    articles = edited({})
    shortened = [(articles[0][0], articles[0][1], articles[0][2]), (articles[1][0], articles[1][1], articles[1][2])]
    comparison = compare_pages(contract_pages(), contract_pages(shortened))
    assert comparison.verdict == VERSIONS and comparison.amendment == ""


def _tracked_docx(path: Path) -> Path:
    """The contract as Word paragraphs, 2.1's period changed by a tracked change not yet accepted."""
    body = ""
    for line in contract_lines():
        if not line:
            continue
        if "thirty (30)" in line:
            head, tail = line.split("thirty (30)")
            body += (
                f'<w:p><w:r><w:t xml:space="preserve">{head}</w:t></w:r>'
                '<w:del w:id="1" w:author="Counsel" w:date="2026-11-01T00:00:00Z"><w:r>'
                '<w:delText xml:space="preserve">thirty (30)</w:delText></w:r></w:del>'
                '<w:ins w:id="2" w:author="Counsel" w:date="2026-11-01T00:00:00Z"><w:r>'
                '<w:t xml:space="preserve">sixty (60)</w:t></w:r></w:ins>'
                f'<w:r><w:t xml:space="preserve">{tail}</w:t></w:r></w:p>'
            )
        else:
            body += para(line)
    return write_docx(path, body)


def test_a_word_version_with_unaccepted_tracked_changes_is_compared_as_accepted_and_says_so(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    old = make_pdf(tmp_path / "old.pdf", [contract_lines()])  # type: ignore[list-item]
    new = _tracked_docx(tmp_path / "draft.docx")
    assert main(["compare", str(old), str(new), "--json"]) == 0
    result = json.loads(capsys.readouterr().out.splitlines()[-1])
    (change,) = result["changes"]
    assert change["kind"] == CHANGED and change["new_label"] == "2.1 Fees"
    assert [(e["old"], e["new"]) for e in change["edits"]] == [("thirty", "sixty"), ("30", "60")]
    (note,) = result["notes"]
    assert "new version (draft) still holds 2 tracked changes" in note and "as if they were all accepted" in note
    assert main(["compare", str(old), str(new)]) == 0
    assert "still holds 2 tracked changes" in capsys.readouterr().out


def test_a_scanned_version_with_pages_hard_to_read_warns_with_their_confidence(tmp_path: Path) -> None:
    with Library.open(tmp_path / "library.sqlite") as library:
        old = ingest_path(library, make_pdf(tmp_path / "old.pdf", [contract_lines()])).doc_id  # type: ignore[list-item]
        scan = make_pdf(tmp_path / "scan.pdf", [contract_lines(edited({"thirty (30)": "thirfy (3O)"}))])  # type: ignore[list-item]
        new = ingest_path(library, scan).doc_id
        # As OCR leaves a scanned page it read with a low mean word confidence (ocr_pages.record).
        library.db.execute(
            "INSERT INTO page_ocr (doc_id, page, status, engine, confidence, words) VALUES (?, 1, 'read', 'test', "
            "0.61, '[[0, 6, 0, 0, 10, 10, 0.61]]')",
            [new],
        )
        comparison = compare_documents(library, old, new)
        assert comparison.verdict == VERSIONS
        (note,) = comparison.notes
        assert "The new version (scan) is scanned" in note and "p. 1 (0.61)" in note
        assert "may come from reading errors" in note
        assert compare_documents(library, old, old).notes == ()

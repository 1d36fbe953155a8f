"""Clauses kept in the library (migration 9) for PDF and Word documents, their re-index, and
comparing two stored documents; the notes on odd inputs (a Word version with unaccepted tracked
changes, a scanned version with pages hard to read)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.cli import main
from summarizer.compare.comparison import IDENTICAL, VERSIONS
from summarizer.compare.differences import CHANGED
from summarizer.compare.library_versions import compare_documents, stored_clauses
from summarizer.errors import LibraryError
from summarizer.library.ingest import ingest_path
from summarizer.library.reindex import documents_needing_reindex, reindex
from summarizer.library.storage.store import Library
from tests.docx_factory import para, write_docx
from tests.pdf_factory import make_pdf
from tests.summarizer.compare.contract_text import contract_lines, edited


def _pdf(path: Path, replacements: dict[str, str] | None = None) -> Path:
    return make_pdf(path, [contract_lines(edited(replacements or {}))])  # type: ignore[list-item]


def _docx(path: Path, replacements: dict[str, str] | None = None) -> Path:
    body = "".join(para(line) for line in contract_lines(edited(replacements or {})) if line)
    return write_docx(path, body)


@pytest.mark.parametrize("writer", [_pdf, _docx], ids=["pdf", "docx"])
def test_ingest_keeps_every_clause_with_number_heading_and_span(tmp_path: Path, writer) -> None:  # type: ignore[no-untyped-def]
    with Library.open(tmp_path / "library.sqlite") as library:
        doc_id = ingest_path(library, writer(tmp_path / "supply")).doc_id
        rows = library.db.execute(
            "SELECT label, number, title, page_start, page_end FROM clauses WHERE doc_id = ? ORDER BY seq", [doc_id]
        ).fetchall()
        labels = [r[0] for r in rows]
        assert [label for label in labels if label.startswith("2.")] == ["2.1", "2.2", "2.3"]
        fees = next(r for r in rows if r[0] == "2.1")
        assert fees[1] == "2.1" and fees[2] == "Fees"
        clauses = stored_clauses(library, doc_id)
        assert [c.label for c in clauses] == labels
        assert next(c for c in clauses if c.label == "2.1").body.startswith("Fees. Buyer shall pay")


def test_a_library_from_before_clauses_gets_them_from_a_reindex(tmp_path: Path) -> None:
    with Library.open(tmp_path / "library.sqlite") as library:
        doc_id = ingest_path(library, _pdf(tmp_path / "supply.pdf")).doc_id
        expected = stored_clauses(library, doc_id)
        library.db.execute("DELETE FROM clauses")
        library.db.execute("UPDATE documents SET passage_format = 3")  # cut before clauses were kept
        assert documents_needing_reindex(library) == [doc_id]
        assert stored_clauses(library, doc_id) == expected, "cut from the pages meanwhile"
        (result,) = reindex(library)
        assert result.status == "reindexed"
        count = library.db.execute("SELECT COUNT(*) FROM clauses WHERE doc_id = ?", [doc_id]).fetchone()[0]
        assert count == len(expected)
        assert stored_clauses(library, doc_id) == expected


def test_compare_documents_pdf_against_word(tmp_path: Path) -> None:
    with Library.open(tmp_path / "library.sqlite") as library:
        old = ingest_path(library, _pdf(tmp_path / "old.pdf")).doc_id
        new = ingest_path(library, _docx(tmp_path / "new.docx", {"$10,000": "$12,500"})).doc_id
        comparison = compare_documents(library, old, new)
        assert comparison.verdict == VERSIONS
        shown = [c for c in comparison.changes if not c.hidden]
        assert [(c.kind, c.new.label, c.material) for c in shown] == [(CHANGED, "2.1", True)]  # type: ignore[union-attr]
        assert compare_documents(library, old, old).verdict == IDENTICAL


def test_a_document_still_being_added_is_said_so(tmp_path: Path) -> None:
    with Library.open(tmp_path / "library.sqlite") as library:
        doc_id = ingest_path(library, _pdf(tmp_path / "old.pdf")).doc_id
        library.db.execute("UPDATE documents SET state = 'extracting'")
        with pytest.raises(LibraryError, match="still being added"):
            stored_clauses(library, doc_id)


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
        assert "The new version (scan) is scanned" in note and "p.\u00a01 (0.61)" in note
        assert "may come from reading errors" in note
        assert compare_documents(library, old, old).notes == ()

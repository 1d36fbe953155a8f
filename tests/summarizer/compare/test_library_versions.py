"""Clauses kept in the library (migration 9) for PDF and Word documents, their re-index, and
comparing two stored documents."""

from __future__ import annotations

from pathlib import Path

import pytest

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

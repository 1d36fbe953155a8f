"""Saved comparisons (migration 10) reopen as they were, outliving their documents."""

from __future__ import annotations

from pathlib import Path

import pytest

from summarizer.compare.library_versions import compare_documents
from summarizer.compare.saved import delete_comparison, load_comparison, save_comparison, saved_comparisons
from summarizer.errors import LibraryError
from summarizer.library.ingest import ingest_path
from summarizer.library.storage.store import Library
from tests.docx_factory import para, write_docx
from tests.pdf_factory import make_pdf
from tests.summarizer.compare.contract_text import contract_lines, edited

EDITS = {"thirty (30)": "sixty (60)", "Buyer shall pay": "Buyer may pay"}


def _pdf(path: Path, replacements: dict[str, str] | None = None) -> Path:
    return make_pdf(path, [contract_lines(edited(replacements or {}))])  # type: ignore[list-item]


def _docx(path: Path, replacements: dict[str, str] | None = None) -> Path:
    return write_docx(path, "".join(para(line) for line in contract_lines(edited(replacements or {})) if line))


def _page_text(library: Library, doc_id: str):  # type: ignore[no-untyped-def]
    return lambda page: library.page_text(doc_id, page)


def test_a_saved_comparison_reopens_as_it_was_after_its_documents_are_removed(tmp_path: Path) -> None:
    with Library.open(tmp_path / "library.sqlite") as library:
        old = ingest_path(library, _pdf(tmp_path / "old.pdf")).doc_id
        new = ingest_path(library, _docx(tmp_path / "new.docx", EDITS)).doc_id
        comparison = compare_documents(library, old, new)
        saved_id = save_comparison(library, comparison, (old, "Supply v1", "pdf"), (new, "Supply v2", "docx"))
        library.remove(old)
        library.remove(new)
        (listed,) = saved_comparisons(library)
        assert (listed.comparison_id, listed.name, listed.new_file_type) == (saved_id, "Supply v1 → Supply v2", "docx")
        assert listed.message == comparison.message
        saved, reopened = load_comparison(library, saved_id)
        assert saved == listed
        assert reopened.changes == comparison.changes and reopened.verdict == comparison.verdict
        assert reopened.message == comparison.message
        delete_comparison(library, saved_id)
        with pytest.raises(LibraryError, match="was deleted"):
            load_comparison(library, saved_id)

"""A change's changed words are found again on each version's pages (PDF pages and Word paragraphs)."""

from __future__ import annotations

from pathlib import Path

import pytest

from summarizer.compare.differences import CHANGED, RENUMBERED
from summarizer.compare.highlights import change_spans
from summarizer.compare.library_versions import compare_documents
from summarizer.library.ingest import ingest_path
from summarizer.library.storage.store import Library
from tests.docx_factory import para, write_docx
from tests.pdf_factory import make_pdf
from tests.summarizer.compare.contract_text import ARTICLES, contract_lines, edited

EDITS = {"thirty (30)": "sixty (60)", "Buyer shall pay": "Buyer may pay"}


def _pdf(path: Path, replacements: dict[str, str] | None = None) -> Path:
    return make_pdf(path, [contract_lines(edited(replacements or {}))])  # type: ignore[list-item]


def _docx(path: Path, replacements: dict[str, str] | None = None) -> Path:
    return write_docx(path, "".join(para(line) for line in contract_lines(edited(replacements or {})) if line))


def _page_text(library: Library, doc_id: str):  # type: ignore[no-untyped-def]
    return lambda page: library.page_text(doc_id, page)


@pytest.mark.parametrize("new_writer", [_pdf, _docx], ids=["pdf", "docx"])
def test_changed_words_are_found_on_both_versions_pages(tmp_path: Path, new_writer) -> None:  # type: ignore[no-untyped-def]
    with Library.open(tmp_path / "library.sqlite") as library:
        old = ingest_path(library, _pdf(tmp_path / "old.pdf")).doc_id
        new = ingest_path(library, new_writer(tmp_path / "new", EDITS)).doc_id
        (fees,) = [c for c in compare_documents(library, old, new).changes if not c.hidden]
        assert fees.kind == CHANGED
        spans = change_spans(fees, _page_text(library, old), _page_text(library, new))
        old_words = [library.page_text(old, s.page)[s.start : s.end] for s in spans.old]
        new_words = [library.page_text(new, s.page)[s.start : s.end] for s in spans.new]
        assert old_words == ["shall", "thirty", "30"]
        assert new_words == ["may", "sixty", "60"]


def test_a_renumbered_clause_highlights_its_number(tmp_path: Path) -> None:
    with Library.open(tmp_path / "library.sqlite") as library:
        old = ingest_path(library, _pdf(tmp_path / "old.pdf")).doc_id
        articles = [(label, title, [(n.replace("2.3", "2.4"), h, t) for n, h, t in sections])
                    for label, title, sections in ARTICLES]  # fmt: skip
        new = ingest_path(library, make_pdf(tmp_path / "new.pdf", [contract_lines(articles)])).doc_id
        (taxes,) = [c for c in compare_documents(library, old, new).changes if not c.hidden]
        assert taxes.kind == RENUMBERED
        spans = change_spans(taxes, _page_text(library, old), _page_text(library, new))
        assert [library.page_text(new, s.page)[s.start : s.end] for s in spans.new] == ["2.4"]
        assert [library.page_text(old, s.page)[s.start : s.end] for s in spans.old] == ["2.3"]


def test_the_spans_fall_on_the_changed_words_of_pages_with_a_running_header(tmp_path: Path) -> None:
    """A PDF's clauses are cut from its pages with the running header and page number blanked:
    their spans are read in that text (``clause_page_texts``), and point into the stored page."""
    from summarizer.compare.library_versions import clause_page_texts

    def laid_out(path: Path, replacements: dict[str, str]) -> Path:
        body = [line for line in contract_lines(edited(replacements)) if line]
        chunks = [body[k : k + 6] for k in range(0, len(body), 6)]
        return make_pdf(path, [["CONFIDENTIAL TREATMENT REQUESTED", *c, f"- {n} -"] for n, c in enumerate(chunks, 1)])  # type: ignore[arg-type]

    with Library.open(tmp_path / "library.sqlite") as library:
        old = ingest_path(library, laid_out(tmp_path / "old.pdf", {})).doc_id
        new = ingest_path(library, laid_out(tmp_path / "new.pdf", EDITS)).doc_id
        (fees,) = [c for c in compare_documents(library, old, new).changes if not c.hidden]
        spans = change_spans(fees, clause_page_texts(library, old).get, clause_page_texts(library, new).get)
        assert [library.page_text(old, s.page)[s.start : s.end] for s in spans.old] == ["shall", "thirty", "30"]
        assert [library.page_text(new, s.page)[s.start : s.end] for s in spans.new] == ["may", "sixty", "60"]
        raw = change_spans(fees, _page_text(library, old), _page_text(library, new))  # as the window read them
        assert [library.page_text(old, s.page)[s.start : s.end] for s in raw.old] != ["shall", "thirty", "30"]

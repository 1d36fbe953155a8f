from __future__ import annotations

import json
from pathlib import Path

from summarizer.library.cutting.passages import PAGE_JOIN
from summarizer.library.ingest import IngestOptions, ingest_path
from summarizer.library.reading.pdf_extract import PageText
from summarizer.library.reading.table_pages import TablePages, looks_tabular
from summarizer.library.storage.store import Library
from tests.pdf_factory import make_filing

# pypdf's text of a statement page of a real 10-K: each row's figures land on the next row's line.
PYPDF_STATEMENT = (
    "CONSOLIDATED BALANCE SHEETS\n(Dollars in millions) 2019 2018\nCash and equivalents\n$ 4,466 $ 4,249 "
    "Short-term investments\n197 996 Accounts receivable, net\n4,272 3,498 Inventories\n5,622 5,261 Prepaid "
    "expenses and other current assets\n1,968 1,130 Total current assets\n16,525 15,134 Property, plant and "
    "equipment, net\n4,744 4,454 Goodwill\n154 154 TOTAL ASSETS\n$ 23,717 $ 22,536"
)


def test_statements_are_tables_and_contents_pages_are_not() -> None:
    assert looks_tabular(PYPDF_STATEMENT)
    toc = "TABLE OF CONTENTS\n" + "\n".join(f"{n} Section title {n} {n * 2 + 1}" for n in range(1, 29))
    assert not looks_tabular(toc)
    assert not looks_tabular("The Supplier shall deliver 4,000 units within 30 days of the order. " * 5)


def test_a_table_page_is_read_again_through_pdfium(tmp_path: Path) -> None:
    pdf = make_filing(tmp_path / "acme-10k.pdf")
    with TablePages(pdf) as tables:
        prose = PageText(2, "Item 7. Management's Discussion and Analysis\nCash provided by operations rose.")
        assert tables.read(prose) is prose
        read = tables.read(PageText(3, PYPDF_STATEMENT))
        assert tables.replaced == [3]
    lines = read.text.split("\n")
    assert "Cash and equivalents $ 4,466 $ 4,249" in lines
    assert "Total current assets 16,525 15,134" in lines


def test_a_pdf_pdfium_cannot_open_keeps_pypdfs_text(tmp_path: Path) -> None:
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.4\nnot really a pdf")
    with TablePages(broken) as tables:
        page = PageText(1, PYPDF_STATEMENT)
        assert tables.read(page) is page
        assert tables.read(page) is page  # and it is not tried again


def test_a_filing_is_cut_by_its_items_and_statements(tmp_path: Path) -> None:
    pdf = make_filing(tmp_path / "acme-10k.pdf")
    with Library.open() as library:
        result = ingest_path(library, pdf, IngestOptions(max_tokens=120, overlap_tokens=16))
        doc = library.document(result.doc_id)
        assert doc.kind == "filing"
        assert doc.to_json()["kind"] == "filing"
        raw = dict(library.db.execute("SELECT page, text FROM pages WHERE doc_id = ?", [doc.doc_id]).fetchall())
        rows = library.db.execute(
            "SELECT text, spans, heading FROM passages WHERE doc_id = ? ORDER BY seq", [doc.doc_id]
        ).fetchall()
    for text, spans, _ in rows:
        # Spans still map the stored page text exactly, and the running header is in no passage.
        assert PAGE_JOIN.join(raw[p][s:e] for p, s, e in json.loads(spans)) == text
        assert "ACME CORPORATION ANNUAL REPORT" not in text
    heading_of = {line: heading for text, _, heading in rows for line in text.split("\n")}
    assert heading_of["Cash and equivalents $ 4,466 $ 4,249"] == (
        "PART II > Item 7. Management's Discussion and Analysis of Financial Condition and Results of Operations"
        " > CONSOLIDATED BALANCE SHEETS (Dollars in millions)"
    )


def test_reindex_reads_again_the_table_pages_of_a_document_read_before(tmp_path: Path) -> None:
    from summarizer.library.reindex import reindex

    pdf = make_filing(tmp_path / "acme-10k.pdf")
    with Library.open() as library:
        doc_id = ingest_path(library, pdf).doc_id
        # As an older Pagewise stored it: pypdf's text of the statement page, passage format 2.
        library.db.execute("UPDATE pages SET text = ? WHERE doc_id = ? AND page = 3", [PYPDF_STATEMENT, doc_id])
        library.db.execute("UPDATE documents SET passage_format = 2 WHERE doc_id = ?", [doc_id])
        (done,) = reindex(library)
        assert done.status == "reindexed"
        page = library.db.execute("SELECT text FROM pages WHERE doc_id = ? AND page = 3", [doc_id]).fetchone()[0]
        assert "Cash and equivalents $ 4,466 $ 4,249" in page.split("\n")
        texts = [r[0] for r in library.db.execute("SELECT text FROM passages WHERE doc_id = ?", [doc_id])]
        assert any("Short-term investments 197 996" in t.split("\n") for t in texts)

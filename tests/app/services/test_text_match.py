from __future__ import annotations

import json
from pathlib import Path

from app.services.text_match import fold, locate


def test_fold_keeps_letters_and_digits_with_their_positions() -> None:
    folded = fold("Ab\u00a0c-\r\nd ﬁ")
    assert folded.text == "abcdfi"
    assert folded.index == [0, 1, 3, 7, 9, 9]


def test_locate_tolerates_line_breaks_no_break_spaces_and_hyphenation() -> None:
    pypdf = "The Licensee shall pay the fees within thirty (30) days of the in-\nvoice date."
    qtpdf = (
        "Header\r\nThe\u00a0Licensee\u00a0shall\u00a0pay\u00a0the\u00a0fees\u00a0within\r\n"
        "thirty\u00a0(30)\u00a0days of the invoice date.\r\nNext"
    )
    match = locate(pypdf, qtpdf)
    assert match is not None and match.exact
    assert qtpdf[match.start : match.end].startswith("The\u00a0Licensee")
    assert qtpdf[match.start : match.end].endswith("date")


def test_locate_prefers_the_occurrence_near_the_hint() -> None:
    text = "clause one applies. " * 3 + "middle " * 50 + "clause one applies."
    first = locate("clause one applies", text, hint=0.0)
    last = locate("clause one applies", text, hint=1.0)
    assert first is not None and last is not None
    assert first.start == 0
    assert last.start > first.start + 100


def test_locate_falls_back_to_head_and_tail_when_a_word_differs() -> None:
    needle = "Confidential information means all information disclosed by a party " * 2 + "in writing."
    hay = "xx " + needle.replace("disclosed by a party in", "disclosed by one party in") + " yy"
    match = locate(needle, hay)
    assert match is not None and not match.exact
    assert hay[match.start : match.end].startswith("Confidential")


def test_locate_returns_none_when_absent() -> None:
    assert locate("nothing like this here at all, not even close", "a completely different page text") is None


def test_a_statement_passage_read_through_pdfium_is_found_exactly(tmp_path: Path) -> None:
    """Table pages are stored as PDFium reads them, and QtPdf is PDFium: the viewer finds a
    statement passage's rows exactly (before, pypdf's order of label and figures differed)."""
    from summarizer.library.ingest import IngestOptions, ingest_path
    from summarizer.library.reading.page_render import RenderedPages
    from summarizer.library.storage.store import Library
    from tests.pdf_factory import make_filing

    pdf = make_filing(tmp_path / "acme-10k.pdf")
    with Library.open(tmp_path / "lib.sqlite") as library:
        doc_id = ingest_path(library, pdf, IngestOptions(embed=False)).doc_id
        raw = str(library.db.execute("SELECT text FROM pages WHERE doc_id = ? AND page = 3", [doc_id]).fetchone()[0])
        spans = [
            json.loads(str(r[0])) for r in library.db.execute("SELECT spans FROM passages WHERE doc_id = ?", [doc_id])
        ]
    pieces = [raw[s:e] for passage in spans for page, s, e in passage if page == 3]
    statement = next(piece for piece in pieces if "Total current assets 16,525 15,134" in piece)
    with RenderedPages(pdf) as pages:
        viewer_text = pages.text(3).replace("\n", "\r\n")  # QtPdf's line ends
    match = locate(statement, viewer_text)
    assert match is not None and match.exact

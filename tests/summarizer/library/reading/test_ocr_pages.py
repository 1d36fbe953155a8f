"""OCR of scanned pages: which pages are read, what is stored, resuming, the real engine."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from inference.cancel import Cancelled, CancelToken
from inference.progress import Progress, Stage
from summarizer.library.ingest import IngestOptions, ingest_path
from summarizer.library.reading.ocr_engine import OcrPage, assemble_page
from summarizer.library.reading.ocr_pages import page_kind, page_words, text_is_garbage
from summarizer.library.reading.page_render import MAX_SIDE_PX, RenderedPages
from summarizer.library.storage.store import Library
from summarizer.search.retrieval import search
from tests.conftest import CONTRACTS
from tests.pdf_factory import make_pdf, scanned_copy, text_pages


class ScriptedOcr:
    """Reads every page as the same two lines; counts the pages it was given."""

    name = "scripted"

    def __init__(self, fail_on: int | None = None, cancel: CancelToken | None = None) -> None:
        self.calls = 0
        self.fail_on = fail_on
        self.cancel = cancel

    def recognize(self, image: Any, points_per_pixel: float) -> OcrPage:
        self.calls += 1
        if self.cancel is not None and self.calls == 2:
            self.cancel.cancel()
        if self.fail_on == self.calls:
            raise RuntimeError("the engine choked")
        lines = [
            [("12.", 0.99, (10, 10, 40, 30)), ("TERMINATION", 0.98, (50, 10, 200, 30))],
            [("Either", 0.97, (10, 40, 60, 60)), ("party", 0.96, (70, 40, 120, 60)), ("may", 0.9, (130, 40, 160, 60))],
        ]
        return assemble_page(lines, points_per_pixel)


def test_garbage_text_and_page_kinds() -> None:
    assert text_is_garbage("\ue001\ue002\ue003 \ue004\ue005")  # private-use glyphs: a font without a Unicode map
    assert text_is_garbage("(cid:12)(cid:7)(cid:44) (cid:3)")
    assert not text_is_garbage("This Agreement is made as of May 1, 2020.")
    assert not text_is_garbage("")
    never_called: list[int] = []

    def no_image() -> bool:
        never_called.append(1)
        return False

    assert page_kind("The Supplier shall deliver the Goods.", no_image, "auto") == "text"
    assert never_called == []  # a page with good text is not even looked at
    assert page_kind("Date:", lambda: False, "auto") == "no_image"  # a few words and no image: not a scan
    assert page_kind("Date:", lambda: True, "auto") == "ocr"
    assert page_kind("", lambda: True, "auto") == "ocr"
    assert page_kind("(cid:1)(cid:2)(cid:3)(cid:4)", lambda: False, "auto") == "ocr"
    assert page_kind("", lambda: True, "never") == "text"
    assert page_kind("The Supplier shall deliver the Goods.", lambda: True, "always") == "ocr"


def test_assembled_page_keeps_each_words_range_and_box() -> None:
    lines = [
        [("1.", 0.9, (10, 10, 20, 20)), ("Term", 0.8, (30, 10, 60, 20))],
        [("The", 1.0, (10, 22, 30, 32))],
        [("Next", 1.0, (10, 60, 40, 70))],  # a gap of several line heights: a new paragraph
    ]
    page = assemble_page(lines, points_per_pixel=0.5)
    assert page.text == "1. Term\nThe\n\nNext"
    assert [page.text[w.start : w.end] for w in page.words] == ["1.", "Term", "The", "Next"]
    assert page.words[1].box == (15.0, 5.0, 30.0, 10.0)
    assert 0.8 < page.confidence < 1.0


def test_a_scanned_pdf_is_read_indexed_and_searchable(tmp_path: Path, monkeypatch: Any) -> None:
    import summarizer.library.reading.ocr_pages as ocr_pages

    scan = scanned_copy(CONTRACTS / "supply-16p.pdf", [1, 2, 3], tmp_path / "scan.pdf", dpi=50)
    engine = ScriptedOcr()
    monkeypatch.setattr(ocr_pages, "load_ocr_engine", lambda threads: engine)
    events: list[Progress] = []
    with Library.open() as library:
        result = ingest_path(library, scan, IngestOptions(embed=False), progress=events.append)
        assert engine.calls == 3
        assert result.status == "indexed"
        assert result.passages > 0
        assert "3 pages read by OCR: 1-3" in result.warnings
        recognizing = [e for e in events if e.stage == Stage.RECOGNIZE_PAGES]
        assert [e.done for e in recognizing][:3] == [1, 2, 3] and recognizing[0].total == 3
        stored = page_words(library, result.doc_id, 2)
        assert stored is not None
        text, words = stored
        assert text.startswith("12. TERMINATION\nEither party may")
        assert [text[int(w[0]) : int(w[1])] for w in words][:2] == ["12.", "TERMINATION"]
        # Boxes are in PDF points: OCR draws the page at 300 dpi, so a pixel is 72/300 points.
        assert words[0][2:6] == pytest.approx([10 * 0.24, 10 * 0.24, 40 * 0.24, 30 * 0.24], abs=0.02)
        hits = search(library, "termination", doc_ids=[result.doc_id], k=3, use_vectors=False)
        assert hits and "TERMINATION" in hits[0].text


def test_ocr_resumes_after_a_cancel_and_a_failed_page_is_noted(tmp_path: Path, monkeypatch: Any) -> None:
    import summarizer.library.reading.ocr_pages as ocr_pages

    scan = scanned_copy(CONTRACTS / "endorsement-8p.pdf", [1, 2, 3, 4], tmp_path / "scan.pdf", dpi=40)
    token = CancelToken()
    first = ScriptedOcr(cancel=token)
    monkeypatch.setattr(ocr_pages, "load_ocr_engine", lambda threads: first)
    with Library.open() as library:
        with pytest.raises(Cancelled):
            ingest_path(library, scan, IngestOptions(embed=False), cancel=token)
        read = library.db.execute("SELECT page FROM page_ocr WHERE status = 'read' ORDER BY page").fetchall()
        assert [r[0] for r in read] == [1, 2]  # each page is committed as it is read
        second = ScriptedOcr(fail_on=1)  # page 3 fails, page 4 is read
        monkeypatch.setattr(ocr_pages, "load_ocr_engine", lambda threads: second)
        result = ingest_path(library, scan, IngestOptions(embed=False))
        assert second.calls == 2  # pages 1-2 were not read again
        assert result.status == "indexed"
        assert "3 pages read by OCR: 1-2, 4" in result.warnings
        failed = "page 3 could not be read by OCR (RuntimeError: the engine choked)"
        assert any(w.startswith(failed) for w in result.warnings)


def test_mixed_document_reads_only_its_scanned_page(tmp_path: Path, monkeypatch: Any) -> None:
    from pypdf import PdfReader, PdfWriter

    import summarizer.library.reading.ocr_pages as ocr_pages

    text_pdf = make_pdf(tmp_path / "text.pdf", [*text_pages(2), ["Date:"]])
    scan = scanned_copy(CONTRACTS / "supply-16p.pdf", [16], tmp_path / "sig.pdf", dpi=40)
    writer = PdfWriter()
    for part in (text_pdf, scan):
        for page in PdfReader(part).pages:
            writer.add_page(page)
    mixed = tmp_path / "mixed.pdf"
    with mixed.open("wb") as f:
        writer.write(f)
    engine = ScriptedOcr()
    monkeypatch.setattr(ocr_pages, "load_ocr_engine", lambda threads: engine)
    with Library.open() as library:
        result = ingest_path(library, mixed, IngestOptions(embed=False))
        assert engine.calls == 1
        assert result.status == "indexed"
        assert result.warnings == ["1 page read by OCR: 4"]  # page 3 ("Date:") is not called a scan
        assert library.document(result.doc_id).ocr_pages == []
        never = ingest_path(library, make_pdf(tmp_path / "m2.pdf", [*text_pages(1), None]), IngestOptions(ocr="never"))
        assert never.warnings == ["pages with no text layer (need OCR): 2"]


def test_a_huge_page_is_drawn_within_bounds(tmp_path: Path) -> None:
    path = make_pdf(tmp_path / "one.pdf", [["Hello there, a short page of text."]])
    data = path.read_bytes().replace(b"/MediaBox [0 0 612 792]", b"/MediaBox [0 0 5000 5000]")
    huge = tmp_path / "huge.pdf"
    huge.write_bytes(data)
    with RenderedPages(huge) as rendered:
        image, points_per_pixel = rendered.render(1)
    assert max(image.shape[:2]) <= MAX_SIDE_PX
    assert points_per_pixel == pytest.approx(5000 / max(image.shape[:2]), rel=0.01)


def test_rapidocr_reads_a_drawn_contract_page_offline() -> None:
    """The real engine, its bundled models (the suite blocks sockets), on a page drawn at 150 dpi."""
    from summarizer.library.cutting.normalize import normalize
    from summarizer.library.reading.ocr_engine import ENGINE_NAME, load_ocr_engine

    with RenderedPages(CONTRACTS / "supply-16p.pdf") as rendered:
        image, points_per_pixel = rendered.render(2, dpi=150)
        original = rendered.text(2)
    page = load_ocr_engine(2).recognize(image, points_per_pixel)
    assert load_ocr_engine(2).name == ENGINE_NAME
    ours = normalize(page.text).text.split()
    theirs = normalize(original).text.split()
    common = len(set(ours) & set(theirs)) / len(set(theirs))
    assert common > 0.9, (page.text[:500], original[:500])
    assert page.confidence > 0.9
    # Every word box lies on the page (PDF points, origin top left).
    assert all(0 <= w.box[0] < w.box[2] <= 596 and 0 <= w.box[1] < w.box[3] <= 843 for w in page.words)
    assert json.loads(json.dumps(page.to_json()))[0][0] == 0


def test_an_underlined_line_is_read_and_an_upside_down_scan_is_turned_over() -> None:
    """license-17p page 4 at 300 dpi: with RapidOCR's per-line orientation classifier the line
    holding an underlined "provided, however," came out as scattered letters; the same page
    scanned upside down is read turned over, its word boxes on the page as it is drawn."""
    from summarizer.library.reading.ocr_engine import load_ocr_engine

    with RenderedPages(CONTRACTS / "license-17p.pdf") as rendered:
        image, points_per_pixel = rendered.render(4, dpi=300)
    line = "otherwise permit any third party to use any Licensed Domain Names"
    upright = load_ocr_engine(2).recognize(image, points_per_pixel)
    assert line in " ".join(upright.text.split()), upright.text
    over = load_ocr_engine(2).recognize(image[::-1, ::-1].copy(), points_per_pixel)
    assert line in " ".join(over.text.split()), over.text
    assert over.confidence > 0.95
    width, height = image.shape[1] * points_per_pixel, image.shape[0] * points_per_pixel
    first_up, first_over = upright.words[0].box, over.words[0].box  # the same word, drawn turned over
    assert first_over == pytest.approx(
        (width - first_up[2], height - first_up[3], width - first_up[0], height - first_up[1]), abs=6
    )


def test_a_document_stored_as_needing_ocr_is_read_on_reindex(tmp_path: Path, monkeypatch: Any) -> None:
    import summarizer.library.reading.ocr_pages as ocr_pages
    from summarizer.library.reindex import documents_needing_ocr, reindex_library

    scan = scanned_copy(CONTRACTS / "supply-16p.pdf", [1, 2], tmp_path / "scan.pdf", dpi=40)
    gone = scanned_copy(CONTRACTS / "supply-16p.pdf", [3], tmp_path / "gone.pdf", dpi=40)
    engine = ScriptedOcr()
    monkeypatch.setattr(ocr_pages, "load_ocr_engine", lambda threads: engine)
    with Library.open() as library:
        old = ingest_path(library, scan, IngestOptions(ocr="never", embed=False))  # as before OCR existed
        moved = ingest_path(library, gone, IngestOptions(ocr="never", embed=False))
        assert old.status == moved.status == "needs_ocr" and engine.calls == 0
        gone.unlink()
        assert set(documents_needing_ocr(library)) == {old.doc_id, moved.doc_id}
        job = reindex_library(library, options=IngestOptions(embed=False), ocr=True)
        by_doc = {r.doc_id: r for r in job.documents}
        assert by_doc[old.doc_id].status == "ocr" and by_doc[old.doc_id].passages > 0
        assert (
            by_doc[moved.doc_id].status == "file_missing" and "gone.pdf is no longer there" in by_doc[moved.doc_id].note
        )
        assert engine.calls == 2
        record = library.document(old.doc_id)
        assert record.status == "indexed" and record.ocr_pages == []
        assert "2 pages read by OCR: 1-2" in record.warnings
        assert documents_needing_ocr(library) == [moved.doc_id]  # still listed: add the file again


def test_a_pdf_pypdf_cannot_open_is_read_through_pdfium(tmp_path: Path) -> None:
    good = make_pdf(tmp_path / "good.pdf", text_pages(2))
    damaged = tmp_path / "damaged.pdf"
    damaged.write_bytes(good.read_bytes().replace(b"/Type /Pages", b"/Type /Pagez"))  # a damaged /Pages tree
    with Library.open() as library:
        result = ingest_path(library, damaged, IngestOptions(embed=False))
        assert result.status == "indexed" and result.pages == 2 and result.passages > 0
        assert "Page marker 2." in library.page_text(result.doc_id, 2)


def _image_pdf(path: Path, pages: int, size: tuple[int, int] = (200, 260), blank: bool = False) -> Path:
    from PIL import Image, ImageDraw

    images = []
    for n in range(pages):
        image = Image.new("L", size, 255)
        if not blank:
            ImageDraw.Draw(image).text((10, 10 + n % 50), f"Page {n + 1}", fill=0)
        images.append(image)
    images[0].save(path, save_all=True, append_images=images[1:], resolution=72.0)
    return path


def test_an_image_of_nothing_and_a_page_that_cannot_be_drawn(tmp_path: Path, monkeypatch: Any) -> None:
    """The real engine on a blank scan finds no words: noted, no crash; a page PDFium fails to
    draw is noted and the others are read."""
    import summarizer.library.reading.page_render as page_render

    with Library.open() as library:
        blank = ingest_path(library, _image_pdf(tmp_path / "blank.pdf", 1, blank=True), IngestOptions(embed=False))
        assert blank.status == "indexed" and blank.passages == 0
        assert blank.warnings == ["1 page read by OCR: 1", "page 1: OCR found no words on it"]
        draw = page_render.RenderedPages.render

        def render(self: Any, number: int, *args: Any, **kwargs: Any) -> Any:
            if number == 2:
                raise page_render.DocumentError("PDFium could not draw page 2")
            return draw(self, number, *args, **kwargs)

        monkeypatch.setattr(page_render.RenderedPages, "render", render)
        import summarizer.library.reading.ocr_pages as ocr_pages

        monkeypatch.setattr(ocr_pages, "load_ocr_engine", lambda threads: ScriptedOcr())
        mixed = ingest_path(library, _image_pdf(tmp_path / "three.pdf", 3), IngestOptions(embed=False))
        assert mixed.status == "indexed" and mixed.passages > 0
        assert "2 pages read by OCR: 1, 3" in mixed.warnings
        assert any(
            w.startswith("page 2 could not be read by OCR (DocumentError: PDFium could not draw page 2")
            for w in mixed.warnings
        )


def test_a_300_page_scan_is_read_page_by_page_in_bounded_memory(tmp_path: Path, monkeypatch: Any) -> None:
    import resource

    import summarizer.library.reading.ocr_pages as ocr_pages

    engine = ScriptedOcr()
    monkeypatch.setattr(ocr_pages, "load_ocr_engine", lambda threads: engine)
    scan = _image_pdf(tmp_path / "long.pdf", 300)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    events: list[Progress] = []
    with Library.open() as library:
        result = ingest_path(library, scan, IngestOptions(embed=False), progress=events.append)
    grown_mib = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert engine.calls == 300 and result.status == "indexed"
    assert "300 pages read by OCR: 1-300" in result.warnings
    assert max(e.done for e in events if e.stage == Stage.RECOGNIZE_PAGES) == 300
    assert grown_mib < 300, grown_mib  # one page image at a time, not 300


def test_a_text_pdf_never_opens_pdfium_and_pdfium_failing_loses_nothing(tmp_path: Path, monkeypatch: Any) -> None:
    import summarizer.library.reading.page_render as page_render

    def refuse(self: Any, path: Path, password: str | None = None) -> None:
        raise page_render.DocumentError(f"{path} cannot be drawn for OCR (test).")

    monkeypatch.setattr(page_render.RenderedPages, "__init__", refuse)
    with Library.open() as library:
        text = ingest_path(library, make_pdf(tmp_path / "text.pdf", text_pages(3)), IngestOptions(embed=False))
        assert text.status == "indexed" and text.warnings == []
        mixed = make_pdf(tmp_path / "mixed.pdf", [*text_pages(1), None])
        result = ingest_path(library, mixed, IngestOptions(embed=False))
        assert result.status == "indexed" and result.warnings == ["pages with no text layer (need OCR): 2"]

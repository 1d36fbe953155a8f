"""PDF pages as images and page facts through PDFium (pypdfium2), outside Qt.

Used for OCR: whether a page carries an image, and the page drawn as an RGB array at a
resolution whose pixel count is bounded (a 5,000-point page at 300 dpi would be 20,000 pixels a
side). Also the fallback text reader for a PDF that pypdf cannot open but PDFium can.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from summarizer.errors import DocumentError

if TYPE_CHECKING:
    from summarizer.library.reading.pdf_extract import PageText

OCR_DPI = 300
MAX_SIDE_PX = 4200  # longest side of a rendered page: ~4 MP at most, ~50 MB of RGB
_pdfium_lock = threading.Lock()  # PDFium is not thread-safe: one call into it at a time


class RenderedPages:
    """An open PDF for drawing pages; ``close()`` (or use as a context manager) when done."""

    def __init__(self, path: Path, password: str | None = None) -> None:
        import pypdfium2 as pdfium

        self.path = path
        try:
            with _pdfium_lock:
                self._pdf = pdfium.PdfDocument(str(path), password=password)
                self.page_count = len(self._pdf)
        except pdfium.PdfiumError as error:
            raise DocumentError(f"{path} cannot be drawn for OCR ({error}).", path=path) from None

    def __enter__(self) -> RenderedPages:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def close(self) -> None:
        with _pdfium_lock:
            self._pdf.close()

    def has_image(self, number: int) -> bool:
        """Whether page ``number`` (1-based) draws an image, directly or inside a form."""
        import pypdfium2.raw as raw

        with _pdfium_lock:
            try:
                page = self._pdf[number - 1]
            except Exception:  # a page PDFium cannot load: let OCR try it and say what failed
                return True
            try:
                return any(obj.type == raw.FPDF_PAGEOBJ_IMAGE for obj in page.get_objects(max_depth=4))
            except Exception:
                return True
            finally:
                page.close()

    def text(self, number: int) -> str:
        """PDFium's text of page ``number`` (1-based), lines ending in newlines."""
        with _pdfium_lock:
            page = self._pdf[number - 1]
            try:
                textpage = page.get_textpage()
                try:
                    text: str = textpage.get_text_range()
                finally:
                    textpage.close()
            finally:
                page.close()
        return text.replace("\r\n", "\n")

    def render(self, number: int, dpi: int = OCR_DPI, max_side: int = MAX_SIDE_PX) -> tuple[Any, float]:
        """Page ``number`` (1-based) as an RGB uint8 array, and the PDF points per pixel."""
        with _pdfium_lock:
            page = self._pdf[number - 1]
            try:
                width, height = page.get_size()
                scale = dpi / 72.0
                longest = max(width, height) * scale
                if longest > max_side:
                    scale *= max_side / longest
                bitmap = page.render(scale=scale, rev_byteorder=True, may_draw_forms=True)
                try:
                    image = bitmap.to_numpy().copy()
                finally:
                    bitmap.close()
            finally:
                page.close()
        if image.ndim == 3 and image.shape[2] == 4:
            image = image[:, :, :3]
        return image, 1.0 / scale


class PdfiumPages:
    """The text of a PDF that pypdf cannot open (a damaged ``/Pages`` tree, say) but PDFium can,
    with ``PdfPages``' interface: ``path``, ``content_sha256``, ``page_count``, ``title``, ``pages()``."""

    def __init__(self, path: Path, password: str | None = None) -> None:
        from summarizer.library.reading.pdf_extract import file_sha256

        self.path = path
        self._rendered = RenderedPages(path, password)
        if self._rendered.page_count == 0:
            self._rendered.close()
            raise DocumentError(f"{path} has no pages. Re-export the PDF.", path=path)
        self.page_count = self._rendered.page_count
        self.content_sha256 = file_sha256(path)
        self.title = path.stem

    def pages(self, start: int = 1) -> Iterator[PageText]:
        from summarizer.library.reading.pdf_extract import PageText

        for number in range(start, self.page_count + 1):
            try:
                text = self._rendered.text(number)
            except Exception as error:  # a broken page must not stop the others
                yield PageText(number=number, text="", error=f"{type(error).__name__}: {error}"[:160])
                continue
            yield PageText(number=number, text=text)

    def close(self) -> None:
        self._rendered.close()

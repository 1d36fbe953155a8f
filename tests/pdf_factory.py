"""Small PDFs written byte by byte, for tests: text pages, blank pages, broken pages."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def page_stream(lines: list[str], header: str = "", footer: tuple[str, ...] = ()) -> bytes:
    """``lines`` from the top of the text area down; ``header`` above it and ``footer`` lines
    (a running footer, a page number) at the foot of the page, in small print."""
    ops = []
    if header:
        ops += ["BT", "/F1 9 Tf", "72 776 Td", f"({_escape(header)}) Tj", "ET"]
    ops += ["BT", "/F1 11 Tf", "14 TL", f"72 {740 if header else 760} Td"]
    for line in lines:
        ops.append(f"({_escape(line)}) Tj T*")
    ops.append("ET")
    if footer:
        ops += ["BT", "/F1 9 Tf", "12 TL", "72 50 Td"] + [f"({_escape(line)}) Tj T*" for line in footer] + ["ET"]
    return "\n".join(ops).encode("latin-1")


def make_pdf(path: Path, pages: list[list[str] | bytes | None], title: str | None = None) -> Path:
    """Write a PDF whose pages hold ``lines`` of text, raw content bytes, or nothing (None)."""
    objects: list[bytes] = []

    def add(body: bytes) -> int:
        objects.append(body)
        return len(objects)

    catalog = add(b"")  # placeholder, filled below
    pages_obj = add(b"")
    font = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    kids = []
    for content in pages:
        if content is None:
            stream = b""
        elif isinstance(content, bytes):
            stream = content
        else:
            stream = page_stream(content)
        contents = add(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
        kids.append(
            add(
                b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] "
                b"/Resources << /Font << /F1 %d 0 R >> >> /Contents %d 0 R >>" % (pages_obj, font, contents)
            )
        )
    objects[catalog - 1] = b"<< /Type /Catalog /Pages %d 0 R >>" % pages_obj
    objects[pages_obj - 1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (
        b" ".join(b"%d 0 R" % k for k in kids),
        len(kids),
    )
    info = None
    if title:
        info = add(b"<< /Title (" + _escape(title).encode("latin-1") + b") >>")
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    trailer = b"<< /Size %d /Root %d 0 R" % (len(objects) + 1, catalog)
    if info:
        trailer += b" /Info %d 0 R" % info
    out += b"trailer\n" + trailer + b" >>\nstartxref\n%d\n%%%%EOF\n" % xref
    path.write_bytes(bytes(out))
    return path


LOREM = (
    "The Supplier shall deliver the Goods to the Buyer within thirty days of each purchase order. "
    "Either party may terminate this Agreement upon ninety days written notice to the other party. "
    "All disputes shall be settled by arbitration in Geneva under the rules of the ICC. "
)


def text_pages(count: int, words_per_page: int = 120, tag: str = "") -> list[list[str]]:
    """``count`` pages of plain English, each page starting with its own marker line."""
    words = LOREM.split()
    pages = []
    for n in range(1, count + 1):
        body = [words[(n * 7 + i) % len(words)] for i in range(words_per_page)]
        lines = [f"Page marker {tag}{n}."]
        for i in range(0, len(body), 12):
            lines.append(" ".join(body[i : i + 12]))
        pages.append(lines)
    return pages


def make_pdf_with_broken_page(path: Path, good_pages: int = 3, broken_page: int = 2) -> Path:
    """A PDF whose page ``broken_page`` has a content stream that claims Flate but is not."""
    pages: list[list[str] | bytes | None] = list(text_pages(good_pages))
    marker = b"BT /F1 11 Tf (BROKEN-PAGE-MARKER) Tj ET"
    pages.insert(broken_page - 1, marker)
    make_pdf(path, pages)
    data = path.read_bytes()
    data = data.replace(
        b"<< /Length %d >>\nstream\n" % len(marker) + marker,
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(marker) + marker,
    )
    path.write_bytes(data)
    return path


def scanned_copy(
    source: Path, pages: list[int], out: Path, dpi: int = 100, scanner: Callable[[Any], Any] | None = None
) -> Path:
    """An image-only PDF of ``pages`` of ``source``, drawn at ``dpi``: a scan. ``scanner`` turns
    each drawn page (a PIL image) into what a scanner would give (scripts/bench_ocr.py adds noise)."""
    from PIL import Image

    from summarizer.library.page_render import RenderedPages

    images = []
    with RenderedPages(source) as rendered:
        for number in pages:
            array, _ = rendered.render(number, dpi=dpi)
            image = Image.fromarray(array)
            images.append(scanner(image) if scanner is not None else image)
    images[0].save(out, save_all=True, append_images=images[1:], resolution=float(dpi))
    return out

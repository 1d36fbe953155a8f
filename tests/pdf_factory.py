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


def make_pdf(path: Path, pages: list[list[str] | bytes | None], title: str | bytes | None = None) -> Path:
    """Write a PDF whose pages hold ``lines`` of text, raw content bytes, or nothing (None);
    ``title`` bytes are written as they are (a hex string: a UTF-16 title with its BOM)."""
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
    if isinstance(title, bytes):
        info = add(b"<< /Title <" + title.hex().encode("ascii") + b"> >>")
    elif title:
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
    each drawn page (a PIL image) into what a scanner would give (``scan_pdf`` adds noise)."""
    from PIL import Image

    from summarizer.library.reading.page_render import RenderedPages

    images = []
    with RenderedPages(source) as rendered:
        for number in pages:
            array, _ = rendered.render(number, dpi=dpi)
            image = Image.fromarray(array)
            images.append(scanner(image) if scanner is not None else image)
    images[0].save(out, save_all=True, append_images=images[1:], resolution=float(dpi))
    return out


def scan_pdf(source: Path, pages: list[int], dpi: int, noisy: bool, out: Path, seed: int = 7) -> Path:
    """A scan of ``pages`` of ``source`` at ``dpi`` in grayscale; ``noisy`` adds what a desk scanner
    does (a 0.7° skew, grain, specks), the same for the same ``seed``."""
    import numpy as np
    from PIL import Image

    rng = np.random.default_rng(seed)

    def scanner(image: Image.Image) -> Image.Image:
        image = image.convert("L")
        if not noisy:
            return image
        image = image.rotate(0.7, resample=Image.Resampling.BICUBIC, fillcolor=255, expand=False)
        pixels = np.asarray(image, dtype=np.float32) + rng.normal(0, 12, (image.height, image.width))
        specks = rng.random(pixels.shape)
        pixels[specks < 0.0015] = 0
        pixels[specks > 0.9985] = 255
        return Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8))

    return scanned_copy(source, pages, out, dpi, scanner)


STATEMENT_ROWS = [
    ("Cash and equivalents", "$ 4,466", "$ 4,249"),
    ("Short-term investments", "197", "996"),
    ("Accounts receivable, net", "4,272", "3,498"),
    ("Inventories", "5,622", "5,261"),
    ("Prepaid expenses and other current assets", "1,968", "1,130"),
    ("Total current assets", "16,525", "15,134"),
    ("Property, plant and equipment, net", "4,744", "4,454"),
    ("Goodwill", "154", "154"),
    ("TOTAL ASSETS", "$ 23,717", "$ 22,536"),
    ("Accounts payable", "2,612", "2,279"),
    ("Accrued liabilities", "5,010", "3,269"),
    ("Total current liabilities", "7,866", "6,040"),
]


def statement_stream(
    title: str, units: str, years: tuple[str, str], rows: list[tuple[str, str, str]], header: str = "", footer: str = ""
) -> bytes:
    """A financial statement page as filings draw one: each row's label at the left margin and
    its two figures right-aligned in their year's column, drawn label first, then the figures,
    each cell placed by its own transformation matrix, as typesetting tools write them (pypdf
    then breaks the line before a row's figures instead of after them)."""

    def text_at(x: float, y: float, text: str, size: int = 10) -> str:
        return f"q 1 0 0 1 {x:.1f} {y:.1f} cm BT /F1 {size} Tf 0 0 Td ({_escape(text)}) Tj ET Q"

    def right(x: float, text: str) -> float:
        return x - 5.0 * len(text)  # Helvetica 10 pt: ~5 pt a character

    ops = []
    if header:
        ops.append(text_at(72, 770, header, 8))
    ops.append(text_at(72, 740, title, 12))
    ops.append(text_at(72, 722, units))
    ops += [text_at(right(430, years[0]), 722, years[0]), text_at(right(520, years[1]), 722, years[1])]
    y = 700.0
    for label, first, second in rows:
        ops += [text_at(72, y, label), text_at(right(430, first), y, first), text_at(right(520, second), y, second)]
        y -= 16
    if footer:
        ops.append(text_at(72, 40, footer, 8))
    return "\n".join(ops).encode("latin-1")


def make_filing(path: Path) -> Path:
    """A small 10-K: the SEC cover, a page of Item 7 prose, the balance sheet (a table page) and a
    note, every page under the same running header and a page number."""
    header = "ACME CORPORATION ANNUAL REPORT"
    cover = [
        "UNITED STATES",
        "SECURITIES AND EXCHANGE COMMISSION",
        "Washington, D.C. 20549",
        "FORM 10-K",
        "ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934",
        "For the fiscal year ended May 31, 2019",
        "ACME CORPORATION",
    ]
    mdna = [
        "PART II",
        "Item 7. Management's Discussion and Analysis of Financial Condition and Results of Operations",
        "Liquidity and Capital Resources",
        "Cash provided by operations was $5.9 billion in fiscal 2019, compared to $4.9 billion in",
        "fiscal 2018. Our primary source of operating cash flow was net income. We believe that",
        "existing cash, short-term investments and cash generated by operations will be sufficient",
        "to meet our domestic and foreign capital needs in the foreseeable future.",
    ]
    note = [
        "Note 9 - Long-Term Debt",
        "Scheduled maturities of long-term debt in each of the years ending May 31, 2020 through",
        "2024 are $6 million, $0 million, $0 million, $1,000 million and $500 million. The senior",
        "unsecured notes pay interest semi-annually and may be redeemed at any time.",
    ]
    pages: list[list[str] | bytes | None] = [
        page_stream(cover, header=header, footer=("1",)),
        page_stream(mdna, header=header, footer=("2",)),
        statement_stream(
            "CONSOLIDATED BALANCE SHEETS", "(Dollars in millions)", ("2019", "2018"), STATEMENT_ROWS, header, "3"
        ),
        page_stream(note, header=header, footer=("4",)),
    ]
    return make_pdf(path, pages, title="Acme 10-K")

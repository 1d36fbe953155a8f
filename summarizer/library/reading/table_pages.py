"""Pages of figures (financial statements, schedules, price lists) read so that rows stay rows.

pypdf writes a table's text in drawing order and breaks its lines before the figures, so a
statement comes out as "Cash and equivalents\\n$ 4,466 $ 4,249 Short-term investments\\n197 996
Accounts receivable, net": each row's figures sit on the line of the next row's label, and no
search or model can tell which number belongs to which line item. PDFium (pypdfium2, already
used for OCR) places the text by position and keeps every row on one line: "Cash and
equivalents $ 4,466 $ 4,249". It is the text the viewer highlights in, so the passages' spans
still highlight exactly.

A page whose pypdf text is mostly figures (``looks_tabular``) is read again through PDFium; the
other pages keep pypdf's text. docs/retrieval.md has the comparison of extractors behind this.
"""

from __future__ import annotations

import re
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from summarizer.library.reading.document_kind import numbers_share
from summarizer.library.reading.pdf_extract import PageText, file_sha256, has_text
from summarizer.library.storage.store import Library, transaction

if TYPE_CHECKING:
    from summarizer.library.reading.page_render import RenderedPages

# Documents cut in an older passage format were read before table pages went through PDFium.
TABLE_PAGES_FORMAT = 3

TABLE_SHARE = 0.2  # a page whose tokens are at least this share of figures is a table page...
MIN_FIGURES = 12  # ... when at least this many of them are amounts
_AMOUNT = re.compile(r"\d,\d{3}|\d\.\d|^\(\d[\d,.]*\)$|^\$|%$|^\d{4}$")


def looks_tabular(text: str) -> bool:
    """True for a page whose text is mostly figures, and figures that are amounts ("4,466",
    "(92)", "$ 12.5", "2019"): a statement, a schedule, a price list. Not a table of contents,
    whose figures are small page and section numbers (the clause cutter reads those pages as
    pypdf gives them)."""
    tokens = text.split()
    share = numbers_share(text)
    return share >= TABLE_SHARE and sum(bool(_AMOUNT.search(t)) for t in tokens) >= MIN_FIGURES


class TablePages:
    """Replaces the text of table pages by PDFium's; opens the PDF on the first such page."""

    def __init__(self, path: Path, password: str | None = None) -> None:
        self.path = path
        self.password = password
        self._pages: RenderedPages | None = None
        self._failed = False
        self.replaced: list[int] = []

    def __enter__(self) -> TablePages:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        if self._pages is not None:
            self._pages.close()
        self._pages = None

    def read(self, page: PageText) -> PageText:
        """``page`` with PDFium's text when it is a table page PDFium reads, else as it was."""
        if page.error is not None or self._failed or not looks_tabular(page.text):
            return page
        from summarizer.errors import DocumentError
        from summarizer.library.reading.page_render import RenderedPages

        try:
            if self._pages is None:
                self._pages = RenderedPages(self.path, self.password)
            text = self._pages.text(page.number)
        except DocumentError:
            self._failed = True  # PDFium cannot open this file: pypdf's text it is
            return page
        except Exception:  # one page PDFium cannot read keeps pypdf's text
            return page
        if not has_text(text):
            return page
        self.replaced.append(page.number)
        return PageText(number=page.number, text=text)


def reread_table_pages(library: Library, doc_id: str, password: str | None = None) -> None:
    """A document read before table pages were read through PDFium (passage format < 3) gets
    its table pages read again, when its file is still there and unchanged; otherwise (or when
    PDFium cannot read them) its stored texts stay as they are. Pages read by OCR are left."""
    record = library.document(doc_id)
    path = Path(record.path)
    if record.passage_format >= TABLE_PAGES_FORMAT or not path.is_file():
        return
    rows = library.db.execute(
        "SELECT page, text FROM pages WHERE doc_id = ? AND error IS NULL AND page NOT IN "
        "(SELECT page FROM page_ocr WHERE doc_id = ? AND status = 'read') ORDER BY page",
        [doc_id, doc_id],
    ).fetchall()
    tabular = [PageText(int(n), str(t)) for n, t in rows if looks_tabular(str(t))]
    if not tabular or file_sha256(path) != record.content_sha256:
        return
    with TablePages(path, password) as tables:
        read = [tables.read(page) for page in tabular]
    with transaction(library.db):
        library.db.conn.executemany(
            "UPDATE pages SET text = ? WHERE doc_id = ? AND page = ?",
            [(page.text, doc_id, page.number) for page in read if page.number in tables.replaced],
        )

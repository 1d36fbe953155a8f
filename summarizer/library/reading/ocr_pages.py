"""The OCR step of adding a document: which pages are scans, and reading them.

Decided per page, after pypdf has read the text layer (``pages.text``):

- a page whose text is usable keeps it (unless ``--ocr always``);
- a page whose text is garbage (a font without a Unicode map: private-use characters, "(cid:12)",
  control characters) is drawn and read by OCR: its glyphs still draw;
- a page with little or no text is read by OCR only if it draws an image; a page holding only
  "Date:" and no image is not a scan.

Each page read is committed with its text in ``pages.text`` and its words in ``page_ocr`` in
one transaction, so a killed ingest resumes at the next page. Progress: "Recognizing pages",
page by page, with a rate (so an ETA); the cancel token is checked between pages.
"""

from __future__ import annotations

import json
import re
import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from inference.cancel import NEVER_CANCELLED, CancelToken
from inference.progress import Progress, ProgressCallback, Stage, no_progress
from summarizer.errors import DocumentError
from summarizer.library.reading.ocr_engine import OcrEngine, OcrPage, load_ocr_engine
from summarizer.library.reading.page_status import page_list
from summarizer.library.reading.pdf_extract import has_text
from summarizer.library.storage.store import Library, transaction

OCR_MODES = ("auto", "always", "never")
LOW_CONFIDENCE = 0.80  # a page read with a mean word confidence below this gets a warning
_CID = re.compile(r"\(cid:\d+\)")


def text_is_garbage(text: str) -> bool:
    """Text that a font without a Unicode map produces: mostly unmapped or unprintable characters."""
    visible = [ch for ch in text if not ch.isspace()]
    if not visible:
        return False
    cids = sum(len(m) for m in _CID.findall(text))
    odd = sum(1 for ch in visible if unicodedata.category(ch) in ("Co", "Cc", "Cs", "Cn") or ch == "\ufffd")
    return (odd + cids) > 0.3 * len(visible)


def usable_text(text: str) -> bool:
    """Text the passage cutter can use: enough letters or digits, and not garbage."""
    return has_text(text) and not text_is_garbage(text)


def page_kind(text: str, has_image: Callable[[], bool], mode: str) -> str:
    """``ocr`` (read it), ``text`` (keep its text) or ``no_image`` (little text, nothing to read)."""
    if mode == "never":
        return "text"
    if mode == "always":
        return "ocr" if not usable_text(text) or has_image() else "text"
    if usable_text(text):
        return "text"
    if text_is_garbage(text):
        return "ocr"
    return "ocr" if has_image() else "no_image"


@dataclass(frozen=True, slots=True)
class OcrOutcome:
    read: list[int]
    failed: dict[int, str]
    hard_to_read: dict[int, float]
    not_scans: set[int]
    empty: list[int]  # read, and no words found (an image of nothing)


def ocr_warnings(outcome: OcrOutcome) -> list[str]:
    """The notes a document's result and the library list carry about its OCR."""
    notes = []
    if outcome.read:
        count = len(outcome.read)
        notes.append(f"{count} page{'s' if count != 1 else ''} read by OCR: {page_list(outcome.read)}")
    for page in outcome.empty:
        notes.append(f"page {page}: OCR found no words on it")
    for page, confidence in sorted(outcome.hard_to_read.items()):
        notes.append(f"page {page} was hard to read (OCR confidence {confidence:.2f}): check its text")
    for page, error in sorted(outcome.failed.items()):
        notes.append(f"page {page} could not be read by OCR ({error})")
    return notes


def recognize_pages(
    library: Library,
    doc_id: str,
    path: Path,
    *,
    mode: str = "auto",
    password: str | None = None,
    engine: OcrEngine | None = None,
    threads: int = 2,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken = NEVER_CANCELLED,
    only_pages: set[int] | None = None,
) -> OcrOutcome:
    """Read by OCR the scanned pages of ``doc_id`` (the PDF at ``path``) that are not done yet."""
    from summarizer.library.reading.page_render import RenderedPages

    if mode not in OCR_MODES:
        raise ValueError(f"OCR mode must be one of {', '.join(OCR_MODES)}, not {mode!r}")
    db = library.db
    done = {int(r[0]) for r in db.execute("SELECT page FROM page_ocr WHERE doc_id = ?", [doc_id])}
    pages = [
        (int(r[0]), str(r[1]))
        for r in db.execute("SELECT page, text FROM pages WHERE doc_id = ? AND error IS NULL ORDER BY page", [doc_id])
        if int(r[0]) not in done and (only_pages is None or int(r[0]) in only_pages)
    ]
    if mode == "never" or not pages:
        return outcome(library, doc_id)
    opened: list[RenderedPages] = []

    def rendered() -> RenderedPages:
        """PDFium opens the file only when a page needs looking at: most documents have none."""
        if not opened:
            opened.append(RenderedPages(path, password))
        return opened[0]

    try:
        todo: list[int] = []
        for number, text in pages:
            kind = page_kind(text, lambda n=number: rendered().has_image(n), mode)  # type: ignore[misc]
            if kind == "no_image":
                _store(library, doc_id, number, "no_image", None, None)
            elif kind == "ocr":
                todo.append(number)
        started = time.monotonic()
        for count, number in enumerate(todo, start=1):
            cancel.raise_if_cancelled()
            elapsed = time.monotonic() - started
            rate = (count - 1) / elapsed if count > 1 and elapsed else None
            progress(Progress(Stage.RECOGNIZE_PAGES, count, len(todo), path.name, rate))
            if engine is None:
                engine = load_ocr_engine(threads)
            try:
                image, points_per_pixel = rendered().render(number)
                page = engine.recognize(image, points_per_pixel)
                del image
            except MemoryError:
                _store(library, doc_id, number, "failed", None, "not enough memory to draw the page")
                continue
            except Exception as error:  # a page PDFium cannot draw, or one the engine fails on
                _store(library, doc_id, number, "failed", None, f"{type(error).__name__}: {error}"[:200])
                continue
            _store(library, doc_id, number, "read", page, None, engine.name)
        if todo:
            progress(Progress(Stage.RECOGNIZE_PAGES, len(todo), len(todo), path.name, None))
    except DocumentError:
        pass  # PDFium cannot open a file pypdf read: its scans stay unread, listed as needing OCR
    finally:
        if opened:
            opened[0].close()
    return outcome(library, doc_id)


def _store(
    library: Library,
    doc_id: str,
    number: int,
    status: str,
    page: OcrPage | None,
    error: str | None,
    engine: str = "",
) -> None:
    with transaction(library.db):
        if page is not None:
            library.db.execute("UPDATE pages SET text = ? WHERE doc_id = ? AND page = ?", [page.text, doc_id, number])
        library.db.execute(
            "INSERT OR REPLACE INTO page_ocr (doc_id, page, status, engine, confidence, words, error) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                doc_id,
                number,
                status,
                engine,
                round(page.confidence, 4) if page is not None else None,
                json.dumps(page.to_json()) if page is not None else "[]",
                error,
            ],
        )


def outcome(library: Library, doc_id: str) -> OcrOutcome:
    rows = library.db.execute(
        "SELECT page, status, confidence, error, words FROM page_ocr WHERE doc_id = ? ORDER BY page", [doc_id]
    ).fetchall()
    read = [int(r[0]) for r in rows if r[1] == "read"]
    failed = {int(r[0]): str(r[3] or "") for r in rows if r[1] == "failed"}
    hard = {
        int(r[0]): float(r[2])
        for r in rows
        if r[1] == "read" and r[2] is not None and float(r[2]) < LOW_CONFIDENCE and r[4] != "[]"
    }
    not_scans = {int(r[0]) for r in rows if r[1] == "no_image"}
    empty = [int(r[0]) for r in rows if r[1] == "read" and r[4] == "[]"]
    return OcrOutcome(read, failed, hard, not_scans, empty)


def page_words(library: Library, doc_id: str, page: int) -> tuple[str, list[list[float]]] | None:
    """The OCR text and words of a page read by OCR, else None."""
    row = library.db.execute(
        "SELECT p.text, o.words FROM page_ocr o JOIN pages p ON p.doc_id = o.doc_id AND p.page = o.page "
        "WHERE o.doc_id = ? AND o.page = ? AND o.status = 'read'",
        [doc_id, page],
    ).fetchone()
    if row is None:
        return None
    return str(row[0]), json.loads(row[1])


def highlight_boxes(words: list[list[float]], start: int, end: int) -> list[tuple[float, float, float, float]]:
    """The boxes, one per line, of the OCR words overlapping characters ``start:end`` of the page."""
    boxes: list[list[float]] = []
    for word in words:
        if word[1] <= start or word[0] >= end:
            continue
        x0, y0, x1, y1 = word[2:6]
        last = boxes[-1] if boxes else None
        # The same line: it overlaps the last box vertically by more than half its height.
        if last is not None and min(last[3], y1) - max(last[1], y0) > 0.5 * (y1 - y0) and x0 >= last[0]:
            last[0], last[1], last[2], last[3] = min(last[0], x0), min(last[1], y0), max(last[2], x1), max(last[3], y1)
        else:
            boxes.append([x0, y0, x1, y1])
    return [(b[0], b[1], b[2], b[3]) for b in boxes]


Box = tuple[float, float, float, float]  # x0, y0, x1, y1 in points from the page's top left


def find_in_ocr_pages(library: Library, doc_id: str, text: str) -> list[tuple[int, list[Box]]]:
    """Where ``text`` occurs on the pages of ``doc_id`` read by OCR, in page order: ``(page,
    boxes of the matching words, one per line)`` for each occurrence. Case is ignored and any
    run of spaces or line breaks matches a space. The viewer's find uses it on scanned pages,
    which have no text layer for QtPdf to search."""
    words_of_text = text.split()
    if not words_of_text:
        return []
    pattern = re.compile(r"\s+".join(re.escape(word) for word in words_of_text), re.IGNORECASE)
    rows = library.db.execute(
        "SELECT o.page, p.text, o.words FROM page_ocr o JOIN pages p ON p.doc_id = o.doc_id AND p.page = o.page "
        "WHERE o.doc_id = ? AND o.status = 'read' ORDER BY o.page",
        [doc_id],
    ).fetchall()
    found = []
    for page, page_text, words in rows:
        boxes_of_words = json.loads(words)
        for match in pattern.finditer(str(page_text)):
            boxes = highlight_boxes(boxes_of_words, match.start(), match.end())
            if boxes:
                found.append((int(page), boxes))
    return found

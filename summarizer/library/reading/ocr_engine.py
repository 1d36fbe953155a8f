"""Reading the words of a scanned page: RapidOCR's bundled models on ONNX Runtime, offline.

The ``rapidocr==3.10.0`` wheel carries its default models in ``rapidocr/models/`` (PP-OCRv6 small
detection and recognition, the mobile orientation classifier); this module names those files
explicitly, so nothing is ever looked up or downloaded (another language or model size would
be). Why RapidOCR and not Tesseract: docs/ocr.md.

The result of a page is its text, laid out as pypdf lays out a text layer so that a scan is cut
into the same passages as its original (one line of text per printed line, the detector's boxes
on one line joined, a blank line only where the page has an empty line: ``assemble_page``), and
each word's character range in that text with its box in PDF points (origin at the page's top
left), which the viewer draws a citation's highlight from, and a confidence.
"""

from __future__ import annotations

import itertools
import re
import statistics
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

from inference.errors import PagewiseError

ENGINE_NAME = "rapidocr-3.10.0/PP-OCRv6-small"
MODEL_FILES = {
    "Det.model_path": "PP-OCRv6_det_small.onnx",
    "Rec.model_path": "PP-OCRv6_rec_small.onnx",
    "Cls.model_path": "ch_ppocr_mobile_v2.0_cls_mobile.onnx",
}
# Boxes that overlap vertically by this share of the shorter one's height are on one printed line.
SAME_ROW_OVERLAP = 0.5
# A printed line this many line pitches below the one before it has an empty line above it: a
# paragraph break, as pypdf gives an empty line of a text layer (the space a paragraph is set
# apart by, 1.3-1.5 pitches on the fixture contracts, is none).
EMPTY_LINE_PITCHES = 1.75
# Words this many line heights apart on one line are set apart by a tab, not a space.
WIDE_GAP_HEIGHTS = 1.5
TURN_OVER_BELOW = 0.85  # a page read with less confidence is read again turned over (upside-down scans)


class OcrUnavailable(PagewiseError):
    """The OCR engine or its models cannot be loaded."""


@dataclass(frozen=True, slots=True)
class OcrWord:
    start: int  # character range in OcrPage.text
    end: int
    box: tuple[float, float, float, float]  # x0, y0, x1, y1 in PDF points from the top left
    confidence: float


@dataclass(frozen=True, slots=True)
class OcrPage:
    text: str
    words: tuple[OcrWord, ...]
    confidence: float  # mean of the words' confidences weighted by their length; 0 for no words

    def to_json(self) -> list[list[float | int]]:
        return [[w.start, w.end, *(round(v, 2) for v in w.box), round(w.confidence, 4)] for w in self.words]


class OcrEngine(Protocol):
    name: str

    def recognize(self, image: Any, points_per_pixel: float) -> OcrPage:
        """The words of ``image`` (an RGB array), with boxes scaled by ``points_per_pixel``."""
        ...


RawWord = tuple[str, float, tuple[float, float, float, float]]  # text, confidence, box in pixels


@dataclass(frozen=True, slots=True)
class _Row:
    """The words of one printed line: the boxes RapidOCR found on it, left to right."""

    words: list[RawWord]
    top: float
    bottom: float


def _printed_rows(lines: Sequence[Sequence[RawWord]]) -> list[_Row]:
    """The page's printed lines, top to bottom: the detector's boxes that share a line joined.

    RapidOCR gives a box per run of text, so a line whose clause number stands apart from its
    words ("4." ... "Order and Priority of Interpretation.") comes as two boxes, sometimes
    listed apart. pypdf gives such a line as one line of text, and the clause finder
    (``summarizer.library.cutting.clauses``) needs the number and its words on one line.
    """
    boxes = []
    for line in lines:
        words = [w for w in line if w[0].strip()]
        if words:
            top, bottom = min(w[2][1] for w in words), max(w[2][3] for w in words)
            boxes.append((top, bottom, min(w[2][0] for w in words), words))
    boxes.sort(key=lambda b: (b[0] + b[1]) / 2)
    rows: list[list[tuple[float, float, float, list[RawWord]]]] = []
    for box in boxes:
        if rows:
            row = rows[-1]
            top, bottom = max(b[0] for b in row), min(b[1] for b in row)
            height = min(box[1] - box[0], *(b[1] - b[0] for b in row))
            if min(bottom, box[1]) - max(top, box[0]) >= SAME_ROW_OVERLAP * max(height, 1.0):
                row.append(box)
                continue
        rows.append([box])
    return [
        _Row([w for b in sorted(row, key=lambda b: b[2]) for w in b[3]], min(b[0] for b in row), max(b[1] for b in row))
        for row in rows
    ]


# A clause number read without the space after it ("4.Order", "(a)The"): the clause finder
# needs the space that the printed page has.
_GLUED_MARKER = re.compile(r"(?:\d{1,3}[A-Z]?(?:\.\d{1,3})*[.)]|\((?:[a-z]{1,2}|[ivx]{1,5}|\d{1,2})\))(?=[A-Z“\"(])")


def _unglued(words: list[RawWord]) -> list[RawWord]:
    """The row's words with a clause number at its start split from the word it was read into."""
    text, confidence, box = words[0]
    match = _GLUED_MARKER.match(text.strip())
    if match is None:
        return words
    text = text.strip()
    cut = box[0] + (box[2] - box[0]) * match.end() / len(text)
    return [
        (text[: match.end()], confidence, (box[0], box[1], cut, box[3])),
        (text[match.end() :], confidence, (cut, box[1], box[2], box[3])),
        *words[1:],
    ]


def _line_pitch(rows: list[_Row]) -> float:
    """The distance from one printed line's top to the next one's where no empty line is between."""
    height = statistics.median(r.bottom - r.top for r in rows)
    steps = [b.top - a.top for a, b in itertools.pairwise(rows)]
    next_lines = [s for s in steps if 0.5 * height <= s <= 1.6 * height]
    return statistics.median(next_lines) if next_lines else 1.2 * height


# Letters whose capital OCR cannot tell from the small one at a line's start ("c." read "C.").
_LOOK_ALIKE_CAPITALS = frozenset("COSUVWXZ")
_LIST_MARKER = re.compile(r"(\(?)([a-z]{1,4})([.)])$")
_ROMANS = ("i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x", "xi", "xii")


def _follows(marker: str, previous: str) -> bool:
    """True when list marker ``marker`` comes next after ``previous`` ("c" after "b", "v" after "iv")."""
    if len(previous) == 1 and previous.isalpha() and ord(marker) == ord(previous) + 1:
        return True
    return previous in _ROMANS[:-1] and _ROMANS[_ROMANS.index(previous) + 1] == marker


def _small_list_markers(rows: list[list[RawWord]]) -> list[list[RawWord]]:
    """Rows whose list marker was read as a capital ("C." after "b.", "V." after "iv.") with it
    small again: the clause finder takes "c." for a sub-clause and "C." for a name's initial."""
    previous: tuple[str, str, str] | None = None  # the last marker: opening bracket, letters, closing mark
    out = []
    for words in rows:
        first = words[0][0].strip()
        match = _LIST_MARKER.match(first.lower())
        if match is not None and first[1 if match.group(1) else 0].isupper():
            letter = match.group(2)
            if not (
                len(letter) == 1
                and letter.upper() in _LOOK_ALIKE_CAPITALS
                and previous is not None
                and (previous[0], previous[2]) == (match.group(1), match.group(3))
                and _follows(letter, previous[1])
            ):
                match = None
            else:
                words = [(first.lower(), words[0][1], words[0][2]), *words[1:]]
        if match is not None:
            previous = (match.group(1), match.group(2), match.group(3))
        out.append(words)
    return out


def assemble_page(lines: Sequence[Sequence[RawWord]], points_per_pixel: float) -> OcrPage:
    """A page from recognized lines of words with pixel boxes, laid out as pypdf lays out a text
    layer: one line of text per printed line, in reading order, and a blank line (a paragraph
    break) only where the page has an empty line. ``normalize`` then joins a paragraph's lines
    and clauses start where a line starts with a number or a heading, as on any page; a blank
    line where the text layer has none would cut the scan's passages elsewhere."""
    parts: list[str] = []
    words: list[OcrWord] = []
    length = 0
    weighted = 0.0
    rows = _printed_rows(lines)
    pitch = _line_pitch(rows) if rows else 0.0
    row_words = _small_list_markers([_unglued(row.words) for row in rows])
    for n, (row, line_words) in enumerate(zip(rows, row_words, strict=True)):
        if n:
            separator = "\n\n" if row.top - rows[n - 1].top >= EMPTY_LINE_PITCHES * pitch else "\n"
            parts.append(separator)
            length += len(separator)
        height = row.bottom - row.top
        for i, (text, confidence, box) in enumerate(line_words):
            if i:
                # A wide gap (a tab, a table of contents' page number) as pypdf gives it: a run
                # of spaces, which the clause finder reads a table of contents' line by.
                space = "   " if box[0] - line_words[i - 1][2][2] > WIDE_GAP_HEIGHTS * height else " "
                parts.append(space)
                length += len(space)
            text = text.strip()
            parts.append(text)
            scaled = tuple(v * points_per_pixel for v in box)
            words.append(OcrWord(length, length + len(text), scaled, float(confidence)))  # type: ignore[arg-type]
            weighted += float(confidence) * len(text)
            length += len(text)
    chars = sum(w.end - w.start for w in words)
    return OcrPage("".join(parts), tuple(words), weighted / chars if chars else 0.0)


def turned_over(page: OcrPage, width: float, height: float) -> OcrPage:
    """``page`` read from the page turned upside down, its word boxes on the page as drawn."""
    words = tuple(
        OcrWord(
            w.start, w.end, (width - w.box[2], height - w.box[3], width - w.box[0], height - w.box[1]), w.confidence
        )
        for w in page.words
    )
    return OcrPage(page.text, words, page.confidence)


def _box(points: Any) -> tuple[float, float, float, float]:
    xs = [float(p[0]) for p in points]
    ys = [float(p[1]) for p in points]
    return (min(xs), min(ys), max(xs), max(ys))


class RapidOcrEngine:
    """RapidOCR with its bundled default models, on ``threads`` CPU threads."""

    name = ENGINE_NAME

    def __init__(self, threads: int, overrides: dict[str, Any] | None = None) -> None:
        """``overrides``: RapidOCR parameters on top of Pagewise's (scripts/bench_ocr.py --param)."""
        try:
            import rapidocr
            from rapidocr import RapidOCR
        except ImportError as error:
            raise OcrUnavailable(
                f"OCR is not installed ({error}). Run the README's setup command again (make demo) to install it."
            ) from None
        folder = Path(rapidocr.__file__).parent / "models"
        params: dict[str, Any] = {
            "Global.log_level": "error",
            # No per-line orientation classifier: on upright pages it turned whole lines over and
            # read them as scattered letters (docs/ocr.md); a page drawn upside down is turned
            # over as a whole instead (recognize).
            "Global.use_cls": False,
            "EngineConfig.onnxruntime.intra_op_num_threads": threads,
            "EngineConfig.onnxruntime.inter_op_num_threads": 1,
        }
        for key, file in MODEL_FILES.items():
            path = folder / file
            if not path.is_file() or path.stat().st_size < 100_000:
                raise OcrUnavailable(
                    f"The OCR model {path} is missing or damaged. Reinstall Pagewise's dependencies "
                    "(pip install --force-reinstall rapidocr==3.10.0)."
                )
            params[key] = str(path)
        params.update(overrides or {})
        try:
            self._engine = RapidOCR(params=params)
        except Exception as error:  # onnxruntime raises its own types for a bad model file
            raise OcrUnavailable(f"The OCR engine could not start: {error}") from None
        self._lock = threading.Lock()  # one page at a time: the sessions use every thread given

    def recognize(self, image: Any, points_per_pixel: float) -> OcrPage:
        with self._lock:
            page = assemble_page(self._lines(image), points_per_pixel)
            if page.words and page.confidence < TURN_OVER_BELOW:  # perhaps scanned upside down
                # Laid out as read (the turned image's lines top to bottom), then each box put
                # back onto the page as it is drawn.
                over = assemble_page(self._lines(image[::-1, ::-1].copy()), points_per_pixel)
                if over.confidence > page.confidence:
                    height, width = image.shape[:2]
                    return turned_over(over, width * points_per_pixel, height * points_per_pixel)
        return page

    def _lines(self, image: Any) -> list[list[RawWord]]:
        out: Any = self._engine(image, return_word_box=True)
        if not out.txts:
            return []
        lines: list[list[RawWord]] = []
        for line_words, text, score, box in zip(out.word_results, out.txts, out.scores, out.boxes, strict=False):
            words = [(w[0], float(w[1]), _box(w[2])) for w in line_words if w[2] is not None]
            if not words:  # no word boxes for this line: the line as one word
                words = [(str(text), float(score), _box(box))]
            lines.append(words)
        return lines


@lru_cache(maxsize=1)
def load_ocr_engine(threads: int) -> OcrEngine:
    return RapidOcrEngine(threads)

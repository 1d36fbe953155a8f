"""Reading the words of a scanned page: RapidOCR's bundled models on ONNX Runtime, offline.

The ``rapidocr==3.10.0`` wheel carries its default models in ``rapidocr/models/`` (PP-OCRv6 small
detection and recognition, the mobile orientation classifier); this module names those files
explicitly, so nothing is ever looked up or downloaded (another language or model size would
be). Why RapidOCR and not Tesseract: docs/ocr.md.

The result of a page is its text, as the passage cutter reads any page (lines joined by line
breaks, a blank line where the vertical gap says a paragraph ends), and each word's character
range in that text with its box in PDF points (origin at the page's top left), which the
viewer draws a citation's highlight from, and a confidence.
"""

from __future__ import annotations

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
PARAGRAPH_GAP = 1.2  # a vertical gap this many line heights ends a paragraph
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


def assemble_page(lines: Sequence[Sequence[RawWord]], points_per_pixel: float) -> OcrPage:
    """A page from recognized lines (in reading order) of words with pixel boxes."""
    parts: list[str] = []
    words: list[OcrWord] = []
    length = 0
    weighted = 0.0
    previous: tuple[float, float] | None = None  # the last line's bottom and height
    for line in lines:
        line = [w for w in line if w[0].strip()]
        if not line:
            continue
        top = min(w[2][1] for w in line)
        bottom = max(w[2][3] for w in line)
        if previous is not None:
            gap = top - previous[0]
            separator = "\n\n" if gap > PARAGRAPH_GAP * max(1.0, previous[1]) else "\n"
            parts.append(separator)
            length += len(separator)
        for i, (text, confidence, box) in enumerate(line):
            if i:
                parts.append(" ")
                length += 1
            text = text.strip()
            parts.append(text)
            scaled = tuple(v * points_per_pixel for v in box)
            words.append(OcrWord(length, length + len(text), scaled, float(confidence)))  # type: ignore[arg-type]
            weighted += float(confidence) * len(text)
            length += len(text)
        previous = (bottom, bottom - top)
    chars = sum(w.end - w.start for w in words)
    return OcrPage("".join(parts), tuple(words), weighted / chars if chars else 0.0)


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
                height, width = image.shape[:2]
                turned = [
                    [(t, c, (width - b[2], height - b[3], width - b[0], height - b[1])) for t, c, b in line]
                    for line in self._lines(image[::-1, ::-1].copy())
                ]
                over = assemble_page(turned, points_per_pixel)
                if over.confidence > page.confidence:
                    return over
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

"""Does a scanned copy give the same pages as its original? Issue 42, build step 3.

    .venv/bin/python -m lab.eval.scan_agreement [--pages 20] [--dpi 200 300] [--out FILE.json]

Each fixture contract (``../shared/fixtures/contracts``; its first ``--pages`` pages, the same
pages for the original and the scan) is drawn by PDFium at each ``--dpi`` in grayscale and saved
as an image-only PDF (no text layer: ``tests/pdf_factory.py: scan_pdf``). The original and its
scans are added to a temporary library exactly as ``pagewise ingest`` adds them (the scans read by
OCR, drawn again at 300 dpi), and the same questions are searched in each: the checklist
questions of ``lab/eval/questions.json`` and the plain two-word clause searches written for the
contract in ``lab/eval/scan_questions.json``.

Reported per dpi and per split (the four tuning contracts, and franchise-115p and supply-16p,
held apart as in docs/retrieval.md):

- ``same_first_page``: the share of questions whose first passage starts on the same page in the
  scan as in the original;
- ``same_top3_pages``: the share whose top-3 passages start on the same set of pages;
- ``original_first_in_scan_top3``: the share whose original first page is among the scan's top 3
  (docs/ocr.md's earlier figure).

OCR is slow (2-4 s a page on 2 cores): RapidOCR's lines for each drawn page are cached in
``--cache`` by the image's hash, so a second run (another cut of the same lines, another commit)
reads no page again. The lines are assembled into the page's text by the code under test
(``summarizer.library.reading.ocr_engine.assemble_page``), as the engine does.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from lab.results import write_json

ROOT = Path(__file__).resolve().parents[2]
CONTRACTS = ROOT.parent / "shared" / "fixtures" / "contracts"
QUESTIONS = ROOT / "lab" / "eval" / "questions.json"
SCAN_QUESTIONS = ROOT / "lab" / "eval" / "scan_questions.json"
TUNING = ("endorsement-8p", "license-17p", "distributor-17p", "collaboration-154p")
HELD_APART = ("franchise-115p", "supply-16p")
DEFAULT_CACHE = Path(tempfile.gettempdir()) / "pagewise-scan-ocr-lines"


class CachedLinesEngine:
    """RapidOCR's recognized lines, cached by the drawn image's hash; the page text is
    assembled from them by ``assemble_page`` of the code being measured, as
    ``RapidOcrEngine.recognize`` does (including its reading again turned over)."""

    def __init__(self, threads: int, cache: Path) -> None:
        from summarizer.library.reading.ocr_engine import ENGINE_NAME

        self.name = ENGINE_NAME
        self.threads = threads
        self.cache = cache
        self.cache.mkdir(parents=True, exist_ok=True)
        self._engine: Any = None
        self.read = self.cached = 0

    def _lines(self, image: Any) -> list[list[Any]]:
        digest = hashlib.sha256(repr(image.shape).encode() + image.tobytes()).hexdigest()
        path = self.cache / f"{digest}.json"
        if path.exists():
            self.cached += 1
            return [[(t, c, tuple(b)) for t, c, b in line] for line in json.loads(path.read_text())]
        if self._engine is None:
            from summarizer.library.reading.ocr_engine import RapidOcrEngine

            self._engine = RapidOcrEngine(self.threads)
        lines: list[list[Any]] = self._engine._lines(image)
        self.read += 1
        path.write_text(json.dumps([[[t, c, list(b)] for t, c, b in line] for line in lines]))
        return lines

    def recognize(self, image: Any, points_per_pixel: float) -> Any:
        from summarizer.library.reading.ocr_engine import TURN_OVER_BELOW, assemble_page

        page = assemble_page(self._lines(image), points_per_pixel)
        if page.words and page.confidence < TURN_OVER_BELOW:
            # The boxes do not matter here: only the text is measured.
            over = assemble_page(self._lines(image[::-1, ::-1].copy()), points_per_pixel)
            if over.confidence > page.confidence:
                return over
        return page


def first_pages(source: Path, count: int, out: Path) -> Path:
    """The first ``count`` pages of ``source`` as a PDF of their own (text layer kept)."""
    from pypdf import PdfReader, PdfWriter

    reader = PdfReader(str(source))
    if count >= len(reader.pages):
        return source
    writer = PdfWriter()
    for page in reader.pages[:count]:
        writer.add_page(page)
    with out.open("wb") as handle:
        writer.write(handle)
    return out


def questions_for(contract: str) -> list[str]:
    checklist = [q for phrasings in json.loads(QUESTIONS.read_text()).values() for q in phrasings]
    plain = json.loads(SCAN_QUESTIONS.read_text())[contract]
    return [*plain, *checklist]


def compare(
    contract: str, pages: int, dpis: list[int], engine: CachedLinesEngine, fixtures: Path = CONTRACTS
) -> Iterator[dict[str, Any]]:
    from summarizer.library.ingest import IngestOptions, ingest_path
    from summarizer.library.reading import ocr_pages
    from summarizer.library.storage.store import Library
    from summarizer.search.retrieval import search
    from tests.pdf_factory import scan_pdf

    ocr_pages.load_ocr_engine = lambda threads: engine  # type: ignore[attr-defined,assignment]  # the cached lines
    questions = questions_for(contract)
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["PAGEWISE_HOME"] = tmp
        original_pdf = first_pages(fixtures / f"{contract}.pdf", pages, Path(tmp) / "original.pdf")
        with Library.open() as library:
            original = ingest_path(library, original_pdf).doc_id
            count = library.document(original).pages
            expected = [[r.page_start for r in search(library, q, doc_ids=[original], k=3)] for q in questions]
            for dpi in dpis:
                scan = scan_pdf(original_pdf, list(range(1, count + 1)), dpi, False, Path(tmp) / f"scan-{dpi}.pdf")
                started = time.perf_counter()
                read_before = engine.read
                result = ingest_path(library, scan, IngestOptions(ocr_threads=engine.threads))
                seconds = time.perf_counter() - started
                rows = []
                for question, want in zip(questions, expected, strict=True):
                    got = [r.page_start for r in search(library, question, doc_ids=[result.doc_id], k=3)]
                    if want:
                        rows.append((question, want, got))
                yield {
                    "contract": contract,
                    "split": "held apart" if contract in HELD_APART else "tuning",
                    "pages": count,
                    "dpi": dpi,
                    "questions": len(rows),
                    "same_first_page": sum(bool(g) and g[0] == w[0] for _, w, g in rows),
                    "same_top3_pages": sum(set(g) == set(w) for _, w, g in rows),
                    "original_first_in_scan_top3": sum(w[0] in g for _, w, g in rows),
                    "pages_read_by_ocr": engine.read - read_before,
                    "ingest_s": round(seconds, 1),
                    "status": result.status,
                    "differing": [
                        {"question": q, "original": w, "scan": g} for q, w, g in rows if not g or g[0] != w[0]
                    ],
                }


def summary(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Shares per dpi and split, over the questions of all the split's contracts."""
    out = []
    for dpi in sorted({r["dpi"] for r in rows}):
        for split in ("tuning", "held apart"):
            group = [r for r in rows if r["dpi"] == dpi and r["split"] == split]
            total = sum(r["questions"] for r in group)
            if not total:
                continue
            out.append(
                {
                    "dpi": dpi,
                    "split": split,
                    "contracts": [r["contract"] for r in group],
                    "questions": total,
                    **{
                        key: round(sum(r[key] for r in group) / total, 3)
                        for key in ("same_first_page", "same_top3_pages", "original_first_in_scan_top3")
                    },
                }
            )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--contracts", nargs="+", default=[*TUNING, *HELD_APART])
    parser.add_argument("--pages", type=int, default=20, help="the first N pages of each contract (default 20)")
    parser.add_argument("--dpi", type=int, nargs="+", default=[200, 300], help="scan resolutions")
    parser.add_argument("--threads", type=int, default=2, help="ONNX Runtime threads for OCR")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="OCR lines cache (default %(default)s)")
    parser.add_argument("--fixtures", type=Path, default=CONTRACTS, help="the contracts' folder (%(default)s)")
    parser.add_argument("--out", type=Path, help="write the rows and the summary here as JSON")
    args = parser.parse_args()
    engine = CachedLinesEngine(args.threads, args.cache)
    rows = []
    for contract in args.contracts:
        for row in compare(contract, args.pages, args.dpi, engine, args.fixtures):
            rows.append(row)
            brief = {k: v for k, v in row.items() if k != "differing"}
            print(json.dumps(brief), file=sys.stderr, flush=True)
    result = {"pages_per_contract": args.pages, "summary": summary(rows), "contracts": rows}
    print(json.dumps(result["summary"], indent=2))
    if args.out:
        write_json(args.out, result, indent=2)


if __name__ == "__main__":
    main()

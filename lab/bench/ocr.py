"""OCR quality and speed on scans made from the fixture contracts (issue 27's figures).

    .venv/bin/python -m lab.bench.ocr [--pages 6] [--threads 2] [--out docs/data/ocr/ocr-bench.json]
    .venv/bin/python -m lab.bench.ocr --retrieval supply-16p   # the scanned copy's search against the original
    .venv/bin/python -m lab.bench.ocr --contracts license-17p --settings 300 300n --param Det.thresh=0.2
        # RapidOCR settings over Pagewise's (--param, repeatable) or pages drawn smaller (--max-side 2000)

Scans: the fixture contracts' pages drawn by PDFium at 150 and 300 dpi, as they are or with scanner
noise (Gaussian, sigma 12 of 255, and 0.3% salt-and-pepper specks) and a slight rotation (0.7
degrees), saved as image-only PDFs (Pillow), then read exactly as ``pagewise ingest`` reads them:
each page drawn again at 300 dpi and given to RapidOCR with its bundled models.

Character error rate: the Levenshtein distance between the OCR text and the original text layer
(pypdf's, as ingest stores it), both normalized by ``summarizer/library/cutting/normalize.py`` (ligatures,
hyphens at line ends, whitespace) and NFKC, lower case kept, over the original's length. Pages
per second on the given threads; peak memory is the process's maximum resident set size.
"""

from __future__ import annotations

import argparse
import json
import resource
import tempfile
import time
import unicodedata
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lab.results import write_json
from summarizer.library.reading.page_render import MAX_SIDE_PX  # (no heavy imports at its top)
from tests.pdf_factory import scan_pdf

ROOT = Path(__file__).resolve().parents[2]

CONTRACTS = ROOT / "tests" / "fixtures" / "contracts"
SETTINGS = ((300, False), (300, True), (150, False), (150, True))


def normalized(text: str) -> str:
    from summarizer.library.cutting.normalize import normalize

    return " ".join(unicodedata.normalize("NFKC", normalize(text).text).split())


def engine_for(threads: int, overrides: dict[str, Any]) -> Any:
    from summarizer.library.reading.ocr_engine import RapidOcrEngine, load_ocr_engine

    return RapidOcrEngine(threads, overrides) if overrides else load_ocr_engine(threads)


def parsed_param(text: str) -> tuple[str, Any]:
    """``Det.box_thresh=0.4`` -> ("Det.box_thresh", 0.4): numbers and booleans as such."""
    key, _, value = text.partition("=")
    for kind in (int, float):
        try:
            return key, kind(value)
        except ValueError:
            pass
    return key, {"true": True, "false": False}.get(value.lower(), value)


def measure(
    contract: str,
    pages: list[int],
    threads: int,
    overrides: dict[str, Any],
    max_side: int,
    settings: Sequence[tuple[int, bool]] = SETTINGS,
) -> list[dict[str, Any]]:
    from rapidfuzz.distance import Levenshtein

    from summarizer.library.reading.page_render import RenderedPages
    from summarizer.library.reading.pdf_extract import PdfPages

    source = CONTRACTS / f"{contract}.pdf"
    originals = {p.number: p.text for p in PdfPages(source).pages() if p.number in pages}
    engine = engine_for(threads, overrides)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for dpi, noisy in settings:
            scan = scan_pdf(source, pages, dpi, noisy, Path(tmp) / f"{dpi}-{noisy}.pdf")
            errors = chars = 0
            confidences = []
            started = time.perf_counter()
            with RenderedPages(scan) as rendered:
                for i, number in enumerate(pages, start=1):
                    image, points_per_pixel = rendered.render(i, max_side=max_side)
                    page = engine.recognize(image, points_per_pixel)
                    truth = normalized(originals[number])
                    errors += Levenshtein.distance(normalized(page.text), truth)
                    chars += len(truth)
                    confidences.append(page.confidence)
            seconds = time.perf_counter() - started
            rows.append(
                {
                    "contract": contract,
                    "pages": len(pages),
                    "dpi": dpi,
                    "noisy": noisy,
                    "cer": round(errors / max(1, chars), 4),
                    "pages_per_s": round(len(pages) / seconds, 3),
                    "mean_confidence": round(sum(confidences) / len(confidences), 4),
                    "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
                }
            )
            print(json.dumps(rows[-1]), flush=True)
    return rows


def retrieval(contract: str, dpi: int, threads: int) -> dict[str, Any]:
    """The eval questions of ``contract`` on the original and on a scanned copy: the share whose
    top-3 passages are on the same pages."""
    import os

    from summarizer.library.ingest import IngestOptions, ingest_path
    from summarizer.library.reading.pdf_extract import PdfPages
    from summarizer.library.storage.store import Library
    from summarizer.search.retrieval import search

    questions = json.loads((ROOT / "lab" / "eval" / "questions.json").read_text())
    source = CONTRACTS / f"{contract}.pdf"
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["PAGEWISE_HOME"] = tmp
        pages = list(range(1, PdfPages(source).page_count + 1))
        scan = scan_pdf(source, pages, dpi, False, Path(tmp) / "scan.pdf")
        with Library.open() as library:
            original = ingest_path(library, source).doc_id
            started = time.perf_counter()
            scanned_result = ingest_path(library, scan, IngestOptions(ocr_threads=threads))
            ingest_s = time.perf_counter() - started
            same = top1 = 0
            shared = 0.0
            total = 0
            for phrasings in questions.values():
                for question in phrasings:
                    a = [r.page_start for r in search(library, question, doc_ids=[original], k=3)]
                    b = {r.page_start for r in search(library, question, doc_ids=[scanned_result.doc_id], k=3)}
                    if not a:
                        continue
                    total += 1
                    same += set(a) == b
                    top1 += a[0] in b
                    shared += sum(page in b for page in a) / len(a)
    return {
        "contract": contract,
        "scan_dpi": dpi,
        "questions": total,
        # the same set of first pages in both top 3s
        "same_page_set_top3": round(same / total, 3),
        # the original's first passage starts on a page among the scan's top 3
        "original_top1_page_in_scan_top3": round(top1 / total, 3),
        # the share of the original's top-3 passages whose first page is among the scan's top 3
        "original_top3_pages_in_scan_top3": round(shared / total, 3),
        "scanned_ingest_s": round(ingest_s, 1),
        "scanned_status": scanned_result.status,
        "scanned_warnings": scanned_result.warnings,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--contracts", nargs="+", default=["supply-16p", "license-17p"])
    parser.add_argument("--pages", type=int, default=4, help="pages per contract (from page 2)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--retrieval", help="only the retrieval comparison, on this fixture contract")
    parser.add_argument("--dpi", type=int, default=300, help="the scanned copy's resolution for --retrieval")
    parser.add_argument(
        "--param", action="append", default=[], help="a RapidOCR parameter over Pagewise's, e.g. Det.box_thresh=0.4"
    )
    parser.add_argument(
        "--settings", nargs="+", default=[f"{d}{'n' if n else ''}" for d, n in SETTINGS], help="e.g. 300 300n 150n"
    )
    parser.add_argument(
        "--max-side",
        type=int,
        default=MAX_SIDE_PX,
        help="draw pages at most this many pixels a side (ingest's: %(default)s)",
    )
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    overrides = dict(parsed_param(p) for p in args.param)
    settings = [(int(s.rstrip("n")), s.endswith("n")) for s in args.settings]
    if args.retrieval:
        result: Any = retrieval(args.retrieval, args.dpi, args.threads)
    else:
        pages = list(range(2, 2 + args.pages))
        result = [
            row for c in args.contracts for row in measure(c, pages, args.threads, overrides, args.max_side, settings)
        ]
    print(json.dumps(result, indent=2))
    if args.out:
        write_json(args.out, result, indent=2)


if __name__ == "__main__":
    main()

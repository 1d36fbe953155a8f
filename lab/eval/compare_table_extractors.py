"""Which text extractor keeps a statement's rows together: pypdf, pypdf's layout mode, PDFium
(pypdfium2) and pdfplumber, on the table pages of the FinanceBench tuning filings.

    .venv/bin/python -m lab.eval.compare_table_extractors [--data ../shared/data/financebench-dev] [--out FILE.json]

pdfplumber (MIT) is not a Pagewise dependency: put it on the path to include it
(``pip install --target /tmp/plumber pdfplumber`` and ``PYTHONPATH=/tmp/plumber``).

Pages: those of the twelve tuning filings (``score_financebench.HELD_APART`` left out) whose
pypdf text ``summarizer.library.reading.table_pages.looks_tabular`` calls a table. Per extractor:
- ``rows_whole``: of the lines holding a figure, the share that also hold a label (a word of three
  or more letters) before their first figure: "Inventories 5,622 5,261" is whole, pypdf's "5,622
  5,261 Prepaid expenses and" (figures before the next row's label) is not;
- ``chars_per_page``: characters of text per page (layout mode pads columns with spaces: a passage
  is held to 2,000 characters);
- ``ms_per_page``: extraction time per page, one process, the pages in turn.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lab.eval.score_financebench import HELD_APART
from lab.results import write_json
from summarizer.library.reading.document_kind import FIGURE as _FIGURE

ROOT = Path(__file__).resolve().parents[2]

_LABEL = re.compile(r"[A-Za-z]{3,}")


def rows_whole(text: str) -> tuple[int, int]:
    """(lines with a figure and a label before it, lines with a figure)."""
    whole = total = 0
    for line in text.split("\n"):
        figure = _FIGURE.search(line)
        if figure is None:
            continue
        total += 1
        whole += bool(_LABEL.search(line[: figure.start()]))
    return whole, total


def extractors(pdf: Path) -> dict[str, Callable[[int], str]]:
    import pypdf
    import pypdfium2 as pdfium

    reader = pypdf.PdfReader(str(pdf))
    document = pdfium.PdfDocument(str(pdf))

    def pdfium_text(index: int) -> str:
        page = document[index]
        textpage = page.get_textpage()
        text: str = textpage.get_text_range().replace("\r\n", "\n")
        textpage.close()
        page.close()
        return text

    found: dict[str, Callable[[int], str]] = {
        "pypdf": lambda i: reader.pages[i].extract_text() or "",
        "pypdf_layout": lambda i: reader.pages[i].extract_text(extraction_mode="layout") or "",
        "pdfium": pdfium_text,
    }
    try:
        import pdfplumber
    except ImportError:
        return found
    plumber = pdfplumber.open(str(pdf))
    found["pdfplumber"] = lambda i: plumber.pages[i].extract_text() or ""
    return found


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "financebench-dev")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    from summarizer.library.reading.table_pages import looks_tabular

    totals: dict[str, dict[str, float]] = {}
    pages = 0
    for pdf in sorted((args.data / "pdfs").glob("*.pdf")):
        if pdf.stem in HELD_APART:
            continue
        import pypdf

        ways = extractors(pdf)
        count = len(pypdf.PdfReader(str(pdf)).pages)
        tables = [i for i in range(count) if looks_tabular(ways["pypdf"](i))]
        pages += len(tables)
        for name, extract in ways.items():
            row = totals.setdefault(name, {"whole": 0, "lines": 0, "chars": 0, "seconds": 0.0, "pages": 0})
            for index in tables:
                started = time.perf_counter()
                text = extract(index)
                row["seconds"] += time.perf_counter() - started
                whole, lines = rows_whole(text)
                row["whole"] += whole
                row["lines"] += lines
                row["chars"] += len(text)
                row["pages"] += 1
        print(f"{pdf.stem}: {len(tables)} table pages", file=sys.stderr)
    report: dict[str, Any] = {
        "command": "python -m lab.eval.compare_table_extractors " + " ".join(sys.argv[1:]),
        "pages": pages,
    }
    for name, row in totals.items():
        report[name] = {
            "rows_whole": round(row["whole"] / row["lines"], 3) if row["lines"] else None,
            "chars_per_page": round(row["chars"] / row["pages"]),
            "ms_per_page": round(1000 * row["seconds"] / row["pages"], 1),
        }
    print(json.dumps(report, indent=1))
    if args.out:
        write_json(args.out, report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

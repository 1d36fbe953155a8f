"""A scanned contract in the real window: added (OCR in the ingest process), asked, a citation clicked.

    QT_QPA_PLATFORM=xcb xvfb-run -a -s "-screen 0 1600x1000x24" \
        .venv/bin/python -m scripts.screenshots ocr

The scan is pages 1-3 of the fixture supply agreement drawn at 150 dpi with scanner noise
(tests/pdf_factory.py's ``scan_pdf``, as lab/bench/ocr.py scans): an image-only PDF. The model is
the scripted fake engine (its answer cites the first passage's page); everything else is the real window and pipeline.
Saves ``scanned-citation.png``.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run(args: argparse.Namespace, home: Path) -> None:
    out_dir = args.out
    from tests.pdf_factory import scan_pdf

    scan = scan_pdf(ROOT / "tests/fixtures/contracts/supply-16p.pdf", [1, 2, 3], 150, True, home / "scanned-supply.pdf")

    from app.widgets.qt_wait import wait_until
    from scripts.scripted_window import ask_and_open_citation, scripted_window

    # A context of 2,048: the scan does not fit whole and is answered from its passages.
    app, w, engine = scripted_window(home, context_size=2048)
    w.add_paths([scan])
    wait_until(lambda: w.doc_id is not None and not w.runner.ingests, 300)
    record = w.library.document(str(w.doc_id))
    print("ingested:", record.status, record.passages, "passages;", record.warnings, flush=True)

    def reply(prompt: str) -> str:
        found = re.search(r"Passage 1 \(pp?\. (\d+)", prompt)
        page = int(found.group(1)) if found else 1
        return f"The Supplier must deliver the Products by the delivery date in each purchase order [p. {page}]."

    ask_and_open_citation(w, engine, "When must the supplier deliver the products?", reply)
    wait_until(lambda: False, 1.0)
    print("highlights:", [(h.page + 1, len(h.rects)) for h in w.viewer.view.highlights], flush=True)
    w.grab().save(str(out_dir / "scanned-citation.png"))
    print("saved", out_dir / "scanned-citation.png")
    w.close()
    app.quit()

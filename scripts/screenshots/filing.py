"""A 10-K in the real window: added, kind shown in the library, a question about its balance sheet
answered, the citation clicked and highlighted on the statement page.

    QT_QPA_PLATFORM=xcb xvfb-run -a -s "-screen 0 1600x1000x24" \\
        .venv/bin/python -m scripts.screenshots filing [--pdf FILE.pdf]

The default PDF is NIKE_2019_10K from the FinanceBench development set (a public SEC filing,
one of the tuning filings). The model is the scripted fake engine (its answer cites the first
passage's page); everything else is the real window and pipeline. Saves ``filing-citation.png``.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_PDF = ROOT.parent / "shared" / "data" / "financebench-dev" / "pdfs" / "NIKE_2019_10K.pdf"
QUESTION = "According to the balance sheet, what were total current assets at the end of FY2019?"


def add_arguments(group: argparse._ArgumentGroup) -> None:
    group.add_argument("--pdf", type=Path, default=DEFAULT_PDF, help="the filing (default: Nike's 10-K for 2019)")


def run(args: argparse.Namespace, home: Path) -> None:
    out_dir = args.out

    from app.widgets.qt_wait import wait_until
    from scripts.scripted_window import ask_and_open_citation, scripted_window

    app, w, engine = scripted_window(home, context_size=4096)
    w.add_paths([args.pdf])
    wait_until(lambda: w.doc_id is not None and not w.runner.ingests, 600)
    record = w.library.document(str(w.doc_id))
    print("ingested:", record.status, record.kind, record.passages, "passages", flush=True)
    print("library row:", w.library_panel.state_of(str(w.doc_id)), flush=True)

    def reply(prompt: str) -> str:
        found = re.search(r"Passage 1 \(pp?\. (\d+)", prompt)
        page = int(found.group(1)) if found else 1
        return f"Total current assets were $16,525 million at May 31, 2019 [p. {page}]."

    turn = ask_and_open_citation(w, engine, QUESTION, reply)
    wait_until(lambda: False, 1.5)
    print("cited page:", turn.citations[0].page, flush=True)
    print("highlights:", [(h.page + 1, len(h.rects), h.exact) for h in w.viewer.view.highlights], flush=True)
    w.grab().save(str(out_dir / "filing-citation.png"))
    print("saved", out_dir / "filing-citation.png")
    w.close()
    app.quit()

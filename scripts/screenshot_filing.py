"""A 10-K in the real window: added, kind shown in the library, a question about its balance sheet
answered, the citation clicked and highlighted on the statement page.

    QT_QPA_PLATFORM=xcb xvfb-run -a -s "-screen 0 1600x1000x24" \\
        .venv/bin/python -m scripts.screenshot_filing docs/screenshots [--pdf FILE.pdf]

The default PDF is NIKE_2019_10K from the FinanceBench development set (a public SEC filing,
one of the tuning filings). The model is the scripted fake engine (its answer cites the first
passage's page); everything else is the real window and pipeline. Saves ``filing-citation.png``.
"""

from __future__ import annotations

import argparse
import os
import re
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_PDF = ROOT.parent / "shared" / "data" / "financebench-dev" / "pdfs" / "NIKE_2019_10K.pdf"
QUESTION = "According to the balance sheet, what were total current assets at the end of FY2019?"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("out_dir", type=Path, nargs="?", default=Path("docs/screenshots"))
    ap.add_argument("--pdf", type=Path, default=DEFAULT_PDF)
    args = ap.parse_args()
    args.out_dir.mkdir(parents=True, exist_ok=True)
    home = tempfile.mkdtemp(prefix="pagewise-filing-shot-")
    os.environ["PAGEWISE_HOME"] = home

    from PySide6.QtCore import QUrl

    from app.widgets.qt_wait import wait_until
    from scripts.scripted_window import scripted_window

    app, w, engine = scripted_window(Path(home), context_size=4096)
    w.add_paths([args.pdf])
    wait_until(lambda: w.doc_id is not None and not w.runner.ingests, 600)
    record = w.library.document(str(w.doc_id))
    print("ingested:", record.status, record.kind, record.passages, "passages", flush=True)
    print("library row:", w.library_panel.state_of(str(w.doc_id)), flush=True)

    def reply(prompt: str) -> str:
        found = re.search(r"Passage 1 \(pp?\. (\d+)", prompt)
        page = int(found.group(1)) if found else 1
        return f"Total current assets were $16,525 million at May 31, 2019 [p. {page}]."

    engine.queue(reply)
    job = w.ask(QUESTION)
    wait_until(lambda: job.done, 120)
    turn = w.conversation.turns[-1]
    w.conversation.browser.anchorClicked.emit(QUrl(f"cite:0/{turn.citations[0].number}"))
    wait_until(lambda: False, 1.5)
    print("cited page:", turn.citations[0].page, flush=True)
    print("highlights:", [(h.page + 1, len(h.rects), h.exact) for h in w.viewer.view.highlights], flush=True)
    w.grab().save(str(args.out_dir / "filing-citation.png"))
    print("saved", args.out_dir / "filing-citation.png")
    w.close()
    app.quit()


if __name__ == "__main__":
    main()

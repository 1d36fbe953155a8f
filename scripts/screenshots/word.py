"""A Word contract in the real window: added beside a PDF, its row (file type, tracked changes,
comments), a question answered from it and the citation clicked, which shows the clause with the
cited words highlighted: on the pages LibreOffice lays out when ``soffice`` is on the PATH, else in
the rich-text Word view.

    QT_QPA_PLATFORM=xcb xvfb-run -a -s "-screen 0 1600x1000x24" \\
        .venv/bin/python -m scripts.screenshots word [--docx FILE.docx]
    # the same without LibreOffice: a PATH without soffice
    PATH=/usr/local/sbin:/usr/sbin:/sbin QT_QPA_PLATFORM=xcb xvfb-run ... (as above)

The default .docx is the Common Paper Cloud Service Agreement of ../shared/data/docx-contracts
(CC BY 4.0). The model is the scripted fake engine (its answer cites the first passage's first
paragraph, as [¶ N]); everything else is the real window and pipeline. Saves
``word-citation-libreoffice.png`` (pages) or ``word-citation.png`` (text).
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_DOCX = ROOT.parent / "shared" / "data" / "docx-contracts" / "common-paper-cloud-service-agreement.docx"
QUESTION = "What is the cap on each party's liability?"


def add_arguments(group: argparse._ArgumentGroup) -> None:
    group.add_argument("--docx", type=Path, default=DEFAULT_DOCX, help="the Word contract")


def run(args: argparse.Namespace, home: Path) -> None:

    from app.widgets.qt_wait import wait_until
    from scripts.scripted_window import ask_and_open_citation, scripted_window

    app, w, engine = scripted_window(home, context_size=4096)
    w.add_paths([ROOT / "assets" / "sample-contract.pdf", args.docx])
    wait_until(lambda: len(w.library.documents()) == 2 and not w.runner.ingests, 600)
    for record in w.library.documents():
        print("library row:", record.title, "|", w.library_panel.state_of(record.doc_id), flush=True)
    word = next(r for r in w.library.documents() if r.file_type == "docx")
    w.select_document(word.doc_id)

    def reply(prompt: str) -> str:
        # a model cites the paragraph label the prompt gives the cap's words ("[¶ 95] (a) ... General
        # Cap Amount"), else the first passage's first paragraph
        found = re.search(r"\[¶ (\d+)\][^\[]*General Cap Amount", prompt) or re.search(
            r"Passage 1 \([^)]*?¶ (\d+)", prompt
        )
        paragraph = int(found.group(1)) if found else 1
        return f"Each party's liability is capped at the amounts set as the General Cap Amount [¶ {paragraph}]."

    ask_and_open_citation(w, engine, QUESTION, reply)
    from app.controllers.word_pages import LAYING_OUT

    wait_until(lambda: w.viewer.word.status.text() != LAYING_OUT, 300)  # LibreOffice, where it is installed
    wait_until(lambda: False, 1.5)
    from PySide6.QtCore import QPoint

    browser = w.viewer.word.browser
    top = browser.cursorForPosition(QPoint(5, 14)).block().text()[:40]
    print("top of the Word view:", top, "| scroll", browser.verticalScrollBar().value(), flush=True)
    print("viewer:", w.viewer.word.title.text(), "| words:", w.viewer.word.words[:80], flush=True)
    pages = w.viewer.path is not None
    print("shown as:", "LibreOffice's pages" if pages else "text", "|", w.viewer.word.status.text(), flush=True)
    if pages:
        print("highlights:", [(h.page + 1, len(h.rects)) for h in w.viewer.view.highlights], flush=True)
    name = "word-citation-libreoffice.png" if pages else "word-citation.png"
    w.grab().save(str(args.out / name))
    print("saved", args.out / name)
    w.close()
    app.quit()

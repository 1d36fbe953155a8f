"""Screenshots of a small data room (issue 46): the Review as a table of contracts, sorted and
filtered, and a question asked of every document with its answer grouped by contract.

The contracts are the first ``--contracts`` CUAD training texts (CC BY 4.0, ../shared/data/
cuad-train), each written as a plain PDF of its first ``--max-pages`` letter pages; the review is
evidence-only (no model) and the answer comes from the scripted fake model, which cites the
passage it was given from each contract. Run it under Xvfb:

    xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python -m scripts.screenshots data-room
"""

from __future__ import annotations

import argparse
import re
import tarfile
import textwrap
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
CUAD = ROOT.parent / "shared" / "data" / "cuad-train" / "cuad-train.tar.gz"
LINES_PER_PAGE, CHARS_PER_LINE = 48, 92
QUESTION = "Which contracts have a change of control clause?"
FILTER = "has Change of Control"
SORTED_BY = "renewal-term"  # a column in view beside the titles: the contracts that have one first


def contract_pages(text: str, max_pages: int) -> list[list[str]]:
    """The text in letter pages of ``LINES_PER_PAGE`` lines (Latin-1, as the plain PDF's font)."""
    lines: list[str] = []
    for paragraph in text.splitlines():
        flat = " ".join(paragraph.split()).encode("latin-1", "replace").decode("latin-1")
        lines += textwrap.wrap(flat, CHARS_PER_LINE) if flat else [""]
        if len(lines) >= LINES_PER_PAGE * max_pages:
            break
    pages = [lines[n : n + LINES_PER_PAGE] for n in range(0, len(lines), LINES_PER_PAGE)]
    return pages[:max_pages]


def write_data_room(folder: Path, archive: Path, count: int, max_pages: int) -> list[Path]:
    from tests.pdf_factory import make_pdf

    written = []
    with tarfile.open(archive) as tar:
        members = sorted((m for m in tar.getmembers() if m.name.endswith(".txt")), key=lambda m: m.name)
        for member in members[:count]:
            handle = tar.extractfile(member)
            assert handle is not None
            text = handle.read().decode("utf-8", "replace")
            name = re.sub(r"[^A-Za-z0-9]+", "-", Path(member.name).stem.split("-EX-")[0])[:40].strip("-")
            kind = re.sub(r"[^A-Za-z ]+", " ", Path(member.name).stem.rsplit("-", 1)[-1]).strip().title()[:30]
            path = folder / f"{name} {kind}.pdf"
            if path in written:  # two filings of one company on one day: keep both
                path = folder / f"{name} {kind} {len(written)}.pdf"
            written.append(make_pdf(path, contract_pages(text, max_pages)))  # type: ignore[arg-type]
    return written


def cite_each_contract(prompt: str) -> str:
    """The fake model's answer: each contract it was given, cited at its passage's page."""
    given = dict(re.findall(r"\(DOC_ID (\w+), pp?\. (\d+)", prompt))
    if not given:
        return "None of the passages given holds such a clause."
    cited = ", ".join(f"[{doc} p. {page}]" for doc, page in given.items())
    return f"The passages given that bear on the question are in these contracts: {cited}."


def add_arguments(group: argparse._ArgumentGroup) -> None:
    group.add_argument("--max-pages", type=int, default=10, help="the pages written of each contract")
    group.add_argument("--cuad", type=Path, default=CUAD, help="the CUAD training archive")
    group.add_argument("--question", default=QUESTION, help="the question asked of every document")
    group.add_argument("--no-review", action="store_true", help="only the question (no review, no review table)")


def run(args: argparse.Namespace, home: Path) -> None:
    out_dir = args.out
    from app.widgets.qt_wait import wait_until
    from scripts.scripted_window import scripted_window

    room = home / "data room"
    reuse = room.is_dir()
    room.mkdir(exist_ok=True)
    files = [] if reuse else write_data_room(room, args.cuad, args.contracts or 30, args.max_pages)
    app, window, engine = scripted_window(home, 16384)
    window.resize(1600, 1000)
    window.runner.embed = False
    if files:
        window.add_paths(files)
        wait_until(lambda: False, 2.0)  # the adds have started
        wait_until(lambda: not window.runner.ingests, 900)  # CUAD holds a few duplicates: those are skipped
    print("library of", len(window.library.documents()), "contracts", flush=True)

    if getattr(args, "no_review", False):
        library_question(app, window, engine, out_dir / "library-question.png", args.question)
        window.close()
        return
    window.tabs.setCurrentWidget(window.review)
    window.splitter.setSizes([170, 330, 1100])
    panel = window.review
    panel.check_all(True)
    panel.evidence_only.setChecked(True)
    job = window.reviews.review()
    assert job is not None
    wait_until(lambda: window.reviews.job is None, 1800)
    review_table(app, window, out_dir / "review-table.png")
    library_question(app, window, engine, out_dir / "library-question.png", getattr(args, "question", QUESTION))
    window.close()


def dismiss_messages(window: Any) -> None:
    """Close the notes of the adds ("… is ready", a duplicate skipped): they cover the viewer."""
    for item in window.message_bar.items():
        item.dismiss()
    window.message_bar.place()


def review_table(app: Any, window: Any, path: Path) -> None:
    from PySide6.QtCore import Qt

    from app.widgets.qt_wait import wait_until

    panel = window.review
    window.splitter.setSizes([150, 330, 1120])
    panel.table.setColumnWidth(0, 250)
    for column in range(1, panel.table_model.columnCount()):
        panel.table.setColumnWidth(column, 104)
    sort = next(n for n, c in enumerate(panel.table_model.columns) if c.key == SORTED_BY)
    law = next(n for n, c in enumerate(panel.table_model.columns) if c.key == "governing-law")
    panel.table.sortByColumn(sort, Qt.SortOrder.AscendingOrder)
    panel.filter_box.setText(FILTER)
    index = panel.table.model().index(0, law)
    panel.table.setCurrentIndex(index)
    panel.table.clicked.emit(index)  # the first contract's governing-law passage, in the viewer
    panel.table.horizontalScrollBar().setValue(0)  # the titles in view
    dismiss_messages(window)
    app.processEvents()
    wait_until(lambda: False, 1.0)
    window.grab().save(str(path))
    print("saved", path, panel.empty_note.text(), flush=True)


def library_question(app: Any, window: Any, engine: Any, path: Path, question: str = QUESTION) -> None:
    from PySide6.QtCore import QUrl

    from app.widgets.qt_wait import wait_until

    window.tabs.setCurrentWidget(window.conversation)
    window.splitter.setSizes([170, 700, 730])
    conversation = window.conversation
    conversation.set_scope(library=True)
    engine.queue(cite_each_contract)
    job = window.ask(question)
    assert job is not None
    wait_until(lambda: window.answers.job is None, 600)
    conversation._anchor(QUrl("hit:0/1"))  # the first contract's passage, opened and highlighted
    dismiss_messages(window)
    app.processEvents()
    wait_until(lambda: False, 1.0)
    conversation.browser.verticalScrollBar().setValue(0)
    window.grab().save(str(path))
    turn = conversation.library_turns[0]
    print("saved", path, len(turn.contracts), "contracts", flush=True)

"""A screenshot of the Review tab for the README: two bundled contracts reviewed against the CUAD
checklist, a cell clicked (its passage highlighted in the viewer), a correction.

The model is the scripted fake engine: for each question it quotes the first sentence of the pages
it is given that holds one of the item's retrieval queries (so every quote is the contract's own
text and the flags come from the real playbook). Run it under Xvfb:

    xvfb-run -s "-screen 0 1600x1000x24" .venv/bin/python -m scripts.screenshots review [--evidence-only]
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
CONTRACTS = ROOT / "tests" / "fixtures" / "contracts"


ANSWER_PATTERNS = {
    "jurisdiction": r"laws of (?:the )?([A-Z][\w'’]+(?:(?: of)? [A-Z][\w'’]+)*)",
    "parties": r"between\s+([A-Z][^,(]+?)\s*[,(].*?\band\s+([A-Z][^,(]+?)\s*[,(]",
    "date": r"(?:January|February|March|April|May|June|July|August|September|October|November|December) \d{1,2}, \d{4}",
    "duration": r"\b(?:\w+ \()?\d+\)? (?:days|months|years)\b",
    "amount": r"(?:US)?\$ ?[\d,]+(?:\.\d+)?|[\d,]+ (?:dollars|RMB)",
}


def short_answer(answer_type: str, quote: str) -> str:
    """What a model would say for the item's type, taken from the quote."""
    if answer_type == "yes_no":
        return "yes"
    found = re.search(ANSWER_PATTERNS.get(answer_type, r"$^"), quote)
    if found:
        return "; ".join(found.groups()) if found.groups() else found[0]
    words = quote.split()
    return " ".join(words[:7]) + ("…" if len(words) > 7 else "")


def scripted_reply(prompt: str) -> str:
    """The fake model's answer: a sentence of the given pages holding one of the item's queries."""
    from summarizer.review.checklist import load_checklist

    question = prompt.rsplit("Question: ", 1)[-1].split(" (", 1)[0]
    item = next((i for i in load_checklist("cuad").items if i.question == question), None)
    if item is None:
        return json.dumps({"found": False, "answer": "", "quote": "", "pages": []})
    for query in item.queries:
        words = [w for w in re.findall(r"[a-z]+", query.lower()) if len(w) > 3][:2]
        if not words:
            continue
        for page, text in re.findall(r"\[Page (\d+)\]\n(.*?)(?=\n\[Page \d+\]|\Z)", prompt, re.S):
            for sentence in re.split(r"(?<=[.;])\s+", text):
                flat = " ".join(sentence.split())
                capitals = sum(c.isupper() for c in flat) / max(1, sum(c.isalpha() for c in flat))
                if all(w in flat.lower() for w in words) and len(flat) > 40 and capitals < 0.3:
                    quote = flat[:200]
                    answer = short_answer(item.type, quote)
                    return json.dumps({"found": True, "answer": answer, "quote": quote, "pages": [int(page)]})
    return json.dumps({"found": False, "answer": "", "quote": "", "pages": []})


def save_absent_cell(window: Any, path: Path) -> None:
    """Click the first "probably absent" cell of the grid and save the window."""
    from app.widgets.qt_wait import wait_until

    panel = window.review
    items = window.reviews.checklist.items
    row, column = next(
        (n, c)
        for n in range(len(items))
        for c in range(2)
        if (r := panel.result_at(n, c)) is not None and r.status == "absent"
    )
    panel.grid.setCurrentCell(row, column)
    panel.grid.cellClicked.emit(row, column)
    panel.grid.scrollToItem(panel.grid.item(row, column))
    wait_until(lambda: False, 0.8)
    save_reviewed(window, path)
    print("saved", path, "row", row, items[row].id, "column", column, flush=True)


def add_arguments(group: argparse._ArgumentGroup) -> None:
    group.add_argument(
        "--evidence-only", action="store_true", help="no model: a 'probably absent' cell clicked (review-absent.png)"
    )


def review_window(
    home: Path, names: Sequence[str], piece_delay_s: float, ingest_timeout_s: float
) -> tuple[Any, Any, Any, Any]:
    """``(application, shown window, fake engine, model session)`` of the review scenes: a 14B model's
    name and plan, the engine answering with ``scripted_reply``, the bundled contracts ``names`` added
    (without embeddings) and read."""
    from app.gui_main import make_application

    app = make_application(["pagewise"])
    from app.main_window import MainWindow
    from app.services.load_planning import PlanPreview
    from app.services.model_session import ModelSession
    from app.services.settings import Settings
    from app.widgets.messages import MessageCenter
    from app.widgets.qt_wait import wait_until
    from tests.app.conftest import DocumentFake

    engine = DocumentFake.make(piece_delay_s=piece_delay_s, model_name="Qwen2.5-14B-Instruct", n_ctx=16384)
    engine.summary_reply = scripted_reply
    values = {"model_path": str(Path(home) / "Qwen2.5-14B-Instruct-Q4_K_M.gguf"), "background_summaries": "off"}
    session = ModelSession(
        values, engine_factory=lambda _p: engine, planner=lambda _v: PlanPreview(None, "Qwen2.5-14B · 12 GiB")
    )
    window = MainWindow(settings=Settings(values, path=Path(home) / "settings.json"), session=session,
                        messages=MessageCenter())  # fmt: skip
    window.runner.embed = False
    window.resize(1600, 1000)
    window.show()
    window.add_paths([CONTRACTS / name for name in names])
    wait_until(lambda: len(window.library.documents()) == len(names) and not window.runner.ingests, ingest_timeout_s)
    return app, window, engine, session


def unreviewed_cells(panel: Any) -> list[str]:
    """The Review tab's contracts not reviewed yet and items still pending, in words (none: the
    grid or table shows a finished review)."""
    unfinished = []
    for title, review in zip(panel.titles, panel.columns, strict=True):
        if review is None:
            unfinished.append(f"{title}: not reviewed")
            continue
        pending = [item.category for item in review.items if item.status == "pending"]
        if pending:
            unfinished.append(f"{title}: {len(pending)} item{'s' * (len(pending) != 1)} pending ({pending[0]}, …)")
    return unfinished


def wait_for_review(window: Any, timeout_s: float) -> None:
    """Until the Review button's review has ended and its cells are all shown: the tab's own job
    (evidence only, or one contract) or the data room's (several contracts with the model, commit
    4d9ba22), whose last cells are shown on a timer after it ends. Exits the scene when it does not."""
    from app.widgets.qt_wait import wait_until

    reviews = window.reviews
    if not wait_until(lambda: reviews.job is None and reviews.room.job is None and not reviews.room.showing, timeout_s):
        raise SystemExit(f"The review did not end in {timeout_s:.0f} s: no picture taken.")


def review_all(window: Any, evidence_only: bool, timeout_s: float) -> None:
    """Every contract of the library checked, for the Distributor, Review pressed: until it ends."""
    panel = window.review
    for record in window.library.documents():
        panel.set_checked(record.doc_id)
    panel.side.setText("Distributor")
    panel.evidence_only.setChecked(evidence_only)
    if window.reviews.review() is None:
        raise SystemExit("The Review button started no review: no picture taken.")
    wait_for_review(window, timeout_s)


def save_reviewed(window: Any, path: Path) -> None:
    """Save the window, its Review tab showing a finished review; a contract not reviewed or an
    item pending exits the scene instead (non-zero, naming them), so a picture of an unfinished
    review is never taken for a finished one."""
    unfinished = unreviewed_cells(window.review)
    if unfinished:
        raise SystemExit(f"{path.name} not taken, the review is not finished: {'; '.join(unfinished)}")
    window.grab().save(str(path))


def run(args: argparse.Namespace, home: Path) -> None:
    out_dir = args.out
    from app.widgets.qt_wait import wait_until
    from scripts.screenshots.data_room import dismiss_messages

    app, window, _engine, _session = review_window(
        home, ("supply-16p.pdf", "license-17p.pdf"), piece_delay_s=0.0, ingest_timeout_s=180
    )
    window.splitter.setSizes([190, 560, 850])
    window.tabs.setCurrentWidget(window.review)
    panel = window.review
    review_all(window, args.evidence_only, 300)
    if args.evidence_only:
        save_absent_cell(window, out_dir / "review-absent.png")
        window.close()
        return
    row = next(n for n, item in enumerate(window.reviews.checklist.items) if item.id == "governing-law")
    column = next((c for c in range(2) if (r := panel.result_at(row, c)) and r.status == "answered"), 0)
    panel.grid.setCurrentCell(row, column)
    panel.grid.cellClicked.emit(row, column)
    panel.note_edit.setText("checked against section 19")
    panel.accepted.setChecked(True)
    panel.save_button.click()
    panel.grid.scrollToItem(panel.grid.item(row, column))
    dismiss_messages(window)  # "The model reviewed 2 contracts in … min." covers the viewer's page
    app.processEvents()
    wait_until(lambda: False, 0.8)
    save_reviewed(window, out_dir / "review-tab.png")
    print("saved", out_dir / "review-tab.png", flush=True)
    window.close()

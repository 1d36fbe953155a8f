"""The Compare tab on a long pair: the known-edits benchmark's edited pair of a fixture contract
(``lab.eval.compare_known_edits``: the clauses written as a test PDF, edited, the new version
reflowed) added to a library, compared from the window (no model), then stepped through change by
change. Reported per run: the time from the request to the list shown (the comparison runs in the
job runner's worker thread), the GUI thread's time to show it (the list filled, both PDFs opened,
the first change highlighted) and the mean time of one step to the next change (both viewers
moved and highlighted; the GUI thread).

    flock /tmp/pagewise-cpu.lock xvfb-run -a -s "-screen 0 1600x1000x24" \\
        .venv/bin/python -m lab.bench.compare_view --fixture franchise-115p --runs 3
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

STEPS = 20  # changes stepped through per run


def edited_pair(fixture: str, seed: int, workdir: Path) -> tuple[Path, Path]:
    from lab.eval.compare_known_edits import FIXTURES, NEW_WIDTH, OLD_WIDTH, base_clauses, write_version
    from lab.eval.known_edits import apply_edits

    pair = apply_edits(base_clauses(FIXTURES / f"{fixture}.pdf", workdir), seed)
    return (
        write_version(workdir / f"{fixture}-old.pdf", pair.old, OLD_WIDTH),
        write_version(workdir / f"{fixture}-new.pdf", pair.new, NEW_WIDTH),
    )


def measure(fixture: str, seed: int, runs: int) -> dict[str, Any]:
    home = Path(tempfile.mkdtemp(prefix="pagewise-compare-view-"))
    os.environ["PAGEWISE_HOME"] = str(home)
    work = home / "files"
    work.mkdir()
    old_pdf, new_pdf = edited_pair(fixture, seed, work)
    from summarizer.library.ingest import ingest_path
    from summarizer.library.storage.store import Library

    with Library.open() as library:
        ids = [ingest_path(library, path).doc_id for path in (old_pdf, new_pdf)]
        pages = [library.document(doc_id).pages for doc_id in ids]

    from app.gui_main import make_application

    app = make_application(["pagewise"])
    from app.main_window import MainWindow
    from app.services.load_planning import PlanPreview
    from app.services.model_session import ModelSession
    from app.services.settings import Settings
    from app.widgets.messages import MessageCenter
    from app.widgets.qt_wait import wait_until
    from tests.app.conftest import DocumentFake

    engine = DocumentFake.make()
    values = {"model_path": str(home / "model.gguf"), "background_summaries": "off"}  # never loaded
    session = ModelSession(values, engine_factory=lambda _p: engine, planner=lambda _v: PlanPreview(None, "none"))
    window = MainWindow(settings=Settings(values, path=home / "settings.json"), session=session,
                        messages=MessageCenter())  # fmt: skip
    window.runner.embed = False
    window.resize(1600, 1000)
    window.show()
    wait_until(lambda: False, 1.0)
    shown_in: list[float] = []
    show = window.comparisons._show

    def timed_show(*args: Any) -> None:
        started = time.perf_counter()
        show(*args)
        shown_in.append(time.perf_counter() - started)

    window.comparisons._show = timed_show  # type: ignore[method-assign]
    results = []
    for _ in range(runs):
        window.comparisons.comparison = None
        started = time.perf_counter()
        window.comparisons.compare(*ids)
        wait_until(lambda: window.comparisons.job is None and window.comparisons.comparison is not None, 300)
        to_shown = time.perf_counter() - started
        listed = window.compare.visible_changes()
        steps = min(STEPS, len(listed) - 1)
        started = time.perf_counter()
        for _ in range(steps):
            window.compare.next_change()
            app.processEvents()
        step = (time.perf_counter() - started) / max(1, steps)
        results.append({"request_to_shown_s": round(to_shown, 3), "gui_show_s": round(shown_in[-1], 3),
                        "next_change_ms": round(step * 1000, 1), "changes_listed": len(listed)})  # fmt: skip
    window.close()
    return {"fixture": fixture, "seed": seed, "pages": pages, "runs": results}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--fixture", default="franchise-115p")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print(json.dumps(measure(args.fixture, args.seed, args.runs)), flush=True)


if __name__ == "__main__":
    main()

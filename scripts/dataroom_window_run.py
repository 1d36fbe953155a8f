"""The whole data room in the window, as a person would go through it (issue 46): a folder of
contracts added in one go, every contract reviewed evidence-only, the Review table reopened from
the stored reviews, exported to a spreadsheet (and CSV and a Word memo), sorted and filtered, and
one question asked of the whole library; with the window's memory and event-loop stalls
recorded all along. Run it under Xvfb, on the data room that ``lab.bench.dataroom_render`` lays
out:

    xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python -m scripts.dataroom_window_run \\
        build/dataroom --home build/dataroom-bench/window-449 --out build/dataroom-bench/window-run

A run stopped half-way continues where it was when started again with the same ``--home``: the
window offers to continue the batch (this script accepts), and the review reads back the
contracts already done. Screenshots go to ``--shots`` (docs/screenshots by default); the
figures, one JSON object, to ``OUT/results.json``, the memory samples to ``OUT/rss.tsv``.
The answer comes from the scripted fake model (it cites the passage it was given from each
contract): the question's retrieval across the library is real, the wording is not.
"""

from __future__ import annotations

import argparse
import json
import os
import threading
import time
from pathlib import Path
from typing import Any

PAGE = os.sysconf("SC_PAGE_SIZE")
STARTED = time.monotonic()


def rss_mb(pid: int) -> float:
    """The resident memory of process ``pid`` in MB (0 when it is gone)."""
    try:
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE / 1e6
    except (OSError, IndexError, ValueError):
        return 0.0


def children(pid: int) -> list[int]:
    """``pid``'s child processes (the ingest process, the model worker)."""
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            found += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


class Sampler:
    """Every ``every`` seconds on its own thread: the window's and its children's memory, with the
    phase the run is in; the peak of each per phase."""

    def __init__(self, path: Path, every: float = 2.0) -> None:
        self.path, self.every = path, every
        self.phase = "start"
        self.peaks: dict[str, dict[str, float]] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        path.parent.mkdir(parents=True, exist_ok=True)
        self._out = path.open("a", encoding="utf-8")
        self._thread.start()

    def _run(self) -> None:
        started = time.monotonic()
        while not self._stop.wait(self.every):
            window = rss_mb(os.getpid())
            child = sum(rss_mb(c) for c in children(os.getpid()))
            peak = self.peaks.setdefault(self.phase, {"window_mb": 0.0, "children_mb": 0.0})
            peak["window_mb"] = max(peak["window_mb"], round(window, 1))
            peak["children_mb"] = max(peak["children_mb"], round(child, 1))
            self._out.write(f"{time.monotonic() - started:.1f}\t{self.phase}\t{window:.1f}\t{child:.1f}\n")
            self._out.flush()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()
        self._out.close()


class StallWatch:
    """A 10 ms timer on the GUI thread: the longest gap between ticks beyond the interval, per phase
    (as scripts/bench_gui_stall.py measures it)."""

    def __init__(self, sampler: Sampler, interval_ms: int = 10) -> None:
        from PySide6.QtCore import QElapsedTimer, QTimer

        self.sampler, self.interval = sampler, interval_ms
        self.worst: dict[str, float] = {}
        self.at: dict[str, float] = {}  # seconds into the run of each phase's worst stall
        self.clock = QElapsedTimer()
        self.clock.start()
        self.last = 0
        self.timer = QTimer()
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self.tick)
        self.timer.start()

    def tick(self) -> None:
        now = self.clock.elapsed()
        late = now - self.last - self.interval
        self.last = now
        phase = self.sampler.phase
        if late > self.worst.get(phase, -1.0):
            self.worst[phase] = float(late)
            self.at[phase] = round(now / 1000, 1)


def phase(run: dict[str, Any], sampler: Sampler, name: str) -> float:
    sampler.phase = name
    run.setdefault("phase_at_s", {})[name] = round(time.monotonic() - STARTED, 1)
    print(f"[{time.strftime('%H:%M:%S')}] {name}", flush=True)
    return time.perf_counter()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("room", type=Path, help="the folder of contracts to add")
    parser.add_argument("--home", type=Path, required=True, help="the data folder (kept: a second run continues)")
    parser.add_argument("--out", type=Path, required=True, help="where the figures and the exports go")
    parser.add_argument("--shots", type=Path, default=Path("docs/screenshots"))
    parser.add_argument("--review-timeout", type=float, default=3 * 3600)
    args = parser.parse_args()
    args.home.mkdir(parents=True, exist_ok=True)
    args.out.mkdir(parents=True, exist_ok=True)
    os.environ["PAGEWISE_HOME"] = str(args.home)
    started = time.perf_counter()
    from app.widgets.qt_wait import wait_until
    from scripts.screenshots.data_room import dismiss_messages, library_question, review_table
    from scripts.scripted_window import scripted_window

    sampler = Sampler(args.out / "rss.tsv")
    run: dict[str, Any] = {"room": str(args.room), "cpus": os.cpu_count()}
    app, window, engine = scripted_window(args.home, 16384)
    window.resize(1600, 1000)
    stalls = StallWatch(sampler)
    wait_until(lambda: window.library_panel.isVisible(), 30)
    run["window_shown_s"] = round(time.perf_counter() - started, 2)
    before = {d.doc_id for d in window.library.documents() if d.state == "ready"}

    # 1. The folder, added as one batch (or the batch a stopped run left, continued).
    t = phase(run, sampler, "add")
    resume = window.ingest.offer_resume()
    job = window.ingest.add_batch([], resume) if resume is not None else window.add_paths([args.room])
    run["add_resumed"] = resume is not None
    if job is not None:
        summary: dict[str, Any] = {}
        job.batch_finished.connect(summary.update)
        wait_until(lambda: False, 2.0)
        wait_until(lambda: not window.runner.ingests, 3 * 3600)
        run["add_s"] = round(time.perf_counter() - t, 1)
        run["add_summary"] = {k: v for k, v in summary.items() if not isinstance(v, list | dict)}
    documents = [d for d in window.library.documents() if d.state == "ready"]
    run["contracts"] = len(documents)
    run["added_this_run"] = len({d.doc_id for d in documents} - before)
    run["pages"] = sum(d.pages for d in documents)
    print("library of", len(documents), "contracts", flush=True)

    # 2. Every contract reviewed evidence-only, in the background (stored contract by contract).
    window.tabs.setCurrentWidget(window.review)
    window.splitter.setSizes([170, 330, 1100])
    panel = window.review
    panel.check_all(True)
    panel.evidence_only.setChecked(True)
    t = phase(run, sampler, "review")
    job = window.reviews.review()
    assert job is not None, "the review did not start"
    wait_until(lambda: window.reviews.job is None, args.review_timeout)
    run["review_s"] = round(time.perf_counter() - t, 1)
    run["review_per_contract_s"] = round(run["review_s"] / max(1, len(documents)), 2)

    # 3. The Review table, opened again from the stored reviews (as at the next start).
    t = phase(run, sampler, "open table")
    window.reviews.show_stored()
    app.processEvents()
    run["open_table_s"] = round(time.perf_counter() - t, 2)
    run["table_rows"] = panel.table_model.rowCount()

    # 4. Exports, as the Export menu writes them (the save dialog answered by the script).
    for fmt in ("xlsx", "csv", "docx"):
        target = args.out / f"data room review.{fmt}"
        window.reviews.choose_export_path = lambda _fmt, _name, target=target: target
        t = phase(run, sampler, f"export {fmt}")
        saved = window.reviews.export(fmt)
        run[f"export_{fmt}_s"] = round(time.perf_counter() - t, 2)
        run[f"export_{fmt}_bytes"] = saved.stat().st_size if saved else None

    # 5. The table sorted and filtered, and one question asked of every contract.
    phase(run, sampler, "screenshots")
    args.shots.mkdir(parents=True, exist_ok=True)
    review_table(app, window, args.shots / "review-table-449.png")
    run["filtered_rows"] = panel.table.model().rowCount()
    t = time.perf_counter()
    library_question(app, window, engine, args.shots / "library-question-449.png")
    run["library_question_s"] = round(time.perf_counter() - t, 2)
    run["library_question_contracts"] = len(window.conversation.library_turns[0].contracts)
    dismiss_messages(window)
    phase(run, sampler, "end")
    window.close()
    sampler.stop()
    run["peak_mb"] = sampler.peaks
    run["worst_stall_ms"] = stalls.worst
    run["worst_stall_at_s"] = stalls.at
    (args.out / "results.json").write_text(json.dumps(run, indent=1) + "\n")
    print(json.dumps(run), flush=True)


if __name__ == "__main__":
    main()

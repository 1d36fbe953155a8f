"""Measure the worst event-loop stall of the window while a long PDF is ingested and an
answer streams.

    .venv/bin/python -m scripts.bench_gui_stall [--pdf PATH] [--no-embed] [--model GGUF]

A 5 ms timer runs on the GUI thread; the longest gap between two ticks (minus the interval)
is the worst stall. The scenario: a first document is added (with embeddings unless
--no-embed, so that asking uses the vector index and loads the query encoder in the LLM
thread), then a long PDF is added while a question is answered: by the scripted fake
engine (a 600-token reply at ~50 tokens/s), or by a real GGUF with --model (CPU, 2 threads).
Runs offscreen in a temporary data folder. Target: worst stall <= 50 ms.

    .venv/bin/python -m scripts.bench_gui_stall --room 449 [--cuad PATH] [--reply-delay-ms 0]

The data room's scenario instead (issue 57, ``room_scenario``): N contracts of CUAD's training texts
(``../shared/data/cuad-train``) written straight into the library (pages of ~3,000 characters,
passages of 120 words: no PDF, no embeddings; the evidence search is the library's own), the
Review table showing them all, and "Review the library with the model" run through the window's
controller by the scripted engine (a JSON reply per reading, found for a third of the items with a
quote of the contract's own words) until every contract is done, and ``--after-s`` after it.
Reports the worst event-loop stall, each stall over 50 ms (when, and how many contracts were done
then), the ticks late around the job's end, and the window process's resident memory at its
highest (sampled every 0.5 s); the table's first display (before the button could be pressed) and
the thaw the window leaves for the user's pause (``app/jobs/held_objects.py``) are timed apart.
Targets: worst stall <= 100 ms, memory < 1.5 GB.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CONTRACTS = ROOT / "tests" / "fixtures" / "contracts"
CUAD = ROOT.parent / "shared" / "data" / "cuad-train" / "cuad-train.tar.gz"
PAGE_CHARS, PASSAGE_WORDS = 3000, 120


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pdf", type=Path, default=CONTRACTS / "collaboration-154p.pdf")
    parser.add_argument("--first", type=Path, default=CONTRACTS / "license-17p.pdf")
    parser.add_argument("--no-embed", action="store_true", help="ingest without embeddings (faster)")
    parser.add_argument("--model", type=Path, help="stream from this GGUF with llama.cpp instead of the fake")
    parser.add_argument("--interval-ms", type=int, default=5)
    parser.add_argument(
        "--from-start",
        action="store_true",
        help="measure from the first document on: its ingest, the search warm-up and the first question too",
    )
    parser.add_argument("--trace-stalls", action="store_true",
                        help="print the GUI thread's stack while it is late by more than 40 ms")  # fmt: skip
    parser.add_argument("--room", type=int, metavar="N", help="the data room's scenario: a model review of N contracts")
    parser.add_argument("--cuad", type=Path, default=CUAD, help="CUAD's training texts (a .tar.gz or a folder)")
    parser.add_argument("--reply-delay-ms", type=float, default=0.0, help="the scripted engine's time per reply")
    parser.add_argument("--max-pages", type=int, default=0, help="the room's contracts cut to their first N pages")
    parser.add_argument("--limit-s", type=float, default=0.0, help="press Stop after this long (0: run to the end)")
    parser.add_argument("--after-s", type=float, default=3.0, help="the room: measure this long after the job's end")
    args = parser.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    home = tempfile.TemporaryDirectory(prefix="pagewise-bench-")
    os.environ["PAGEWISE_HOME"] = home.name
    if args.room:
        return room_scenario(args, Path(home.name))

    from PySide6.QtCore import QElapsedTimer, QTimer

    from app.gui_main import make_application
    from app.main_window import MainWindow
    from app.services.load_planning import PlanPreview
    from app.services.model_session import ModelSession
    from app.services.settings import Settings
    from app.widgets.messages import MessageCenter
    from inference.engines.engine import render_plain
    from inference.engines.fake import FakeEngine

    make_application(sys.argv[:1])
    if args.model:
        values = {
            "model_path": str(args.model),
            "context_size": 4096,
            "vram_budget": "auto",
            "background_summaries": "off",
        }
        session = ModelSession(values, n_threads=2)
    else:
        values = {"background_summaries": "off"}
        reply = " ".join(f"word{i} [p. 2]" if i % 25 == 0 else f"word{i}" for i in range(600))

        class BenchFake(FakeEngine):
            """Short replies to the summarizer's segment prompts, the long reply to the question."""

            def _next_reply(self) -> object:
                prompt = render_plain(self.calls[-1].prompt)
                return reply if prompt.startswith("system: You answer") else "Parties, fees, term (p. 1)."

        engine = BenchFake(piece_delay_s=0.02, autoload=False, n_ctx=8192)
        session = ModelSession(values, engine_factory=lambda _p: engine,
                               planner=lambda _v: PlanPreview(None, "fake-model"))  # fmt: skip
    messages = MessageCenter()
    window = MainWindow(settings=Settings(values, path=Path(home.name) / "settings.json"), session=session,
                        messages=messages)  # fmt: skip
    window.runner.embed = not args.no_embed
    window.resize(1300, 850)
    window.show()

    from app.widgets.qt_wait import wait_until as spin

    gaps: list[int] = []
    clock = QElapsedTimer()
    last = [0]

    worst_at: list[tuple[int, int]] = []

    def tick() -> None:
        now = clock.elapsed()
        gaps.append(now - last[0])
        if now - last[0] - args.interval_ms > 50:
            worst_at.append((now, now - last[0] - args.interval_ms))
        last[0] = now

    timer = QTimer()
    timer.setInterval(args.interval_ms)
    timer.timeout.connect(tick)

    def start_measuring() -> None:
        clock.start()
        timer.start()

    if args.from_start:
        start_measuring()
    stacks: dict[str, int] = {}
    if args.trace_stalls:
        trace_stalls(clock, last, stacks, depth=10)

    print(f"adding {args.first.name} first ({'with' if window.runner.embed else 'without'} embeddings)…", flush=True)
    window.add_paths([args.first])
    if not spin(lambda: window.doc_id is not None and not window.runner.ingests, 600):
        print("the first document was not added", messages.history)
        return 1

    # The window loads the query encoder in the LLM thread once documents are added,
    # and the first question summarizes the document (retrieval mode). Both happen before the
    # measurement (unless --from-start), as they would for a user who already asked about this document.
    spin(lambda: window.warm_up_job is None, 300)
    first = window.ask("Who are the parties?")
    spin(lambda: first is None or first.done, 600)
    print(f"first question answered ({len(window.conversation.turns)} turn), measuring…", flush=True)
    if not args.from_start:
        start_measuring()
    started = time.monotonic()
    ingest = window.add_paths([args.pdf])
    answer = window.ask("What are the payment obligations and when can the agreement be terminated?")
    answer_done_at: list[float] = []
    if answer is not None:
        answer.finished.connect(lambda: answer_done_at.append(time.monotonic() - started))
    finished = spin(lambda: (ingest is None or ingest.done) and window.answer_job is None, 900)
    timer.stop()
    for stack, count in sorted(stacks.items(), key=lambda kv: -kv[1])[:5]:
        print(f"--- the GUI thread, late, {count} samples of 10 ms:\n{stack}")
    elapsed = time.monotonic() - started
    stalls = [max(0, g - args.interval_ms) for g in gaps]
    worst = max(stalls, default=0)
    print(f"scenario: ingest {args.pdf.name} + stream an answer "
          f"({'model ' + args.model.name if args.model else 'fake engine, 600 pieces at ~50/s'})")  # fmt: skip
    print(f"finished: {finished}; wall {elapsed:.1f} s; answer done after "
          f"{answer_done_at[0] if answer_done_at else float('nan'):.1f} s; ticks {len(gaps)}")  # fmt: skip
    if stalls:
        ordered = sorted(stalls)
        p99 = ordered[int(0.99 * (len(ordered) - 1))]
        print(f"event-loop stall: worst {worst} ms, p99 {p99} ms, median {statistics.median(stalls):.0f} ms, "
              f"stalls over 50 ms: {sum(s > 50 for s in stalls)}")  # fmt: skip
    if worst_at:
        print("stalls over 50 ms (at ms since start: length):", ", ".join(f"{t}: {g}" for t, g in worst_at))
    print(f"torch imported into the window's process: {'torch' in sys.modules}")
    errors = [m.text for m in messages.history if m.level == "error"]
    if errors:
        print("errors:", *errors, sep="\n  ")
    window.close()
    home.cleanup()
    return 0 if worst <= 50 else 2


def cuad_texts(source: Path, n: int) -> list[tuple[str, str]]:
    """(title, text) of the first ``n`` CUAD training contracts, by file name."""
    import tarfile

    if source.is_dir():
        files = sorted(source.rglob("*.txt"))[:n]
        return [(f.stem, f.read_text(encoding="utf-8", errors="replace")) for f in files]
    with tarfile.open(source) as tar:
        members = sorted((m for m in tar.getmembers() if m.name.endswith(".txt")), key=lambda m: m.name)[:n]
        return [(Path(m.name).stem, tar.extractfile(m).read().decode("utf-8", "replace")) for m in members]  # type: ignore[union-attr]


def write_room(texts: list[tuple[str, str]], max_pages: int = 0) -> list[str]:
    """Each contract straight into the library of $PAGEWISE_HOME: its pages (~``PAGE_CHARS``
    characters, cut at a space) and passages (runs of ``PASSAGE_WORDS`` words of a page)."""
    import hashlib
    import json
    import re

    from summarizer.library.storage.store import Library, now_iso, transaction

    ids = []
    with Library.open() as library:
        for title, text in texts:
            pages, rest = [], " ".join(text.split())
            while rest:
                cut = rest.rfind(" ", 0, PAGE_CHARS) if len(rest) > PAGE_CHARS else len(rest)
                cut = cut if cut > 0 else len(rest)
                pages.append(rest[:cut])
                rest = rest[cut:].lstrip()
            pages = pages[:max_pages] if max_pages else pages
            doc_id = hashlib.sha256(title.encode()).hexdigest()[:12]
            now = now_iso()
            with transaction(library.db):
                library.db.execute(
                    "INSERT INTO documents (doc_id, path, title, pages, content_sha256, status, state, pages_done, "
                    "added_at, updated_at) VALUES (?, ?, ?, ?, ?, 'indexed', 'ready', ?, ?, ?)",
                    [doc_id, f"/room/{title}.pdf", title[:120], len(pages), doc_id * 5 + "0000", len(pages), now, now],
                )
                seq = 0
                for number, page in enumerate(pages, start=1):
                    library.db.execute(
                        "INSERT INTO pages (doc_id, page, text) VALUES (?, ?, ?)", [doc_id, number, page]
                    )
                    words = [m.span() for m in re.finditer(r"\S+", page)]
                    for first in range(0, len(words), PASSAGE_WORDS):
                        run = words[first : first + PASSAGE_WORDS]
                        passage = page[run[0][0] : run[-1][1]]
                        library.db.execute(
                            "INSERT INTO passages (doc_id, seq, text, search_text, spans, page_start, page_end, "
                            "n_tokens) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                            [doc_id, seq, passage, passage.lower(), json.dumps([[number, run[0][0], run[-1][1]]]),
                             number, number, len(run)],
                        )  # fmt: skip
                        seq += 1
            ids.append(doc_id)
    return ids


def trace_stalls(
    clock: Any, last: Sequence[float], stacks: dict[str, int], depth: int, others: dict[str, int] | None = None
) -> None:
    """From another thread, count where the GUI thread is (its last ``depth`` frames) whenever it is
    over 40 ms late on its timer (``clock``'s elapsed ms against ``last[0]``, the tick's); and, into
    ``others``, where each other thread is meanwhile (its innermost frame: who may hold the GIL)."""
    import threading
    import traceback

    gui_thread, sampler = threading.get_ident(), [0]

    def where() -> None:
        sampler[0] = threading.get_ident()
        names: dict[int | None, str] = {}
        while True:
            time.sleep(0.01)
            if clock.isValid() and clock.elapsed() - last[0] > 40:
                frames = sys._current_frames()
                frame = frames.get(gui_thread)
                if frame is not None:
                    key = "".join(traceback.format_stack(frame)[-depth:])
                    stacks[key] = stacks.get(key, 0) + 1
                if others is None:
                    continue
                if len(names) != threading.active_count():
                    names = {t.ident: t.name for t in threading.enumerate()}
                for ident, other in frames.items():
                    if ident not in (gui_thread, sampler[0]):
                        code = other.f_code
                        key = f"{names.get(ident, ident)}: {code.co_filename}:{other.f_lineno} {code.co_name}"
                        others[key] = others.get(key, 0) + 1

    threading.Thread(target=where, daemon=True).start()


def gc_timer() -> dict[int, list[float]]:
    """The time of each of Python's garbage collections from now on, in ms by generation (a
    collection holds the GIL: the GUI thread waits for it whichever thread runs it)."""
    import gc

    times: dict[int, list[float]] = {}
    began = [0.0]

    def timed(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            began[0] = time.perf_counter()
        else:
            times.setdefault(info["generation"], []).append((time.perf_counter() - began[0]) * 1000)

    gc.callbacks.append(timed)
    return times


def room_scenario(args: argparse.Namespace, home: Path) -> int:
    """A model review of ``args.room`` contracts from the Review table (see the module's note)."""
    import gc
    import json
    import zlib

    started_build = time.monotonic()
    texts = cuad_texts(args.cuad, args.room)
    write_room(texts, args.max_pages)
    print(f"library: {len(texts)} CUAD contracts written in {time.monotonic() - started_build:.0f} s", flush=True)

    from PySide6.QtCore import QElapsedTimer, QTimer

    from app.gui_main import make_application
    from app.jobs.held_objects import thaw
    from app.main_window import MainWindow
    from app.services.load_planning import PlanPreview
    from app.services.model_session import ModelSession
    from app.services.settings import Settings
    from app.widgets.messages import MessageCenter
    from app.widgets.qt_wait import wait_until as spin
    from inference.engines.fake import FakeEngine

    class RoomFake(FakeEngine):
        """Found for a third of the items (a quote of the reading's own words), else not found."""

        def _next_reply(self) -> object:
            if args.reply_delay_ms:
                time.sleep(args.reply_delay_ms / 1000)
            text = self.calls[-1].prompt[-1].content  # type: ignore[index, union-attr]
            del self.calls[:-1]  # the fake keeps every prompt for tests: not the window's memory
            body, _, question = text.rpartition("\nQuestion: ")
            if zlib.crc32(question.encode()) % 3 or len(body.split()) < 40:
                return json.dumps({"found": False, "answer": "", "quote": "", "pages": []})
            quote = " ".join(body.split()[20:32])
            return json.dumps({"found": True, "answer": "Yes", "quote": quote, "pages": [1]})

    make_application(sys.argv[:1])
    values = {"background_summaries": "off"}
    engine = RoomFake(autoload=False, n_ctx=8192)
    session = ModelSession(values, engine_factory=lambda _p: engine, planner=lambda _v: PlanPreview(None, "fake"))
    messages = MessageCenter()
    window = MainWindow(settings=Settings(values, path=home / "settings.json"), session=session, messages=messages)
    window.runner.embed = False
    window.resize(1300, 850)
    window.show()
    window.tabs.setCurrentWidget(window.review)
    window.review.check_all(True)  # the Review table of every contract
    spin(lambda: window.review.table_mode() and len(window.review.columns) == len(texts), 60)
    room = window.reviews.room
    room.confirm = lambda _question: True

    gaps: list[int] = []
    clock, last = QElapsedTimer(), [0]
    peak, samples = [0.0], [0]
    late: list[tuple[int, int, int]] = []  # each stall over 50 ms: (ms since the start, its ms, contracts done)
    ended_at, succeeded_at = [-1], [-1]  # ms since the start: the job's end reached the window, its result
    recent: list[tuple[int, int]] = []  # the last ticks over 20 ms late: (ms since the start, ms late)

    def tick() -> None:
        now = clock.elapsed()
        gaps.append(now - last[0])
        if now - last[0] - args.interval_ms > 50:
            done = room.last_status.contracts_done if room.last_status else 0
            late.append((now, now - last[0] - args.interval_ms, done))
        if now - last[0] - args.interval_ms > 20:
            recent[:] = [*recent[-40:], (now, now - last[0] - args.interval_ms)]
        last[0] = now

    def sample() -> None:
        rss = int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6
        peak[0], samples[0] = max(peak[0], rss), samples[0] + 1

    timer, memory = QTimer(), QTimer()
    timer.setInterval(args.interval_ms)
    timer.timeout.connect(tick)
    memory.setInterval(500)
    memory.timeout.connect(sample)
    sample()
    stacks: dict[str, int] = {}
    others: dict[str, int] = {}
    collections = gc_timer()
    if args.trace_stalls:
        trace_stalls(clock, last, stacks, depth=8, others=others)
    # The table's first layout and paint come before anyone could press the button: timed apart
    # (counted from the timer's start, they were the review's "start" stall until 4316193).
    clock.start()
    timer.start()
    spin(lambda: False, 1.0)
    first_display = max((g - args.interval_ms for g in gaps), default=0)
    for kept in (gaps, late, recent):
        kept.clear()
    print(f"window up, the table of {len(window.review.columns)} contracts shown ({peak[0]:.0f} MB; its first "
          f"display's longest stall {first_display} ms, before the review, not counted below); reviewing…")  # fmt: skip
    clock.restart()
    last[0] = 0
    memory.start()
    started, load_before = time.monotonic(), os.getloadavg()
    job = room.start()
    room.finished.connect(lambda: ended_at.__setitem__(0, clock.elapsed()))
    if job is not None:  # connected after the controller's own: the time its handler returned
        job.succeeded.connect(lambda _result: succeeded_at.__setitem__(0, clock.elapsed()))
    shown = [0.0]

    def report() -> None:  # a line a minute: a long run shows where it is
        status = room.last_status
        if status is not None and time.monotonic() - shown[0] >= 60:
            shown[0] = time.monotonic()
            worst = max((g - args.interval_ms for g in gaps), default=0)
            at = time.monotonic() - started
            print(f"  {at:.0f} s: {status.contracts_done}/{status.contracts} contracts, {status.items_done} items, "
                  f"worst stall so far {worst} ms, peak {peak[0]:.0f} MB", flush=True)  # fmt: skip
        if (
            args.limit_s
            and time.monotonic() - started > args.limit_s
            and room.control
            and not room.control.cancel.cancelled
        ):
            room.stop()

    progress = QTimer()
    progress.setInterval(1000)
    progress.timeout.connect(report)
    progress.start()
    finished = job is not None and spin(lambda: room.job is None, 4 * 3600)
    progress.stop()
    elapsed = time.monotonic() - started
    spin(lambda: False, args.after_s)  # what the job's end sets off (the last cells, the relayout) is measured too
    timer.stop()
    memory.stop()
    sample()
    stalls = sorted(max(0, g - args.interval_ms) for g in gaps)
    for stack, count in sorted(stacks.items(), key=lambda kv: -kv[1])[:6]:
        print(f"--- the GUI thread, late, {count} samples of 10 ms:\n{stack}")
    for where, count in sorted(others.items(), key=lambda kv: -kv[1])[:8]:
        print(f"--- meanwhile another thread, {count} samples: {where}")
    result = room.result
    print(f"scenario: model review of {len(texts)} contracts from the Review table (scripted engine, "
          f"{args.reply_delay_ms:g} ms a reply)")  # fmt: skip
    if result is not None:
        print(f"finished: {finished}; wall {elapsed:.1f} s; reviewed {result.reviewed}, skipped {result.skipped}; "
              f"{result.items_answered} items, {result.readings} readings, "
              f"{result.items_answered / max(elapsed, 1e-9) * 60:.0f} items/min")  # fmt: skip
    else:
        status = room.last_status
        done = f"{status.contracts_done}/{status.contracts} contracts, {status.items_done} items" if status else "-"
        print(f"stopped after {elapsed:.1f} s (--limit-s): {done}; {[m.text for m in messages.history][-2:]}")
    if stalls:
        print(f"event-loop stall: worst {stalls[-1]} ms, p99 {stalls[int(0.99 * (len(stalls) - 1))]} ms, median "
              f"{statistics.median(stalls):.0f} ms, over 50 ms: {sum(s > 50 for s in stalls)}, over 100 ms: "
              f"{sum(s > 100 for s in stalls)} (of {len(stalls)} ticks)")  # fmt: skip
    print(f"the job's result reached the window at {succeeded_at[0] / 1000:.3f} s, its end at "
          f"{ended_at[0] / 1000:.3f} s; measured until {args.after_s:g} s after it")  # fmt: skip
    near = [(t, g) for t, g in recent if abs(t - ended_at[0]) <= 3000]
    print("ticks over 20 ms late within 3 s of the end (ms from the end: ms late):",
          ", ".join(f"{t - ended_at[0]:+d}: {g}" for t, g in near) or "none")  # fmt: skip
    print("stalls over 50 ms (s since the start: ms, contracts done then):",
          ", ".join(f"{t / 1000:.1f}: {g} ({d})" for t, g, d in late) or "none")  # fmt: skip
    print(f"window process memory: peak {peak[0]:.0f} MB resident ({samples[0]} samples)")
    for generation, times in sorted(collections.items()):  # any thread's: the GUI waits for the GIL meanwhile
        print(f"garbage collections of generation {generation}: {len(times)}, worst {max(times):.0f} ms, "
              f"over 50 ms: {sum(t > 50 for t in times)}")  # fmt: skip
    print("load average at the start and the end (the machine's other work): "
          f"{load_before[0]:.1f}, {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")  # fmt: skip
    frozen, full = gc.get_freeze_count(), time.perf_counter()
    thaw()  # the one walk of everything the job held, which the window leaves for the user's next pause
    print(f"the thaw after the job (gc.unfreeze and a full collection), timed apart: "
          f"{(time.perf_counter() - full) * 1000:.0f} ms ({frozen} objects were frozen, {len(gc.get_objects())} "
          "tracked after it)")  # fmt: skip
    window.close()
    worst = stalls[-1] if stalls else 0
    return 0 if result is not None and worst <= 100 and peak[0] < 1500 else 2


if __name__ == "__main__":
    raise SystemExit(main())

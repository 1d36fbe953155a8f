"""The first answer after opening the window: open Pagewise on a library with a model configured,
wait a few seconds as a user would, ask, and time the first token (issue 47's target: ≤ 2 s for a
question asked ≥ 5 s after the window appears, on the GPU machine at a 12 GiB budget with a 7-8B
model).

    QT_QPA_PLATFORM=offscreen python -m lab.bench.first_answer_after_open --model FILE.gguf \\
        --budget 12GiB --wait 5 --threads 8 --no-embed --out $OUT

The library (one contract, added before the window opens and selected as a returning user left
it) is made once; each run opens the window in a new process on a copy of it, with the setting
"Load the model when the window opens" on, then off (``--setting``): off, the question loads the
model itself, as before issue 47. Reported per run, in seconds from the process's start: the
window built, shown and first painted; the background load's start and end; the question's first
token and end, from the moment it was asked. Background summaries are off unless
``--background-summaries`` says otherwise (on, the question also waits for one to yield).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from lab.results import write_json

ROOT = Path(__file__).resolve().parents[2]
DOCUMENT = ROOT / "tests" / "fixtures" / "contracts" / "collaboration-154p.pdf"
QUESTION = "Who may terminate this agreement, and on what notice?"


def _since(launched_at: float) -> float:
    return round(time.monotonic() - launched_at, 3)  # CLOCK_MONOTONIC: one clock for all processes


def use_home(home: Path) -> None:
    os.environ["PAGEWISE_HOME"] = str(home)
    os.environ["PAGEWISE_CONFIG"] = str(home / "settings.json")


def make_library(args: argparse.Namespace) -> tuple[Path, str]:
    """A data folder holding the contract (not timed); its doc_id."""
    home = Path(tempfile.mkdtemp(prefix="pagewise-after-open-seed-"))
    use_home(home)
    if args.tokenizer_dir is not None:  # passages are cut in the embedder's tokens, even without vectors
        shutil.copytree(args.tokenizer_dir, home / "models" / "embeddings" / "sentence-transformers--all-MiniLM-L6-v2")
    from summarizer.library.ingest import IngestOptions, ingest_path
    from summarizer.library.storage.store import Library

    started = time.perf_counter()
    with Library.open() as library:
        doc_id = ingest_path(library, args.document, IngestOptions(embed=not args.no_embed)).doc_id
    print(f"added {args.document.name} in {time.perf_counter() - started:.0f} s", flush=True)
    return home, doc_id


def open_and_ask(args: argparse.Namespace) -> dict[str, Any]:
    """In a new process (``--child``): the window as ``pagewise`` opens it, then the question."""
    launched = args.launched_at
    times: dict[str, float] = {"imports_started": _since(launched)}
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QSettings

    from app.gui_main import make_application
    from app.main_window import MainWindow
    from app.services.model_session import ModelSession
    from app.services.settings import Settings
    from app.widgets.messages import MessageCenter
    from inference.telemetry import GpuTelemetry

    home = Path(os.environ["PAGEWISE_HOME"])
    state = QSettings(str(home / "window.ini"), QSettings.Format.IniFormat)
    state.setValue("selected_doc", args.doc_id)  # a returning user: the document they last read
    state.sync()
    app: Any = make_application(sys.argv[:1])
    times["imports_done"] = _since(launched)
    settings = Settings.load()
    session = ModelSession(settings.effective_values(), n_threads=args.threads)
    windows: list[MainWindow] = []
    telemetry = GpuTelemetry(pids=lambda: (os.getpid(), windows[0].session.engine.worker_pid
                                           if windows and windows[0].session.engine else None))  # fmt: skip
    window = MainWindow(settings=settings, session=session, telemetry=telemetry, messages=MessageCenter())
    windows.append(window)
    window.confirm_close = lambda _running: True  # closing during a background summary asks no one
    times["window_built"] = _since(launched)
    telemetry.start()
    window.show()
    shown = time.monotonic()
    times["shown"] = _since(launched)

    def wait(condition: Any, timeout: float, what: str) -> None:
        began = time.monotonic()
        while not condition():
            app.processEvents()
            time.sleep(0.005)
            if time.monotonic() - began > timeout:
                raise TimeoutError(f"waited {timeout:.0f} s for {what}")

    load: dict[str, float] = {}

    def watch_load() -> bool:
        job = window.model_setup.load_job
        if job is not None and "load_started" not in load:
            load["load_started"] = _since(launched)
            job.finished.connect(lambda: load.setdefault("load_finished", _since(launched)))
        return window.first_painted

    wait(watch_load, 60, "the first paint")
    times["first_painted"] = _since(launched)
    wait(lambda: (watch_load(), time.monotonic() - shown >= args.wait)[1], args.wait + 60, "the wait")
    assert window.doc_id == args.doc_id, f"the document {args.doc_id} is not selected ({window.doc_id})"
    loading_when_asked = window.status.model_loading.text()
    answer: dict[str, float] = {}
    asked = time.monotonic()
    times["asked"] = _since(launched)
    job = window.ask(QUESTION)
    assert job is not None, "the question was not asked"
    failures: list[BaseException] = []
    job.piece.connect(lambda _t: answer.setdefault("first_token_s", round(time.monotonic() - asked, 3)))
    job.failed.connect(failures.append)
    job.finished.connect(lambda: answer.setdefault("answer_s", round(time.monotonic() - asked, 3)))
    wait(lambda: (watch_load(), "answer_s" in answer)[1], args.timeout, "the answer")
    if failures:
        raise RuntimeError(f"the question failed: {failures[0]!r}")
    turn = window.conversation.turns[-1]
    report = window.session.report
    result = {
        "load_model_at_start": settings["load_model_at_start"],
        **times,
        **load,
        "model_loading_when_asked": loading_when_asked,
        **answer,
        "mode": turn.mode,
        "prompt_tokens": turn.stats.prompt_tokens if turn.stats else None,
        "engine_ttft_s": round(turn.stats.ttft_s, 3) if turn.stats else None,
        "worker_load_s": round(report.load_s, 3) if report and report.load_s else None,
        "plan": window.status.plan_label.text(),
    }
    window.close()
    telemetry.close()
    return result


def run_child(args: argparse.Namespace, seed: Path, doc_id: str, setting: bool) -> dict[str, Any]:
    home = Path(tempfile.mkdtemp(prefix="pagewise-after-open-"))
    shutil.copytree(seed, home, dirs_exist_ok=True)
    values = {"model_path": str(args.model.resolve()), "vram_budget": args.budget, "load_model_at_start": setting,
              "background_summaries": args.background_summaries}  # fmt: skip
    (home / "settings.json").write_text(json.dumps(values, indent=2))
    env = {**os.environ, "PAGEWISE_HOME": str(home), "PAGEWISE_CONFIG": str(home / "settings.json")}
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    cmd = [sys.executable, "-m", "lab.bench.first_answer_after_open", "--child", "--model", str(args.model),
           "--doc-id", doc_id, "--wait", str(args.wait), "--threads", str(args.threads),
           "--timeout", str(args.timeout), "--launched-at", repr(time.monotonic()), "--out", str(args.out)]  # fmt: skip
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=args.timeout + 120)
    if done.returncode != 0:
        raise RuntimeError(f"the window run failed ({done.returncode}):\n{done.stderr[-4000:]}")
    row: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    print(json.dumps(row), flush=True)
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", type=Path, required=True, help="a GGUF file")
    parser.add_argument("--budget", default="auto", help="the vram_budget setting (12GiB on the GPU machine)")
    parser.add_argument("--wait", type=float, default=5.0, help="seconds between the window appearing and the question")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--setting", choices=("on", "off", "both"), default="both",
                        help="'Load the model when the window opens'")  # fmt: skip
    parser.add_argument("--background-summaries", choices=("auto", "on", "off"), default="off")
    parser.add_argument("--document", type=Path, default=DOCUMENT)
    parser.add_argument("--no-embed", action="store_true", help="no passage vectors (where the embedder cannot run)")
    parser.add_argument("--tokenizer-dir", type=Path, help="all-MiniLM-L6-v2's tokenizer files (with --no-embed)")
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("--out", type=Path, required=True, help="a folder: first-answer-after-open[-TAG].json")
    parser.add_argument("--tag", default="", help="added to the file's name (cpu, gpu)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--doc-id", help=argparse.SUPPRESS)
    parser.add_argument("--launched-at", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(open_and_ask(args)), flush=True)
        return 0
    seed, doc_id = make_library(args)
    settings = {"on": [True], "off": [False], "both": [True, False]}[args.setting]
    runs = [run_child(args, seed, doc_id, setting) for setting in settings]
    result = {
        "command": "python -m lab.bench.first_answer_after_open " + " ".join(sys.argv[1:]),
        "model": args.model.name,
        "document": args.document.name,
        "budget": args.budget,
        "threads": args.threads,
        "wait_s": args.wait,
        "cpus": os.cpu_count(),
        "runs": runs,
    }
    target = args.out / f"first-answer-after-open{'-' + args.tag if args.tag else ''}.json"
    write_json(target, result, indent=2)
    print(f"wrote {target}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Time from Ask to the first token and to the whole answer on a freshly added contract (issue 25).

Three ways, each on a fresh library holding only ``collaboration-154p`` (the fixture, 154 pages),
default retrieval (top-3 passages), a 128-token answer, no stored summary:

* ``window``: the real window offscreen (its one job runner, the model in its worker process),
  the background summary of the new document running when the question is asked; reports the
  question's first token and end, and that the summary resumed afterwards and finished.
* ``cli``: ``pagewise ask DOC QUESTION`` as a user types it (a new process: start-up, model
  load, retrieval, answer), timed from outside; its first byte on stdout is the first token.
* ``core``: the function the window's job runs (``app.services.answering.ask``) with a background summary
  running in another thread that yields as the window's runner makes it yield (its cancel token,
  the engine's abort), questions every ``--every`` seconds; reports each question's first token
  and the summary's throughput against the same summary run alone. No Qt (the GPU machine has
  no PySide6): ``--model`` a GGUF, ``--budget`` the VRAM budget.

    python -m scripts.bench_first_answer window --model SmolLM2.gguf --threads 2 --out docs/data/first-answer
    python -m scripts.bench_first_answer cli --model SmolLM2.gguf --threads 2 --out docs/data/first-answer
    python -m scripts.bench_first_answer core,cli --model llama-3.1-8b.gguf --budget 12GiB --no-embed \
        --tokenizer-dir MINILM_TOKENIZER --out $OUT
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CONTRACT = ROOT / "tests" / "fixtures" / "contracts" / "collaboration-154p.pdf"
QUESTIONS = (
    "Who may terminate this agreement, and on what notice?",
    "Which law governs this agreement?",
    "What are the payment terms?",
    "Is there a non-compete or exclusivity obligation?",
)


TOKENIZER_DIR: Path | None = None  # --tokenizer-dir: the embedder's tokenizer files alone (no weights)


def fresh_home(tag: str) -> Path:
    home = Path(tempfile.mkdtemp(prefix=f"pagewise-first-{tag}-"))
    os.environ["PAGEWISE_HOME"] = str(home)
    os.environ["PAGEWISE_CONFIG"] = str(home / "settings.json")
    if TOKENIZER_DIR is not None:  # passages are cut in the embedder's tokens, even without vectors
        import shutil

        shutil.copytree(TOKENIZER_DIR, home / "models" / "embeddings" / "sentence-transformers--all-MiniLM-L6-v2")
    return home


_SEEDS: dict[bool, tuple[Path, str]] = {}  # embed -> (a library holding only the contract, doc_id)


def ingest(embed: bool = True) -> str:
    """Add the contract to the fresh library (with its vectors unless ``embed`` is False); a second
    fresh library gets a copy of the first one's (the ingest is not what is measured)."""
    import shutil

    from summarizer.library.ingest import IngestOptions, ingest_path
    from summarizer.library.storage.paths import data_home
    from summarizer.library.storage.store import Library

    def copy(source: Path, target: Path) -> None:
        for item in source.iterdir():
            if item.name != "models":
                (shutil.copytree if item.is_dir() else shutil.copy2)(item, target / item.name)

    home = data_home()
    if embed in _SEEDS:
        seed, doc_id = _SEEDS[embed]
        copy(seed, home)
        return doc_id
    started = time.perf_counter()
    with Library.open() as library:
        doc_id = ingest_path(library, CONTRACT, IngestOptions(embed=embed)).doc_id
    print(f"ingested {CONTRACT.name} in {time.perf_counter() - started:.0f} s", flush=True)
    seed = Path(tempfile.mkdtemp(prefix="pagewise-first-seed-"))
    copy(home, seed)  # before anything is summarized in it
    _SEEDS[embed] = (seed, doc_id)
    return doc_id


def write(out: Path, name: str, data: dict[str, Any]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / name).write_text(json.dumps(data, indent=2) + "\n")
    print(json.dumps(data, indent=2), flush=True)


# --- the window ------------------------------------------------------------------------------


def run_window(args: argparse.Namespace) -> dict[str, Any]:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    fresh_home("window")
    from PySide6.QtCore import QCoreApplication

    from app.gui_main import make_application
    from app.main_window import MainWindow
    from app.services.model_session import ModelSession
    from app.services.settings import Settings
    from app.widgets.messages import MessageCenter

    app: Any = make_application(sys.argv[:1])
    values = {"model_path": str(args.model), "background_summaries": "on", "vram_budget": args.budget}
    session = ModelSession(values, n_threads=args.threads)
    window = MainWindow(settings=Settings(values, path=Path(os.environ["PAGEWISE_CONFIG"])), session=session,
                        messages=MessageCenter())  # fmt: skip
    window.resize(1360, 860)
    window.show()

    def wait(condition: Any, timeout: float, what: str) -> float:
        started = time.perf_counter()
        while not condition():
            app.processEvents()
            time.sleep(0.005)
            if time.perf_counter() - started > timeout:
                raise TimeoutError(f"waited {timeout:.0f} s for {what}")
        return time.perf_counter() - started

    added = time.perf_counter()
    window.add_paths([CONTRACT])
    wait(lambda: window.doc_id is not None and not window.runner.ingests, 900, "the ingest")
    ingest_s = time.perf_counter() - added
    status = window.status.background
    wait(lambda: status.text().startswith("summarizing") and ", 0/" in status.text(), 600, "the background summary")
    summary_line = status.text()
    rows = []
    for question in QUESTIONS[: args.questions]:
        times: dict[str, float] = {}
        asked = time.perf_counter()
        job = window.ask(question)
        assert job is not None, "the question was not asked"
        job.piece.connect(lambda _t, t=times, a=asked: t.setdefault("first_token_s", time.perf_counter() - a))
        job.finished.connect(lambda t=times, a=asked: t.setdefault("answer_s", time.perf_counter() - a))
        wait(lambda times=times: "answer_s" in times, 600, "the answer")
        turn = window.conversation.turns[-1]
        resumed = wait(lambda: window.background.job is not None or window.background.resting, 60,
                       "the summary to resume")  # fmt: skip
        rows.append({"question": question, **{k: round(v, 2) for k, v in times.items()},
                     "mode": turn.mode, "answer_tokens": turn.stats.completion_tokens if turn.stats else None,
                     "summary_resumed_after_s": round(resumed, 2)})  # fmt: skip
        print(rows[-1], flush=True)
        if args.gap:
            gap_from = time.perf_counter()
            wait(lambda g=gap_from: time.perf_counter() - g > args.gap, args.gap + 5, "the gap")
    summary_done = None
    if args.finish_summary:
        from app.services import answering

        doc_id = str(window.doc_id)
        summary_done = wait(lambda: answering.cached_summary(window.library, doc_id, window.session.engine)
                            is not None, 7200, "the background summary to finish")  # fmt: skip
    window.close()
    QCoreApplication.processEvents()
    return {
        "how": "window (offscreen, its job runner and model worker)",
        "model": Path(args.model).name,
        "threads": args.threads,
        "ingest_s": round(ingest_s, 1),
        "summary_when_asked": summary_line,
        "questions": rows,
        "summary_finished_after_s": round(summary_done, 1) if summary_done else None,
    }


# --- the command line ------------------------------------------------------------------------


def run_cli(args: argparse.Namespace) -> dict[str, Any]:
    fresh_home("cli")
    doc_id = ingest(embed=not args.no_embed)
    rows = []
    for question in QUESTIONS[: args.questions]:
        cmd = [sys.executable, "-m", "app.cli", "ask", doc_id, question, "--model", str(args.model),
               "--threads", str(args.threads), "-k", "3", "--answer-tokens", "128"]  # fmt: skip
        if args.budget != "auto":
            cmd += ["--budget", args.budget]
        started = time.perf_counter()
        process = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert process.stdout is not None
        first = process.stdout.read(1)
        first_s = time.perf_counter() - started
        rest = process.stdout.read()
        code = process.wait()
        total_s = time.perf_counter() - started
        text = (first + rest).decode("utf-8", errors="replace")
        mode = next((line.split("]")[0].strip("[") for line in text.splitlines() if line.startswith("[")), "")
        rows.append({"question": question, "first_token_s": round(first_s, 2), "answer_s": round(total_s, 2),
                     "exit": code, "mode": mode})  # fmt: skip
        print(rows[-1], flush=True)
        if code:
            print(process.stderr.read().decode() if process.stderr else "", flush=True)
    return {
        "how": "pagewise ask (a new process each time, timed from outside)",
        "model": Path(args.model).name,
        "threads": args.threads,
        "questions": rows,
    }


# --- the core function, no Qt ----------------------------------------------------------------


def run_core(args: argparse.Namespace) -> dict[str, Any]:
    from app.services import answering
    from inference.cancel import Cancelled, CancelToken
    from summarizer.library.storage.store import Library
    from summarizer.llm.local_model import open_local_model
    from summarizer.summaries.store import count_summaries

    def summary_alone() -> dict[str, Any]:
        fresh_home("core-alone")
        doc_id = ingest(embed=not args.no_embed)
        with Library.open() as library:
            local = open_local_model(library, Path(args.model), n_threads=args.threads, budget=_budget(args))
            started = time.perf_counter()
            answering.summarize(local.engine, library, doc_id)
            seconds = time.perf_counter() - started
            segments = count_summaries(library, doc_id)
            local.engine.close()
        return {"seconds": round(seconds, 1), "stored_summaries": segments}

    alone = summary_alone() if args.compare_alone else None

    fresh_home("core")
    doc_id = ingest(embed=not args.no_embed)
    library = Library.open()
    worker_library = Library.open()
    local = open_local_model(library, Path(args.model), n_threads=args.threads, budget=_budget(args))
    engine = local.engine
    lock = threading.Lock()  # the one LLM thread: a question waits for the summary to let go
    state: dict[str, Any] = {"token": CancelToken(), "done": False, "runs": 0}

    def background() -> None:
        while not state["done"]:
            with lock:
                token = CancelToken()
                state["token"] = token
                state["runs"] += 1
                try:
                    answering.summarize(engine, worker_library, doc_id, cancel=token)
                    state["done"] = True
                    state["finished_at"] = time.perf_counter()
                except Cancelled:
                    pass
            time.sleep(0.01)  # the question takes the lock

    started = time.perf_counter()
    thread = threading.Thread(target=background, daemon=True)
    thread.start()
    rows = []
    for n in range(args.questions):
        time.sleep(args.every if n else args.first_after)
        if state["done"]:
            break
        question = QUESTIONS[n % len(QUESTIONS)]
        asked = time.perf_counter()
        token = state["token"]
        token.cancel()
        engine.cancel()  # as the runner's on_cancel: the summary stops at its next micro-batch
        times: dict[str, float] = {}
        with lock:
            yielded = time.perf_counter() - asked

            def first_piece(_text: str, t: dict[str, float] = times, a: float = asked) -> None:
                t.setdefault("first", time.perf_counter() - a)

            view = answering.ask(engine, library, doc_id, question, on_piece=first_piece)
        rows.append({"question": question, "summary_yielded_s": round(yielded, 2),
                     "first_token_s": round(times.get("first", float("nan")), 2),
                     "answer_s": round(time.perf_counter() - asked, 2), "mode": view.mode,
                     "answer_tokens": view.stats.completion_tokens if view.stats else None})  # fmt: skip
        print(rows[-1], flush=True)
    thread.join(timeout=args.timeout)
    with_questions = state.get("finished_at", time.perf_counter()) - started
    engine.close()
    return {
        "how": "app.services.answering.ask (the window's job function) with the summary yielding in a thread",
        "model": Path(args.model).name,
        "budget": args.budget,
        "threads": args.threads,
        "plan": local.plan.to_json() if hasattr(local.plan, "to_json") else str(local.plan),
        "questions": rows,
        "summary_with_questions_s": round(with_questions, 1),
        "summary_finished": state["done"],
        "summary_restarts": state["runs"],
        "summary_alone": alone,
    }


def _budget(args: argparse.Namespace) -> int | None:
    from inference.planning.gpu_budget import usable_budget

    return usable_budget(args.budget)[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("how", help="window, cli or core; several with commas (one ingest for all)")
    parser.add_argument("--model", type=Path, required=True)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--budget", default="auto")
    parser.add_argument("--questions", type=int, default=2)
    parser.add_argument("--gap", type=float, default=5.0, help="window: seconds between questions")
    parser.add_argument("--every", type=float, default=30.0, help="core: seconds between questions")
    parser.add_argument("--first-after", type=float, default=10.0, help="core: the first question after")
    parser.add_argument("--compare-alone", action="store_true", help="core: the summary alone first")
    parser.add_argument("--finish-summary", action="store_true", help="window: wait for the summary to end")
    parser.add_argument("--no-embed", action="store_true", help="no vectors (a machine without the embedder)")
    parser.add_argument("--timeout", type=float, default=3600)
    parser.add_argument("--tokenizer-dir", type=Path, help="all-MiniLM-L6-v2's tokenizer files (with --no-embed)")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    global TOKENIZER_DIR
    TOKENIZER_DIR = args.tokenizer_dir
    for how in args.how.split(","):
        result = {"window": run_window, "cli": run_cli, "core": run_core}[how](args)
        result["cpu"] = os.cpu_count()
        write(args.out, f"first-answer-{how}.json", result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

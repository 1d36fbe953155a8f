"""The first answer after opening the window, without Qt (issue 47): the GPU machine has no
PySide6 and its wheels are too large to carry, so this runs what the window's jobs run, in the
window's order, in a fresh process each time:

1. the process starts and imports what the window imports before it is shown (the "window
   appears" moment, ``opened``);
2. with "Load the model when the window opens" on, the LLM thread (one worker thread, as the
   window's job runner has) starts the window's load job: ``ModelSession.ensure_loaded``;
3. ``--wait`` seconds after ``opened``, the question is submitted to the same LLM thread: it
   queues behind the load, as in the window, then ``app.services.answering.ask`` (the window's
   answer job) answers it; the first token is timed from the moment it was asked.

With the setting off, the question's own job loads the model (the window before issue 47).
``lab/bench/first_answer_after_open.py`` measures the real window the same way where PySide6 is.

    python -m lab.bench.first_answer_core --model FILE.gguf --budget 12GiB --threads 8 --wait 5 \\
        --no-embed --tokenizer-dir .device/minilm --out $OUT
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from lab.results import write_json

QUESTION = "Who may terminate this agreement, and on what notice?"


def one_run(args: argparse.Namespace, home: str, doc_id: str, preload: bool) -> dict[str, Any]:
    """In this (fresh) process: the window's jobs in the window's order; seconds from ``opened``."""
    started = time.monotonic()
    os.environ["PAGEWISE_HOME"] = home
    os.environ["PAGEWISE_CONFIG"] = str(Path(home) / "settings.json")
    from concurrent.futures import ThreadPoolExecutor

    from app.services import answering
    from app.services.model_session import ModelSession
    from inference.cancel import NEVER_CANCELLED
    from summarizer.library.storage.store import Library
    from summarizer.llm.model_identity import hash_in_background

    values = {"model_path": str(args.model), "vram_budget": args.budget, "background_summaries": "off"}
    session = ModelSession(values, n_threads=args.threads)
    library = Library.open()
    opened = time.monotonic()
    llm_thread = ThreadPoolExecutor(max_workers=1)  # the window's one LLM worker
    times: dict[str, float] = {"imports_s": round(opened - started, 3)}

    hashing: list[Any] = []

    def load() -> None:  # app.controllers.model_setup's load job: the digest beside the load
        times["load_start_s"] = round(time.monotonic() - opened, 3)
        hashing.append(hash_in_background(library.path, args.model, NEVER_CANCELLED))
        session.ensure_loaded()
        times["load_end_s"] = round(time.monotonic() - opened, 3)

    if preload:
        llm_thread.submit(load)
    time.sleep(max(0.0, args.wait - (time.monotonic() - opened)))
    asked = time.monotonic()
    times["asked_s"] = round(asked - opened, 3)

    def answer() -> Any:
        engine = session.ensure_loaded()  # loaded already (preload), or loaded now by the question

        def first_piece(_text: str) -> None:
            times.setdefault("first_token_after_asking_s", round(time.monotonic() - asked, 3))

        return answering.ask(engine, library, doc_id, QUESTION, on_piece=first_piece)

    view = llm_thread.submit(answer).result()
    times["answer_after_asking_s"] = round(time.monotonic() - asked, 3)
    for thread in hashing:  # the window does not wait for the digest: when it was done, for the record
        thread.join()
        times["hash_done_by_s"] = round(time.monotonic() - opened, 3)
    llm_thread.shutdown()
    session.close()
    return {
        "load_model_at_start": preload,
        **times,
        "answer_tokens": view.stats.completion_tokens if view.stats else None,
        "mode": view.mode,
    }


def make_library(args: argparse.Namespace) -> tuple[str, str]:
    """A data folder holding the contract (not timed), as a returning user's library."""
    import scripts.bench_first_answer as first

    first.TOKENIZER_DIR = args.tokenizer_dir
    home = first.fresh_home("after-open-core")
    doc_id = first.ingest(embed=not args.no_embed)
    return str(home), doc_id


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", type=Path, required=True)
    parser.add_argument("--budget", default="auto")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--wait", type=float, default=5.0, help="seconds from the window's opening to the question")
    parser.add_argument("--rounds", type=int, default=2, help="runs of each setting (each a new process)")
    parser.add_argument("--no-embed", action="store_true", help="no vectors (a machine without the embedder)")
    parser.add_argument("--tokenizer-dir", type=Path, help="all-MiniLM-L6-v2's tokenizer files (with --no-embed)")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--run", nargs=2, metavar=("HOME", "DOC_ID"), help=argparse.SUPPRESS)
    parser.add_argument("--off", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.run:  # one run, in its own process
        print(json.dumps(one_run(args, args.run[0], args.run[1], preload=not args.off)))
        return 0
    home, doc_id = make_library(args)
    rows = []
    for round_ in range(args.rounds):
        for off in (False, True):
            command = [sys.executable, "-m", "lab.bench.first_answer_core", "--model", str(args.model),
                       "--budget", args.budget, "--threads", str(args.threads), "--wait", str(args.wait),
                       "--out", str(args.out), "--run", home, doc_id, *(["--off"] if off else [])]  # fmt: skip
            launched = time.monotonic()
            done = subprocess.run(command, capture_output=True, text=True)
            if done.returncode != 0:
                rows.append({"round": round_, "load_model_at_start": not off, "error": done.stderr[-2000:]})
            else:
                row = json.loads(done.stdout.strip().splitlines()[-1])
                rows.append({"round": round_, "process_s": round(time.monotonic() - launched, 2), **row})
            print(json.dumps(rows[-1]), flush=True)
    result = {"how": "the window's jobs without Qt (lab.bench.first_answer_core)", "model": Path(args.model).name,
              "budget": args.budget, "threads": args.threads, "wait_s": args.wait, "question": QUESTION,
              "cpu": os.cpu_count(), "runs": rows}  # fmt: skip
    write_json(args.out / "first-answer-after-open-core.json", result, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

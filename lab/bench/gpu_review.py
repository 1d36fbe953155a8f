"""Contract review on an NVIDIA GPU (issue 13, "Measure and report"): the 41 CUAD items of one
~20-page contract with a random-weight Llama-3.1-8B-shaped Q4_K_M model planned at 12 GiB,
(a) batched as ``pagewise review`` runs them, (b) one item at a time, (c) evidence only (CPU).

Here, once (no LLM): the contract's library, packed without vectors. The embedding model is not
on the GPU machine and is too large to carry (87 MiB), so retrieval is BM25 only in every run
(``--vectors`` packs a hybrid library for CPU runs here). Default contract:
../shared/fixtures/contracts/distributor-17p.pdf, 17 pages (the fixtures nearest 20 pages have
17), 10,458 Llama-3 tokens: one reading of the whole contract at the plan's 16K context
(license-17p.pdf would need two: its text has 6,824 non-breaking spaces, 17,742 tokens):

    python -m lab.bench.gpu_review prepare --library build/review-library.tgz

On the device machine, with carry [".device", "build/review-library.tgz"]: at most ~5 minutes
after the llama.cpp build (the model file ~20 s, two loads, each model run stopped at 120 s),
so a cold build (~275 s) and the runs fit one 10-minute call:

    bash .device/build_llama.sh && export PYTHONPATH=/tmp/site:$PWD:$PYTHONPATH &&
    python3 -m lab.bench.gpu_review run --out $OUT --library build/review-library.tgz --limit-s 120

Output: $OUT/review_bench.jsonl, three lines (runs evidence, batched, single), and a markdown
table on stdout. Smoke test on this CPU (SmolLM2; ~13 minutes on 2 busy cores; at budget 0 the
planner runs one sequence, so batched and single are the same plan):

    python -m lab.bench.gpu_review prepare --library /tmp/small.tgz \
        --contract tests/fixtures/contracts/endorsement-8p.pdf
    python -m lab.bench.gpu_review run --out /tmp/review-out --library /tmp/small.tgz \
        --model SMOLLM2.gguf --budget 0 --items 3 --single-items 2 --threads 2

``run`` unpacks the library into a fresh data folder, finds every item's evidence without a model
(``evidence``), writes the random-weight GGUF (``--shape``, once, to /tmp/models) unless
``--model`` names one, and reviews with the model through ``summarizer.review.item_answers.
review_with_model`` as ``pagewise review --fresh`` does: ``batched`` with the plan of ``pagewise
review`` (``max_parallel`` left to the planner: at 12 GiB, all 33 layers, f16 KV, 16K context,
a batch context planned for 4 sequences of 8,704 tokens, into which ``run_batch`` fits 3 of a
whole-contract reading), ``single`` with ``max_parallel=1`` (one sequence: the items one after
another). Random weights never stop: each reply should run to the product's cap
(``REPLY_TOKENS``, 160) and end as ``error`` (its JSON cut short), which the token counts show;
the grammar still holds the JSON structure. ``--limit-s`` stops a model run after that many
seconds (the finished readings are counted and the time per reading is projected to the whole
checklist); ``--single-items`` asks the single run fewer items. Each line holds wall seconds
(loading apart), the statuses, prompt and generated tokens, the plan, the batch context's log
lines, and GPU memory by NVML (peak used minus the idle GPU's, and the raw numbers).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shutil
import sys
import threading
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

from inference.cancel import Cancelled, CancelToken
from inference.engines.engine import Completion, Engine, Prompt, ResultCallback
from lab.bench.library_pack import fresh_home, gpu_memory, pack_library, unpack_library

ROOT = Path(__file__).resolve().parents[2]

DEFAULT_CONTRACT = ROOT.parent / "shared" / "fixtures" / "contracts" / "distributor-17p.pdf"
GIB = 2**30


class CountingEngine:
    """Passes every call to ``engine``; keeps each reply of ``generate_batch`` and the seconds spent in it."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.replies: list[Completion] = []
        self.batches = 0
        self.prompts = 0
        self.seconds = 0.0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.engine, name)

    def generate_batch(
        self, prompts: Sequence[Prompt], *, on_result: ResultCallback | None = None, **kwargs: Any
    ) -> list[Completion]:
        self.batches += 1
        self.prompts += len(prompts)
        seen: set[int] = set()

        def counted(index: int, completion: Completion) -> None:
            if index not in seen:
                seen.add(index)
                self.replies.append(completion)
            if on_result is not None:
                on_result(index, completion)

        started = time.perf_counter()
        try:
            done = self.engine.generate_batch(prompts, on_result=counted, **kwargs)
        finally:
            self.seconds += time.perf_counter() - started
        for index, completion in enumerate(done):  # an engine that did not report them one by one
            if index not in seen:
                seen.add(index)
                self.replies.append(completion)
        return done


def prepare(contract: Path, library_tgz: Path, vectors: bool) -> dict[str, Any]:
    """Ingest ``contract`` into an empty data folder and pack the folder into ``library_tgz``."""
    from summarizer.library.ingest import IngestOptions, ingest_path
    from summarizer.library.storage.store import Library

    home = fresh_home("review-library-")
    try:
        with Library.open(home / "library.sqlite") as library:
            result = ingest_path(library, contract, IngestOptions(embed=vectors))
        pack_library(home, library_tgz)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    return {"doc_id": result.doc_id, "pages": result.pages, "passages": result.passages, "vectors": vectors}


def statuses(items: Sequence[Any]) -> dict[str, int]:
    return dict(Counter(str(item.status) for item in items))


def evidence_run(library: Any, doc_id: str, checklist: Any) -> dict[str, Any]:
    from summarizer.review.evidence import review_evidence

    started = time.perf_counter()
    (review,) = review_evidence(library, [doc_id], checklist)
    wall = time.perf_counter() - started
    return {
        "wall_s": round(wall, 3),
        "items": len(review.items),
        "s_per_item": round(wall / max(1, len(review.items)), 4),
        "with_evidence": sum(bool(item.evidence) for item in review.items),
        "mean_passages_consulted": round(sum(item.passages_read for item in review.items) / len(review.items), 1),
        "statuses": statuses(review.items),
    }


def token_report(replies: Sequence[Completion], cap: int) -> dict[str, Any]:
    generated = [c.stats.completion_tokens for c in replies]
    prompt = [c.stats.prompt_tokens for c in replies]
    return {
        "readings": len(replies),  # one per item and reading unit asked (the whole contract: one unit)
        "prompt_tokens": sum(prompt),
        "max_prompt_tokens": max(prompt, default=0),
        "generated_tokens": sum(generated),
        "mean_generated": round(sum(generated) / len(generated), 1) if generated else 0,
        "max_generated": max(generated, default=0),
        "reply_cap": cap,
        "stop_reasons": dict(Counter(c.stats.stop_reason for c in replies)),
    }


def time_review(
    library: Any, engine: Engine, doc_id: str, checklist: Any, label: str, limit_s: float = 0.0
) -> dict[str, Any]:
    """Review ``doc_id`` afresh with ``engine``, stopped after ``limit_s`` seconds (0: never)."""
    from summarizer.review.item_answers import REPLY_TOKENS, review_with_model, stored_review

    counting = CountingEngine(engine)
    token = CancelToken()
    timer = threading.Timer(limit_s, token.cancel) if limit_s > 0 else None
    stopped = False
    started = time.perf_counter()
    if timer is not None:
        timer.start()
    try:
        (review,) = review_with_model(
            library, cast(Engine, counting), [doc_id], checklist, cancel=token, model=f"bench-{label}", fresh=True
        )
        counts = statuses(review.items)
        errors = [{"item": item.category, "reason": item.reason} for item in review.items if item.status == "error"]
    except Cancelled:
        errors = []
        stopped = True
        shown = stored_review(library, doc_id, checklist, model=f"bench-{label}")  # None: nothing stored yet
        counts = statuses(shown.items) if shown is not None else {"pending": len(checklist.items)}
    finally:
        if timer is not None:
            timer.cancel()
    wall = time.perf_counter() - started
    replies = len(counting.replies)
    row: dict[str, Any] = {
        "wall_s": round(wall, 2),
        "engine_s": round(counting.seconds, 2),
        "items": len(checklist.items),
        "stopped_at_limit": stopped,
        "statuses": counts,  # stopped: unfinished and not-found-yet items are "pending"
        "batches": counting.batches,
        "prompts": counting.prompts,
        "s_per_reading": round(wall / replies, 3) if replies else None,
        "s_per_item": None if stopped else round(wall / max(1, len(checklist.items)), 3),
        **token_report(counting.replies, REPLY_TOKENS),
        "errors": errors,  # each error item and its reason
        "json_closed": sum(bool(getattr(c.stats, "json_closed", False)) for c in counting.replies),
    }
    return row


def plan_report(plan: Any, parallel: int) -> dict[str, Any]:
    from inference.planning.plan import summary_line

    return {
        "plan_summary": summary_line(plan),
        "parallel": parallel,
        "n_ctx": plan.n_ctx,
        "n_gpu_layers": plan.n_gpu_layers,
        "type_k": plan.type_k,
        "flash_attn": plan.flash_attn,
        "n_ubatch": plan.n_ubatch,
        "n_seq_max": plan.n_seq_max,
        "batch_n_ctx": plan.batch_n_ctx,
        "batch_kv": plan.batch_kv,
        "predicted_gib": round(plan.predicted.total / GIB, 3),
        "predicted_batch_gib": round(plan.predicted_batch_bytes / GIB, 3),
    }


def model_run(args: argparse.Namespace, library: Any, doc_id: str, checklist: Any, label: str) -> dict[str, Any]:
    """Plan (``max_parallel`` None for ``batched``, 1 for ``single``), load, review, measure."""
    from inference.engines.local import LocalEngine
    from inference.planning.gpu_budget import parse_budget
    from inference.planning.job_time import ANSWER
    from inference.telemetry import GpuTelemetry
    from summarizer.llm.local_model import plan_local_model

    try:
        plan, parallel = plan_local_model(
            args.model_path,
            n_threads=args.threads,
            budget=parse_budget(args.budget),
            max_parallel=1 if label == "single" else None,
            job=ANSWER,
        )
    except Exception as error:  # recorded in the row: the other runs still go
        return {"items": len(checklist.items), "error": f"{type(error).__name__}: {error}"}
    row: dict[str, Any] = plan_report(plan, parallel)
    engine = LocalEngine()
    gpu = GpuTelemetry(interval_s=0.05, pids=lambda: (os.getpid(), engine.worker_pid))
    gpu.mark_baseline()  # NVML's "used" counts the driver's reserve on an idle GPU
    gpu.start()
    try:
        started = time.perf_counter()
        engine.load(plan)
        row["load_s"] = round(time.perf_counter() - started, 2)
        row.update(time_review(library, engine, doc_id, checklist, label, args.limit_s))
    except Exception as error:  # recorded in the row: the other runs still go
        row.update(items=len(checklist.items), error=f"{type(error).__name__}: {error}")
    finally:
        log = Path(engine.log_path).read_text(encoding="utf-8", errors="replace").splitlines()
        row["batch_log"] = [line for line in log if line.startswith("[pagewise] batch")][:6]
        if "error" in row:
            row["log_tail"] = log[-15:]
        engine.close()
        gpu.stop()
    row.update(gpu_memory(gpu))
    gpu.close()
    return row


def project(row: dict[str, Any], full_items: int) -> None:
    """The time for the whole checklist when fewer items were done: per item, or (stopped at the
    limit) per reading, which is per item when the whole contract is one reading."""
    per_item = row.get("s_per_item") or row.get("s_per_reading")
    if per_item and (row["stopped_at_limit"] or row["items"] < full_items):
        row["projected_full_checklist_s"] = round(per_item * full_items, 1)


def run(args: argparse.Namespace) -> int:
    from summarizer.library.storage.store import Library
    from summarizer.review.checklist import load_checklist

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    home = unpack_library(args.library, "review-bench-")
    full = load_checklist("cuad")
    checklist = dataclasses.replace(full, items=full.items[: args.items])
    runs = args.runs.split(",")
    setup: dict[str, Any] = {}
    if any(r in ("batched", "single") for r in runs):
        if args.model:
            args.model_path = Path(args.model)
            setup["model"] = args.model_path.name
        else:
            from lab.bench.gpu_offload import model_file

            started = time.perf_counter()
            args.model_path = model_file(args.shape)
            setup.update(model=f"random {args.shape} Q4_K_M", model_write_s=round(time.perf_counter() - started, 1))
    rows = []
    with Library.open() as library:
        (record,) = library.documents()
        setup.update(
            contract=Path(record.path).name,
            pages=record.pages,
            passages=record.passages,
            vectors=library.embedding_model is not None,
            budget=args.budget,
            threads=args.threads,
            checklist=f"{full.name} {full.version}",
        )
        for label in runs:
            if label == "evidence":
                row = evidence_run(library, record.doc_id, checklist)
            else:
                items = checklist
                if label == "single" and args.single_items:
                    items = dataclasses.replace(checklist, items=checklist.items[: args.single_items])
                row = model_run(args, library, record.doc_id, items, label)
                project(row, len(checklist.items))
            row = {"run": label, **row, **setup}
            rows.append(row)
            with (out / "review_bench.jsonl").open("a") as handle:
                handle.write(json.dumps(row) + "\n")
            print(json.dumps(row), flush=True)
    shutil.rmtree(home, ignore_errors=True)
    print(table(rows))
    return 0


def table(rows: Sequence[dict[str, Any]]) -> str:
    lines = [
        "| run | items | readings | wall s | s/item | answered / not found / error | generated tok (mean) "
        "| peak MiB | plan |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        s = r.get("statuses", {})
        counts = f"{s.get('answered', 0)} / {s.get('not_found', 0)} / {s.get('error', 0)}"
        cells = [
            r["run"],
            r["items"],
            r.get("readings", "-"),
            r.get("wall_s", r.get("error")),
            r.get("s_per_item") or r.get("s_per_reading"),
            counts if r["run"] != "evidence" else "-",
            r.get("mean_generated", "-"),
            r.get("peak_mib", "-"),
            r.get("plan_summary", "CPU, no model"),
        ]
        lines.append("| " + " | ".join(str(c) for c in cells) + " |")
    return "\n".join(lines)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("prepare", help="ingest the contract here and pack its library")
    p.add_argument("--contract", type=Path, default=DEFAULT_CONTRACT)
    p.add_argument("--library", type=Path, default=ROOT / "build" / "review-library.tgz")
    p.add_argument(
        "--vectors", action="store_true", help="embed the passages (needs the embedding model where it runs)"
    )
    p = sub.add_parser("run", help="time the review runs")
    p.add_argument("--out", default=os.environ.get("OUT", "."))
    p.add_argument("--library", type=Path, default=ROOT / "build" / "review-library.tgz")
    p.add_argument("--model", help="a GGUF file (default: a random-weight one of --shape)")
    p.add_argument("--shape", default="llama-3.1-8b")
    p.add_argument("--budget", default="12GiB", help="GPU memory budget (0: CPU only)")
    p.add_argument("--threads", type=int, default=8)
    p.add_argument("--items", type=int, default=41, help="the first N items of the CUAD checklist")
    p.add_argument("--single-items", type=int, default=0, help="fewer items for the single run (0: --items)")
    p.add_argument("--limit-s", type=float, default=0.0, help="stop each model run after S seconds (0: never)")
    p.add_argument("--runs", default="evidence,batched,single", help="comma-separated: evidence, batched, single")
    args = parser.parse_args(argv)
    if args.command == "run":
        unknown = set(args.runs.split(",")) - {"evidence", "batched", "single"}
        if unknown:
            parser.error(f"unknown runs: {', '.join(sorted(unknown))}")
        if args.items < 1 or args.single_items < 0:
            parser.error("--items must be at least 1 and --single-items not negative")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.command == "prepare":
        print(json.dumps(prepare(args.contract, args.library, args.vectors)))
        return 0
    return run(args)


if __name__ == "__main__":
    sys.exit(main())

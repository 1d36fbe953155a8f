"""Hierarchical compression and follow-up latency on an NVIDIA GPU (issue 4, "Measure on the GPU").

A random-weight 8B-shaped model (scripts.random_gguf) at a 12 GiB budget compresses a synthetic
document of ``--segments`` segments of ``--segment-tokens`` tokens (default 125 x 8K = 1M tokens),
sequentially (parallel 1) and batched (the plan's parallelism, or ``--parallel``), through the
real code path: ``summarizer.summaries.compress.compress`` on a ``LocalEngine``. Random weights never emit
EOS, so every summary runs to its full ``--summary-tokens``: the worst case for decode.

Reported per run: wall time, segments/min, prefill and decode tok/s (from the engine's stats),
and the share of the wall time spent inside engine calls (model compute + the worker pipe) as
opposed to the summarizer's own work (segmenting, prompts, the store). Then the time to first
token of a follow-up question with prefix reuse (same document prefix) and without (the cache
evicted by an unrelated prompt first).

Usage on the device machine (after the llama.cpp CUDA build, as for gpu_planner_bench.py):

    python3 -m lab.bench.gpu_compress --out $OUT [--shape llama-3.1-8b] [--segments 125]
        [--parallel 16] [--sequential-segments 16]

``--sequential-segments`` limits the sequential run (its rate is extrapolated to all segments) to
save device time. Results: $OUT/compress_bench.json and a markdown table on stdout.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from inference.cancel import NEVER_CANCELLED, CancelToken
from inference.engines.engine import Completion, Engine, Piece, Prompt, ResultCallback, collect
from inference.progress import ProgressCallback, no_progress

WORDS = (
    "the supplier shall deliver goods to the purchaser within thirty days of each purchase order and "
    "the purchaser shall pay every invoice in full within sixty days unless the parties agree otherwise in writing"
).split()


class TimedEngine:
    """Wraps an engine and adds up the seconds spent inside its calls."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.seconds = 0.0
        self.completions: list[Completion] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.engine, name)

    def generate(self, prompt: Prompt, **kwargs: Any) -> Iterator[Piece]:
        started = time.perf_counter()
        pieces = list(self.engine.generate(prompt, **kwargs))
        self.seconds += time.perf_counter() - started
        self.completions.append(collect(pieces))
        return iter(pieces)

    def generate_batch(
        self,
        prompts: Sequence[Prompt],
        *,
        cancel: CancelToken = NEVER_CANCELLED,
        progress: ProgressCallback = no_progress,
        on_result: ResultCallback | None = None,
        **kwargs: Any,
    ) -> list[Completion]:
        """Times the engine alone: the caller's ``on_result`` (storing a summary) is not counted."""
        started = time.perf_counter()
        outside = 0.0

        def timed_result(index: int, completion: Completion) -> None:
            nonlocal outside
            self.completions.append(completion)
            if on_result is not None:
                callback_started = time.perf_counter()
                on_result(index, completion)
                outside += time.perf_counter() - callback_started

        done = self.engine.generate_batch(prompts, cancel=cancel, progress=progress, on_result=timed_result, **kwargs)
        self.seconds += time.perf_counter() - started - outside
        return done


def synthetic_document(library: Any, n_tokens: int, engine: Engine, title: str) -> str:
    """A document of about ``n_tokens`` model tokens: 40 pages per 8K tokens, 150-word passages."""
    import hashlib

    from summarizer.library.storage.store import now_iso, transaction

    per_word = max(1.0, engine.count_tokens(" ".join(WORDS)) / len(WORDS))
    n_words = int(n_tokens / per_word)
    words_per_page = 400
    n_pages = max(1, n_words // words_per_page)
    doc_id = hashlib.sha256(f"{title}{n_tokens}".encode()).hexdigest()[:12]
    now = now_iso()
    with transaction(library.db):
        library.db.execute(
            "INSERT INTO documents (doc_id, path, title, pages, content_sha256, status, state, pages_done, "
            "added_at, updated_at) VALUES (?, ?, ?, ?, ?, 'indexed', 'ready', ?, ?, ?)",
            [doc_id, f"/synthetic/{doc_id}.pdf", title, n_pages, doc_id * 5, n_pages, now, now],
        )
        seq = 0
        for page in range(1, n_pages + 1):
            words = [WORDS[(page * 7 + i) % len(WORDS)] for i in range(words_per_page)]
            words[3] = f"clause{page}"
            text = " ".join(words)
            library.db.execute("INSERT INTO pages (doc_id, page, text) VALUES (?, ?, ?)", [doc_id, page, text])
            offset = 0
            for first in range(0, words_per_page, 150):
                chunk = " ".join(words[first : first + 150])
                start = text.index(chunk, offset)
                end = start + len(chunk)
                library.db.execute(
                    "INSERT INTO passages (doc_id, seq, text, search_text, spans, page_start, page_end, n_tokens) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    [doc_id, seq, chunk, chunk, json.dumps([[page, start, end]]), page, page, 150],
                )
                offset, seq = end, seq + 1
    return doc_id


BATCH_DONE = re.compile(
    r"\[pagewise\] batch done: prefill (\d+) tokens in ([\d.]+) s .*decode (\d+) tokens in ([\d.]+) s"
)


def batch_totals(log_path: str, skip_lines: int) -> dict[str, float]:
    """Prefill and decode tokens and seconds of the batches logged after line ``skip_lines``."""
    totals = {"prefill_tokens": 0.0, "prefill_s": 0.0, "decode_tokens": 0.0, "decode_s": 0.0}
    with open(log_path, encoding="utf-8", errors="replace") as log:
        for line in log.read().splitlines()[skip_lines:]:
            match = BATCH_DONE.search(line)
            if match:
                totals["prefill_tokens"] += int(match[1])
                totals["prefill_s"] += float(match[2])
                totals["decode_tokens"] += int(match[3])
                totals["decode_s"] += float(match[4])
    return totals


def log_lines(log_path: str) -> int:
    with open(log_path, encoding="utf-8", errors="replace") as log:
        return len(log.read().splitlines())


def forced_width(model_path: Path, n_ctx: int, budget: int, width: int) -> tuple[Any, int]:
    """The summary plan with the most GPU layers that leave room for ``width`` sequences (the
    planner's own search, without its choice of width: for sweeping widths)."""
    import dataclasses

    from inference.errors import PlanError
    from inference.planning.batch_plan import with_batch_context
    from inference.planning.gguf_info import read_gguf_info
    from inference.planning.job_time import SUMMARY, local_speeds, plan_for_job
    from inference.planning.memory_model import PlannerOptions
    from inference.planning.policy import Overrides, plan
    from summarizer.llm.local_model import batch_sequence_tokens

    info = read_gguf_info(model_path)
    main = plan_for_job(info, budget, n_ctx, job=SUMMARY, speeds=local_speeds()).plan
    options = PlannerOptions(n_batch=main.n_batch, n_ubatch=main.n_ubatch)
    for layers in range(main.n_gpu_layers, 0, -1):
        try:
            single = plan(info, budget, n_ctx, Overrides(n_gpu_layers=layers, kv_type=main.type_k), options)
        except PlanError:
            continue
        if width == 1:
            return dataclasses.replace(single, n_seq_max=1), 1
        chosen, got = with_batch_context(single, info, budget, batch_sequence_tokens(single.n_ctx), width, (width,))
        if got == width:
            return chosen, width
    raise SystemExit(f"no plan runs {width} sequences in the budget")


def run_compress(library: Any, model: Any, doc_id: str, params: Any, parallel: int, label: str) -> dict[str, Any]:
    from summarizer.summaries.compress import compress

    library.db.execute("DELETE FROM summaries WHERE doc_id = ?", [doc_id])
    log_start = log_lines(model.engine.log_path)
    timed = TimedEngine(model.engine)
    started = time.perf_counter()
    result = compress(library, timed, doc_id, model_sha256=model.sha256, params=params, parallel=parallel)  # type: ignore[arg-type]
    wall = time.perf_counter() - started
    segments = len(result.segments)
    maps = timed.completions[:segments]
    prefill = [c.stats.prefill_tok_s for c in maps if c.stats.prefill_tok_s]
    decode_tokens = sum(c.stats.completion_tokens for c in timed.completions)
    row = {
        "run": label,
        "parallel": parallel,
        "segments": segments,
        "model_calls": result.stats.model_calls,
        "wall_s": round(wall, 2),
        "segments_per_min": round(segments / wall * 60, 2),
        "prompt_tokens": result.stats.prompt_tokens,
        "completion_tokens": decode_tokens,
        "prefill_tok_s_median": round(sorted(prefill)[len(prefill) // 2], 1) if prefill else None,
        "decode_tok_s_per_sequence": round(sum(c.stats.decode_tok_s for c in maps) / max(1, len(maps)), 1),
        "generated_tok_s_overall": round(decode_tokens / max(timed.seconds, 1e-9), 1),
        "engine_share": round(timed.seconds / wall, 4),
    }
    totals = batch_totals(model.engine.log_path, log_start)
    if totals["prefill_s"]:
        # Batched: the batch loop's own clock of its prefill and decode calls (map and reduce).
        row["batch_prefill_tok_s"] = round(totals["prefill_tokens"] / totals["prefill_s"], 1)
        row["batch_decode_tok_s_total"] = round(totals["decode_tokens"] / max(totals["decode_s"], 1e-9), 1)
        row["batch_prefill_s"] = round(totals["prefill_s"], 2)
        row["batch_decode_s"] = round(totals["decode_s"], 2)
    print(json.dumps(row), flush=True)
    return row


def follow_up_ttft(library: Any, model: Any, doc_id: str, summary: str) -> dict[str, Any]:
    from summarizer.answers.answer import AnswerOptions, ask

    options = AnswerOptions(use_vectors=False, answer_tokens=32, whole_document=False)
    summaries = {doc_id: summary}
    ask(
        library, model.engine, "clause3 payment terms", doc_ids=[doc_id], super_summaries=summaries, options=options
    ).run()
    warm = ask(
        library, model.engine, "clause9 delivery", doc_ids=[doc_id], super_summaries=summaries, options=options
    ).run()
    model.engine.complete("An unrelated prompt that evicts the cached prefix. " * 20, max_tokens=1)
    cold = ask(
        library, model.engine, "clause9 delivery", doc_ids=[doc_id], super_summaries=summaries, options=options
    ).run()
    return {
        "prompt_tokens": warm.stats.prompt_tokens,
        "ttft_s_with_prefix_reuse": round(warm.stats.ttft_s, 4),
        "cached_tokens_with_reuse": warm.stats.cached_tokens,
        "ttft_s_without_reuse": round(cold.stats.ttft_s, 4),
        "cached_tokens_without_reuse": cold.stats.cached_tokens,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=os.environ.get("OUT", "."))
    parser.add_argument("--shape", default="llama-3.1-8b")
    parser.add_argument("--model", help="an existing GGUF instead of writing a random one")
    parser.add_argument("--budget", default="12GiB")
    parser.add_argument("--segments", type=int, default=125)
    parser.add_argument("--segment-tokens", type=int, default=8192)
    parser.add_argument("--summary-tokens", type=int, default=256)
    parser.add_argument("--super-tokens", type=int, default=512)
    parser.add_argument("--parallel", type=int, help="sequences at once (default: what the plan leaves room for)")
    parser.add_argument("--sequential-segments", type=int, default=16, help="segments in the sequential run (0: skip)")
    parser.add_argument("--ctx", type=int, help="the main context (default: a segment, its summary and prompts)")
    parser.add_argument("--batch-ubatch", type=int, help="override the planned micro-batch of the batch context")
    parser.add_argument("--batch-kv", choices=("f16", "q8_0", "q4_0"), help="override the batch context's KV type")
    parser.add_argument(
        "--mixed", action="store_true", help="decode tokens ride in prefill steps (one unified KV cache)"
    )
    parser.add_argument(
        "--width", type=int, help="exactly this many sequences, with the most GPU layers that leave room for them"
    )
    parser.add_argument("--no-follow-up", action="store_true", help="skip the follow-up question's TTFT")
    parser.add_argument("--tag", default="", help="results go to compress_bench[_TAG].json")
    args = parser.parse_args()

    from inference.engines.local import LocalEngine
    from inference.planning.gpu_budget import parse_budget
    from inference.planning.job_time import SUMMARY
    from scripts.random_gguf import write_random_gguf
    from summarizer.library.storage.store import Library
    from summarizer.llm.local_model import LocalModel, plan_local_model, summary_context_tokens
    from summarizer.llm.model_identity import model_sha256
    from summarizer.summaries.tree import SummaryParams

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="compress-bench-"))
    os.environ["PAGEWISE_HOME"] = str(work)
    model_path = Path(args.model) if args.model else write_random_gguf(args.shape, work / f"{args.shape}.gguf")
    n_ctx = args.ctx or summary_context_tokens(args.segment_tokens, args.summary_tokens)  # what `summarize` plans
    params = SummaryParams(args.segment_tokens, args.summary_tokens, args.super_tokens)
    report: dict[str, Any] = {"shape": args.shape, "budget": args.budget, "segment_tokens": args.segment_tokens}
    from inference.telemetry import GpuTelemetry

    gpu = GpuTelemetry(interval_s=0.05)
    gpu.mark_baseline()
    gpu.start()
    if args.width:
        chosen, parallel = forced_width(model_path, n_ctx, parse_budget(args.budget), args.width)
    else:
        chosen, parallel = plan_local_model(
            model_path, n_ctx=n_ctx, budget=parse_budget(args.budget), max_parallel=args.parallel, job=SUMMARY
        )
    report["plan_notes"] = list(chosen.notes)
    overrides: dict[str, Any] = {}
    if args.batch_ubatch:
        overrides["batch_n_ubatch"] = args.batch_ubatch
    if args.batch_kv:
        overrides["batch_kv_type"] = args.batch_kv
    if args.mixed:
        overrides["batch_mixed"] = True
    if overrides:
        import dataclasses

        chosen = dataclasses.replace(chosen, **overrides)
        report["overrides"] = overrides
    engine = LocalEngine()
    engine.load(chosen)
    with (
        Library.open(work / "library.sqlite") as library,
        LocalModel(engine, chosen, model_sha256(library, model_path), parallel) as model,
    ):
        report["plan"] = model.plan.to_json()
        report["parallel"] = model.parallel
        print(
            f"plan: {model.plan.n_gpu_layers} GPU layers, ctx {model.plan.n_ctx}, KV {model.plan.type_k}, "
            f"parallel {model.parallel}, batch KV {model.plan.batch_kv}, batch micro-batch "
            f"{model.plan.batch_n_ubatch or model.plan.n_ubatch}, batch ctx {model.plan.batch_n_ctx}",
            flush=True,
        )
        runs = []
        if args.sequential_segments:
            small = synthetic_document(library, args.sequential_segments * args.segment_tokens, model.engine, "seq")
            runs.append(run_compress(library, model, small, params, 1, "sequential"))
        doc = synthetic_document(library, args.segments * args.segment_tokens, model.engine, "full")
        batched = run_compress(library, model, doc, params, model.parallel, "batched")
        runs.append(batched)
        report["runs"] = runs
        from summarizer.summaries.compress import cached_summary

        summary = cached_summary(library, doc, model_sha256=model.sha256, params=params)
        if not args.no_follow_up:
            text = summary.super_summary.text if summary else ""
            report["follow_up"] = follow_up_ttft(library, model, doc, text)
    gpu.stop()
    if gpu.available and gpu.baseline_used_bytes is not None:
        plan_json = report["plan"]
        predicted = plan_json["predicted"]["total"] + plan_json.get("predicted_batch_bytes", 0)
        measured = gpu.peak_used_bytes - gpu.baseline_used_bytes
        report["memory"] = {
            "predicted_with_batch_bytes": predicted,
            "measured_peak_bytes": measured,
            "error_fraction_of_budget": round((predicted - measured) / parse_budget(args.budget), 4),
        }
        mib = 2**20
        print(f"GPU memory with the batch context: predicted {predicted / mib:.0f} MiB, measured {measured / mib:.0f}")
    gpu.close()
    (out / f"compress_bench{'_' + args.tag if args.tag else ''}.json").write_text(json.dumps(report, indent=2))
    print(
        "\n| run | parallel | segments | wall s | segments/min | prefill tok/s | decode tok/s per seq. | engine share |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for r in report["runs"]:
        print(
            f"| {r['run']} | {r['parallel']} | {r['segments']} | {r['wall_s']} | {r['segments_per_min']} | "
            f"{r['prefill_tok_s_median']} | {r['decode_tok_s_per_sequence']} | {r['engine_share']:.1%} |"
        )
    f = report.get("follow_up")
    if not f:
        return 0
    print(
        f"\nFollow-up TTFT ({f['prompt_tokens']} prompt tokens): {f['ttft_s_with_prefix_reuse']} s with prefix reuse "
        f"({f['cached_tokens_with_reuse']} reused), {f['ttft_s_without_reuse']} s without."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

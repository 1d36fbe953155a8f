"""``pagewise bench``: load a model as planned and measure it.

Prefill and decode tokens/s and time to first token through the engine (the worker
process), the plan's predicted GPU memory against the peak NVML measured, and with
``--compare-raw`` the same decode through llama-cpp-python called directly, in the same
run (the engine's overhead).
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

from app.output import TerminalProgress, add_json_flag, emit_json
from inference.plan import Plan

# A prompt small models continue for a long time (EOS would cut the decode measurement).
_COUNTING = "Count from 1 to 2000, separated by commas: 1, 2, 3, 4, 5,"
_FILLER = "The committee reviewed the quarterly report and noted the figures in section four. "


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("bench", help="measure prefill and decode speed and peak VRAM of a model")
    parser.add_argument("--model", required=True, help="path of a .gguf model file")
    parser.add_argument("--budget", help="GPU memory budget, e.g. 12GiB (default: free VRAM minus a reserve)")
    parser.add_argument("--ctx", type=int, help="context length to plan for (tokens)")
    parser.add_argument("--prompt-tokens", type=int, default=512, help="prompt length for prefill (default 512)")
    parser.add_argument("--gen-tokens", type=int, default=128, help="tokens to generate (default 128)")
    parser.add_argument("--threads", type=int, help="CPU threads (default: half the logical CPUs)")
    parser.add_argument(
        "--compare-raw", action="store_true", help="also time llama-cpp-python directly (engine overhead)"
    )
    add_json_flag(parser)
    parser.set_defaults(handler=run)


def make_plan(model: str, budget_text: str | None, ctx: int | None, threads: int | None) -> Any:
    """The planner's plan for ``model`` (CPU-only when there is no GPU budget)."""
    from dataclasses import replace

    from inference.gguf_info import read_gguf_info
    from inference.planner import auto_budget, parse_budget, plan

    info = read_gguf_info(model)
    budget = parse_budget(budget_text) if budget_text else auto_budget()
    chosen = plan(info, budget, ctx)
    return replace(chosen, n_threads=threads) if threads else chosen


def _prompt(engine: Any, n_tokens: int, nonce: str) -> str:
    """A raw prompt of about ``n_tokens`` tokens ending with the counting task."""
    text = f"[{nonce}] "
    per_filler = max(1, engine.count_tokens(_FILLER))
    repeats = max(0, (n_tokens - engine.count_tokens(text + _COUNTING)) // per_filler)
    return str(text + _FILLER * repeats + _COUNTING)


def _raw_decode_rate(plan: Plan, prompt: str, n_tokens: int) -> dict[str, float]:
    """Decode tokens/s of llama-cpp-python's own loop with the same parameters."""
    import llama_cpp

    llm = llama_cpp.Llama(**plan.llama_kwargs(), verbose=False)
    try:
        tokens = llm.tokenize(prompt.encode("utf-8"), add_bos=True, special=True)
        generated = 0
        first_at = 0.0
        for _ in llm.generate(tokens, temp=0.0, repeat_penalty=1.0):
            if generated == 0:
                first_at = time.perf_counter()
            generated += 1
            if generated >= n_tokens:
                break
        ended = time.perf_counter()
    finally:
        llm.close()
    rate = (generated - 1) / (ended - first_at) if generated > 1 and ended > first_at else 0.0
    return {"decode_tok_s": rate, "completion_tokens": float(generated)}


def run(args: argparse.Namespace) -> int:
    from inference.engine import collect
    from inference.local_engine import LocalEngine
    from inference.planner import calibrate, summary_line
    from inference.telemetry import GpuTelemetry

    plan = make_plan(args.model, args.budget, args.ctx, args.threads)
    if args.prompt_tokens + args.gen_tokens + 16 > plan.n_ctx:
        from inference.errors import PlanError

        raise PlanError(
            f"--prompt-tokens {args.prompt_tokens} and --gen-tokens {args.gen_tokens} do not fit the "
            f"planned context of {plan.n_ctx} tokens. Lower them or pass a larger --ctx."
        )
    progress = TerminalProgress(not args.json)
    engine = LocalEngine()
    gpu = GpuTelemetry(pids=lambda: (os.getpid(), engine.worker_pid), interval_s=0.25)
    try:
        gpu.mark_baseline()
        gpu.start()
        report = engine.load(plan, progress)
        progress.close()
        # Warm-up (first graph build, caches), then a measured run on a prompt with no cached prefix.
        collect(engine.generate(_prompt(engine, 64, "warm-up"), max_tokens=4))
        prompt = _prompt(engine, args.prompt_tokens, f"bench {time.time():.0f}")
        result = collect(engine.generate(prompt, max_tokens=args.gen_tokens))
        time.sleep(0.3)  # one more telemetry sample at the peak
        log_text = ""
        try:
            with open(engine.log_path, encoding="utf-8", errors="replace") as log:
                log_text = log.read()
        except OSError:
            pass
    finally:
        engine.close()
        gpu.stop()
    baseline = gpu.baseline_used_bytes
    measured_peak: int | None = None
    if gpu.available:
        measured_peak = gpu.peak_app_bytes or (gpu.peak_used_bytes - baseline if baseline is not None else None)
    calibration = calibrate(plan, log_text, measured_peak)
    raw: dict[str, float] | None = None
    if args.compare_raw:
        raw = _raw_decode_rate(plan, prompt, args.gen_tokens)
    gpu.close()

    stats = result.stats
    output: dict[str, Any] = {
        "model": args.model,
        "plan": plan.to_json(),
        "plan_summary": summary_line(plan),
        "backend": report.backend,
        "load_s": round(report.load_s, 3),
        "prompt_tokens": stats.prompt_tokens,
        "completion_tokens": stats.completion_tokens,
        "prefill_tok_s": round(stats.prefill_tok_s, 2),
        "decode_tok_s": round(stats.decode_tok_s, 2),
        "ttft_s": round(stats.ttft_s, 4),
        "predicted_gpu_bytes": plan.predicted.total,
        "measured_peak_gpu_bytes": measured_peak,
        "gpu_baseline_used_bytes": baseline,
        "gpu_peak_used_bytes": gpu.peak_used_bytes if gpu.available else None,
        "gpu": gpu.name or None,
        "calibration": calibration.to_json(),
        "raw_decode_tok_s": round(raw["decode_tok_s"], 2) if raw else None,
        "engine_vs_raw": round(stats.decode_tok_s / raw["decode_tok_s"], 3) if raw and raw["decode_tok_s"] else None,
    }
    if args.json:
        emit_json(output)
        return 0
    gib = 1024**3
    print(summary_line(plan))
    print(
        f"prefill {output['prefill_tok_s']:.0f} tok/s ({stats.prompt_tokens} tokens) · "
        f"decode {output['decode_tok_s']:.1f} tok/s ({stats.completion_tokens} tokens) · "
        f"TTFT {stats.ttft_s * 1000:.0f} ms · backend {report.backend}"
    )
    if measured_peak is not None:
        print(
            f"GPU memory: predicted {plan.predicted.total / gib:.2f} GiB, measured peak {measured_peak / gib:.2f} GiB"
        )
    else:
        print(f"GPU memory: predicted {plan.predicted.total / gib:.2f} GiB, not measured ({gpu.reason})")
    if raw:
        print(
            f"llama-cpp-python directly: decode {raw['decode_tok_s']:.1f} tok/s "
            f"(engine/raw = {output['engine_vs_raw']})"
        )
    return 0

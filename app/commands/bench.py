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

from app.services.output import TerminalProgress, add_json_flag, emit_json
from inference.planning.plan import Plan

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
    parser.add_argument(
        "--ubatch", type=int, help="micro-batch size (n_batch = n_ubatch; default: the planner's choice)"
    )
    parser.add_argument("--rounds", type=int, default=3, help="measured generations per side (median; default 3)")
    add_json_flag(parser)
    parser.set_defaults(handler=run)


def make_plan(
    model: str,
    budget_text: str | None,
    ctx: int | None,
    threads: int | None,
    ubatch: int | None = None,
    job: Any = None,
) -> Any:
    """The planner's plan for ``model`` (CPU-only when there is no GPU budget), for ``job``
    (an ``inference.planning.job_time.Job``; default: an answer) unless ``ubatch`` fixes the micro-batch."""
    from dataclasses import replace

    from inference.planning.gguf_info import read_gguf_info
    from inference.planning.gpu_budget import default_budget, parse_budget
    from inference.planning.job_time import ANSWER, local_speeds, plan_for_job
    from inference.planning.memory_model import PlannerOptions
    from inference.planning.policy import Overrides, plan

    info = read_gguf_info(model)
    budget = parse_budget(budget_text) if budget_text else default_budget()[0]
    if ubatch:
        chosen = plan(info, budget, ctx, options=PlannerOptions(n_batch=ubatch, n_ubatch=ubatch))
    else:
        chosen = plan_for_job(info, budget, ctx, Overrides(), job or ANSWER, local_speeds()).plan
    return replace(chosen, n_threads=threads) if threads else chosen


def _prompt(engine: Any, n_tokens: int, nonce: str) -> str:
    """A raw prompt of about ``n_tokens`` tokens ending with the counting task."""
    text = f"[{nonce}] "
    per_filler = max(1, engine.count_tokens(_FILLER))
    repeats = max(0, (n_tokens - engine.count_tokens(text + _COUNTING)) // per_filler)
    return str(text + _FILLER * repeats + _COUNTING)


def _raw_child(kwargs: dict[str, Any], prompt: str, n_tokens: int, rounds: int, conn: Any) -> None:
    """In a child process, ``rounds`` times: prefill tokens/s of one ``eval()`` of the whole
    prompt, and decode tokens/s of llama-cpp-python's own loop."""
    try:
        import llama_cpp

        llm = llama_cpp.Llama(**kwargs, verbose=False)
        rates: list[float] = []
        prefill_rates: list[float] = []
        try:
            tokens = llm.tokenize(prompt.encode("utf-8"), add_bos=True, special=True)
            for round_index in range(rounds + 1):  # round 0 warms up (graph build, caches)
                llm.reset()  # type: ignore[no-untyped-call]
                started = time.perf_counter()
                llm.eval(tokens)  # reads the last token's logits: waits for the GPU
                if round_index:
                    prefill_rates.append(len(tokens) / (time.perf_counter() - started))
                llm.reset()  # type: ignore[no-untyped-call]
                generated = 0
                first_at = 0.0
                for _ in llm.generate(tokens, temp=0.0, repeat_penalty=1.0, reset=True):
                    if generated == 0:
                        first_at = time.perf_counter()
                    generated += 1
                    if generated >= (4 if round_index == 0 else n_tokens):
                        break
                ended = time.perf_counter()
                if round_index and generated > 1 and ended > first_at:
                    rates.append((generated - 1) / (ended - first_at))
        finally:
            llm.close()
        conn.send(("ok", (rates, prefill_rates)))
    except BaseException as error:  # reported to the parent, which keeps running
        conn.send(("error", f"{type(error).__name__}: {error}"))


def _raw_decode_rate(plan: Plan, prompt: str, n_tokens: int, rounds: int) -> dict[str, Any]:
    """llama-cpp-python called directly with the plan's parameters, in a process of its own (a
    crash there, or CUDA state it leaves behind, cannot touch this process or the engine's)."""
    import multiprocessing
    import statistics

    context = multiprocessing.get_context("spawn")
    parent, child = context.Pipe(duplex=False)
    process = context.Process(target=_raw_child, args=(plan.llama_kwargs(), prompt, n_tokens, rounds, child))
    process.start()
    child.close()
    try:
        kind, value = parent.recv()
    except EOFError:
        process.join()
        return {"error": f"llama-cpp-python's process ended with exit code {process.exitcode} before reporting."}
    process.join()
    if kind != "ok" or not value[0]:
        return {"error": str(value if kind != "ok" else "no tokens were generated")}
    rates, prefill_rates = value
    return {
        "decode_tok_s": statistics.median(rates),
        "rounds": [round(r, 2) for r in rates],
        "prefill_tok_s": statistics.median(prefill_rates),
        "prefill_rounds": [round(r, 2) for r in prefill_rates],
    }


def run(args: argparse.Namespace) -> int:
    from inference.engines.engine import collect
    from inference.engines.local import LocalEngine
    from inference.planning.calibration import calibrate
    from inference.planning.gguf_info import read_gguf_info
    from inference.planning.job_time import Job, local_speeds, predict_rates
    from inference.planning.plan import summary_line
    from inference.telemetry import GpuTelemetry

    job = Job("bench", args.prompt_tokens, args.gen_tokens)
    plan = make_plan(args.model, args.budget, args.ctx, args.threads, args.ubatch, job)
    predicted = predict_rates(read_gguf_info(args.model), plan, local_speeds()) if plan.n_gpu_layers else None
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
        results = []
        for round_index in range(max(1, args.rounds)):
            if round_index:  # evict the cached prompt so every round prefills it in full
                collect(engine.generate(_prompt(engine, 32, f"evict {round_index}"), max_tokens=1))
            results.append(collect(engine.generate(prompt, max_tokens=args.gen_tokens)))
        results.sort(key=lambda r: r.stats.decode_tok_s)
        result = results[len(results) // 2]  # the median round
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
    gpu.close()
    raw: dict[str, Any] | None = None
    if args.compare_raw:
        raw = _raw_decode_rate(plan, prompt, args.gen_tokens, max(1, args.rounds))
    raw_rate = float(raw["decode_tok_s"]) if raw and "decode_tok_s" in raw else 0.0
    raw_prefill = float(raw["prefill_tok_s"]) if raw and "prefill_tok_s" in raw else 0.0

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
        "decode_tok_s_rounds": [round(r.stats.decode_tok_s, 2) for r in results],
        "raw_decode_tok_s": round(raw_rate, 2) if raw_rate else None,
        "raw_decode_tok_s_rounds": raw.get("rounds") if raw else None,
        "raw_error": raw.get("error") if raw else None,
        "engine_vs_raw": round(stats.decode_tok_s / raw_rate, 3) if raw_rate else None,
        "prefill_tok_s_rounds": [round(r.stats.prefill_tok_s, 2) for r in results],
        "predicted_prefill_tok_s": round(predicted.prefill_tok_s, 1) if predicted else None,
        "predicted_decode_tok_s": round(predicted.decode_tok_s, 2) if predicted else None,
        "raw_prefill_tok_s": round(raw_prefill, 2) if raw_prefill else None,
        "raw_prefill_tok_s_rounds": raw.get("prefill_rounds") if raw else None,
        "prefill_vs_raw": round(stats.prefill_tok_s / raw_prefill, 3) if raw_prefill else None,
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
    if raw_rate:
        print(
            f"llama-cpp-python directly: prefill {raw_prefill:.0f} tok/s (engine/raw = {output['prefill_vs_raw']}) · "
            f"decode {raw_rate:.1f} tok/s (engine/raw = {output['engine_vs_raw']})"
        )
    elif raw:
        print(f"llama-cpp-python directly: not measured ({raw.get('error')})")
    return 0

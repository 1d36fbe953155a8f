"""Offloaded layers on an NVIDIA GPU (the offload-speed issue): prefill against raw llama.cpp,
cancel time per placement, and a pruned sweep of the configurations a 32B summary can run in.

Run on the device machine after the CUDA build (see ../shared/device/README.md):

    bash .device/build_llama.sh && export PYTHONPATH=/tmp/site:$PWD:$PYTHONPATH &&
    python3 -m lab.bench.gpu_offload --out $OUT ttft --shape qwen2.5-32b --ctx 8192 --prompts 478,3000
    python3 -m lab.bench.gpu_offload --out $OUT cancel
    python3 -m lab.bench.gpu_offload --out $OUT sweep --shape qwen2.5-32b --ctx 8192

Random-weight GGUFs of the real shapes (scripts.random_gguf) are written once to /tmp/models.

* ``ttft``: ``pagewise bench --compare-raw --json`` for each prompt length (and each
  ``--ubatches`` micro-batch, default the planner's): the engine's prefill and time to first
  token against one ``eval()`` of the whole prompt through llama-cpp-python in the same placement.
* ``cancel``: the time from a cancel to the engine's ``Cancelled``, during a long prefill, for
  each placement: partial offload (32B at 12 GiB, micro-batches 512 and 2,048), all on the GPU
  (8B), and CPU only (8B, 0 layers).
* ``sweep``: raw llama-cpp-python, one process per configuration: layers (the most that fit for
  each micro-batch and KV type by the planner's memory model, and 3 fewer) x ``n_ubatch``
  512/1,024/2,048 x KV q8_0/q4_0: prefill rate of an 8K prompt, decode rate, peak memory, and the
  time of one 8K summary (8,192 prompt tokens + 256 generated) derived from them.
Each phase appends rows to OUT/offload_<phase>.jsonl as they are measured.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
MODELS = Path("/tmp/models")
GIB = 1024**3


def model_file(shape: str) -> Path:
    from scripts.random_gguf import write_random_gguf

    MODELS.mkdir(exist_ok=True)
    path = MODELS / f"{shape}.gguf"
    if not path.exists():
        started = time.perf_counter()
        write_random_gguf(shape, path)
        print(f"wrote {path} in {time.perf_counter() - started:.0f} s", flush=True)
    return path


def append(out: Path, phase: str, row: dict[str, Any]) -> None:
    with (out / f"offload_{phase}.jsonl").open("a") as f:
        f.write(json.dumps(row) + "\n")
    print(json.dumps(row), flush=True)


def ttft(args: argparse.Namespace, out: Path) -> None:
    model = model_file(args.shape)
    for ubatch in [int(u) for u in args.ubatches.split(",")] if args.ubatches else [0]:
        for n in [int(p) for p in args.prompts.split(",")]:
            cmd = [
                sys.executable, "-m", "app.cli", "bench", "--model", str(model), "--budget", args.budget,
                "--ctx", str(args.ctx), "--prompt-tokens", str(n), "--gen-tokens", str(args.gen_tokens),
                "--rounds", str(args.rounds), "--threads", str(args.threads), "--compare-raw", "--json",
            ]  # fmt: skip
            if ubatch:
                cmd += ["--ubatch", str(ubatch)]
            started = time.perf_counter()
            done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
            if done.returncode != 0:
                append(out, "ttft", {"shape": args.shape, "prompt": n, "ubatch": ubatch, "error": done.stderr[-2000:]})
                continue
            result = json.loads(done.stdout)
            plan = result["plan"]
            append(
                out,
                "ttft",
                {
                    "shape": args.shape,
                    "ctx": args.ctx,
                    "prompt_tokens": result["prompt_tokens"],
                    "n_gpu_layers": plan["n_gpu_layers"],
                    "kv": plan["type_k"],
                    "n_ubatch": plan["n_ubatch"],
                    "ttft_s": result["ttft_s"],
                    "prefill_tok_s": result["prefill_tok_s"],
                    "raw_prefill_tok_s": result["raw_prefill_tok_s"],
                    "prefill_vs_raw": result["prefill_vs_raw"],
                    "decode_tok_s": result["decode_tok_s"],
                    "raw_decode_tok_s": result["raw_decode_tok_s"],
                    "predicted_gib": round(result["predicted_gpu_bytes"] / GIB, 3),
                    "peak_gib": round((result["measured_peak_gpu_bytes"] or 0) / GIB, 3),
                    "wall_s": round(time.perf_counter() - started, 1),
                    "plan_summary": result["plan_summary"],
                },
            )


def _cancel_once(plan: Any, prompt_words: int, after_s: float) -> dict[str, Any]:
    from inference.cancel import Cancelled, CancelToken
    from inference.engines.engine import collect
    from inference.engines.local import LocalEngine

    with LocalEngine() as engine:
        engine.load(plan)
        collect(engine.generate("warm up " * 20, max_tokens=2))
        prompt = "the parties agree to the terms below " * (prompt_words // 7)
        token = CancelToken()
        cancelled_at: list[float] = []

        def fire() -> None:
            cancelled_at.append(time.perf_counter())
            token.cancel()

        timer = threading.Timer(after_s, fire)
        started = time.perf_counter()
        timer.start()
        outcome = "finished"
        try:
            collect(engine.generate(prompt, max_tokens=4, cancel=token))
        except Cancelled:
            outcome = "cancelled"
        ended = time.perf_counter()
        timer.cancel()
        again_started = time.perf_counter()
        collect(engine.generate("still there?", max_tokens=2))
        return {
            "outcome": outcome,
            "cancel_latency_s": round(ended - cancelled_at[0], 3) if cancelled_at else None,
            "ran_s": round(ended - started, 3),
            "next_request_s": round(time.perf_counter() - again_started, 3),
        }


def cancel(args: argparse.Namespace, out: Path) -> None:
    from dataclasses import replace

    from app.commands.bench import make_plan

    cases = [
        ("partial offload, 32B at 12 GiB, n_ubatch 512", "qwen2.5-32b", 8192, 512, None),
        ("partial offload, 32B at 12 GiB, n_ubatch 2048", "qwen2.5-32b", 8192, 2048, None),
        ("all on the GPU, 8B, n_ubatch 512", "llama-3.1-8b", 16384, 512, None),
        ("all on the GPU, 8B, n_ubatch 2048", "llama-3.1-8b", 16384, 2048, None),
        ("CPU only, 8B, n_ubatch 512", "llama-3.1-8b", 8192, 512, 0),
    ]
    for label, shape, ctx, ubatch, layers in cases:
        plan = make_plan(str(model_file(shape)), args.budget, ctx, args.threads, ubatch)
        if layers is not None:
            plan = replace(plan, n_gpu_layers=layers)
        row = {"placement": label, "n_gpu_layers": plan.n_gpu_layers, "n_ubatch": plan.n_ubatch}
        try:
            row.update(_cancel_once(plan, 6000, args.cancel_after))
        except Exception as error:  # reported in the table, the other cases still run
            row["error"] = f"{type(error).__name__}: {error}"
        append(out, "cancel", row)


def _sweep_child(cfg: dict[str, Any]) -> dict[str, Any]:
    import llama_cpp

    llm = llama_cpp.Llama(**cfg["kwargs"], verbose=False)
    try:
        tokens = [int(t) % 1000 + 100 for t in range(cfg["prompt"])]
        llm.eval(tokens[:64])
        llm.reset()  # type: ignore[no-untyped-call]
        started = time.perf_counter()
        llm.eval(tokens)
        prefill = len(tokens) / (time.perf_counter() - started)
        generated = 0
        started = time.perf_counter()
        for _ in llm.generate(
            tokens, temp=0.0, repeat_penalty=1.0, reset=True
        ):  # the prompt is cached: one token re-read
            generated += 1
            if generated == 1:
                started = time.perf_counter()
            if generated >= cfg["gen"]:
                break
        decode = (generated - 1) / (time.perf_counter() - started)
    finally:
        llm.close()
    return {"prefill_tok_s": round(prefill, 1), "decode_tok_s": round(decode, 2)}


def sweep(args: argparse.Namespace, out: Path) -> None:
    from dataclasses import replace

    from inference.planning.gguf_info import read_gguf_info
    from inference.planning.gpu_budget import parse_budget
    from inference.planning.memory_model import Config, PlannerOptions, estimate
    from inference.telemetry import GpuTelemetry

    path = model_file(args.shape)
    info = read_gguf_info(str(path))
    budget = parse_budget(args.budget)
    rows = []
    for ubatch in [int(u) for u in args.ubatches.split(",")]:
        options = PlannerOptions(n_batch=ubatch, n_ubatch=ubatch)
        for kv in args.kvs.split(","):
            most = max(
                (g for g in range(1, info.n_layers + 2)
                 if estimate(info, Config(g, args.ctx, kv, True, 1), options).total <= budget),
                default=0,
            )  # fmt: skip
            for layers in sorted({most, max(1, most - 3)}, reverse=True):
                rows.append((ubatch, kv, layers, estimate(info, Config(layers, args.ctx, kv, True, 1), options).total))
    from app.commands.bench import make_plan

    base = make_plan(str(path), args.budget, args.ctx, args.threads)
    for ubatch, kv, layers, predicted in rows:
        plan = replace(base, n_gpu_layers=layers, type_k=kv, type_v=kv, n_batch=ubatch, n_ubatch=ubatch)
        cfg = {"kwargs": plan.llama_kwargs(), "prompt": args.summary_prompt, "gen": args.sweep_gen}
        gpu = GpuTelemetry(interval_s=0.05)
        gpu.mark_baseline()
        gpu.start()
        code = (
            "import json,sys; "
            "from lab.bench.gpu_offload import _sweep_child; "
            "print(json.dumps(_sweep_child(json.loads(sys.argv[1]))))"
        )
        done = subprocess.run([sys.executable, "-c", code, json.dumps(cfg)], capture_output=True, text=True, cwd=ROOT)
        gpu.stop()
        peak = gpu.peak_used_bytes - (gpu.baseline_used_bytes or 0) if gpu.available else None
        gpu.close()
        row: dict[str, Any] = {
            "shape": args.shape, "ctx": args.ctx, "n_ubatch": ubatch, "kv": kv, "n_gpu_layers": layers,
            "predicted_gib": round(predicted / GIB, 3), "peak_gib": round(peak / GIB, 3) if peak else None,
        }  # fmt: skip
        if done.returncode != 0:
            row["error"] = done.stderr[-800:]
        else:
            row.update(json.loads(done.stdout.strip().splitlines()[-1]))
            row["summary_s"] = round(
                args.summary_prompt / row["prefill_tok_s"] + args.summary_gen / row["decode_tok_s"], 1
            )
        append(out, "sweep", row)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=os.environ.get("OUT", "."))
    parser.add_argument("--budget", default="12GiB")
    parser.add_argument("--threads", type=int, default=8)
    sub = parser.add_subparsers(dest="phase", required=True)
    p = sub.add_parser("ttft")
    p.add_argument("--shape", default="qwen2.5-32b")
    p.add_argument("--ctx", type=int, default=8192)
    p.add_argument("--prompts", default="478,3000")
    p.add_argument("--ubatches", default="", help="comma-separated micro-batch sizes (default: the planner's)")
    p.add_argument("--gen-tokens", type=int, default=32)
    p.add_argument("--rounds", type=int, default=2)
    p = sub.add_parser("cancel")
    p.add_argument("--cancel-after", type=float, default=1.5)
    p = sub.add_parser("sweep")
    p.add_argument("--shape", default="qwen2.5-32b")
    p.add_argument("--ctx", type=int, default=8192)
    p.add_argument("--summary-prompt", type=int, default=7936)
    p.add_argument("--summary-gen", type=int, default=256)
    p.add_argument("--sweep-gen", type=int, default=24, help="tokens decoded to measure the decode rate")
    p.add_argument("--ubatches", default="512,1024,2048")
    p.add_argument("--kvs", default="q8_0,q4_0")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    {"ttft": ttft, "cancel": cancel, "sweep": sweep}[args.phase](args, out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

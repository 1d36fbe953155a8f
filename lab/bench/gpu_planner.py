"""Planner accuracy and planner-choice measurements on an NVIDIA GPU (the device machine).

For each random-weight model shape (scripts.random_gguf.GPU_SHAPES) and context (8K/32K/128K)
at a 12 GiB budget:

* accuracy: load the planner's plan in a fresh process; the parent samples NVML device memory at
  ~100 Hz; measured peak = max(device used) - used before the process started (so the CUDA
  context counts, as it does for a user). Also records llama.cpp's reported buffers.
* choice: for each KV type x flash attention (f16/no-FA, f16/FA, q8_0/FA, q4_0/FA) the largest
  layer count the planner's arithmetic says fits (and one less if that one measured over budget);
  decode tok/s of each; planner's tok/s / best tok/s among configurations that stayed in budget.

Rows go to OUT/results.jsonl as they are measured (partial runs keep what they measured).
``--report results.jsonl`` turns them into the markdown tables of docs/gpu-planner-tables.md.

Usage on the device machine (see shared/device/README.md):
    bash .device/build_llama.sh && export PYTHONPATH=/tmp/site:$PWD:$PYTHONPATH &&
    python3 -m lab.bench.gpu_planner --out $OUT --shapes qwen2.5-7b,llama-3.1-8b
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import subprocess
import sys
import tarfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

GIB = 1024**3
MIB = 1024**2
GGML_TYPE = {"f16": 1, "q4_0": 2, "q8_0": 8}


# -- worker: one configuration in a fresh process ---------------------------------------------


def worker(cfg: dict[str, Any]) -> dict[str, Any]:
    import llama_cpp
    from llama_cpp import _internals

    from inference.llama_log import capture_llama_logs, cpu_tensor_overrides, expert_layers_pattern

    keep: list[Any] = []
    if cfg.get("n_cpu_moe"):
        overrides = cpu_tensor_overrides([expert_layers_pattern(range(cfg["n_cpu_moe"]))])
        keep.append(overrides)
        original = llama_cpp.llama_model_load_from_file

        def load_with_overrides(path: bytes, params: Any) -> Any:
            params.tensor_buft_overrides = overrides.pointer
            return original(path, params)

        _internals.llama_cpp.llama_model_load_from_file = load_with_overrides  # type: ignore[attr-defined]

    result: dict[str, Any] = {}
    t0 = time.perf_counter()
    with capture_llama_logs() as cap:
        llm = llama_cpp.Llama(
            cfg["model"],
            n_gpu_layers=cfg["n_gpu_layers"],
            n_ctx=cfg["n_ctx"],
            n_batch=512,
            n_ubatch=512,
            type_k=GGML_TYPE[cfg["kv"]],
            type_v=GGML_TYPE[cfg["kv"]],
            flash_attn=cfg["flash_attn"],
            swa_full=False,
            n_threads=cfg.get("n_threads", 16),
            n_threads_batch=cfg.get("n_threads", 16),
            verbose=True,
        )
        result["load_s"] = time.perf_counter() - t0
        n_vocab = llm.n_vocab()
        n_prompt = min(512, cfg["n_ctx"] // 2)
        prompt = [(i * 7919) % (n_vocab - 300) + 200 for i in range(n_prompt)]
        t_start = time.perf_counter()
        times: list[float] = []
        for i, _tok in enumerate(llm.generate(prompt, top_k=1, temp=0.0, reset=True)):
            times.append(time.perf_counter())
            if i + 1 >= cfg.get("n_decode", 33):
                break
        result["ttft_s"] = times[0] - t_start
        result["prefill_tok_s"] = len(prompt) / result["ttft_s"]
        result["decode_tok_s"] = (len(times) - 1) / (times[-1] - times[0]) if len(times) > 1 else None
        del llm
    buffers = cap.buffers()
    result["reported"] = buffers.to_json()
    result["reported_gpu_model"] = buffers.gpu_model
    result["reported_gpu_kv"] = buffers.gpu_kv
    result["reported_gpu_compute"] = buffers.gpu_compute
    return result


# -- parent: NVML sampling ----------------------------------------------------------------------


class Sampler:
    def __init__(self) -> None:
        import pynvml

        pynvml.nvmlInit()
        self.nvml = pynvml
        self.handle = pynvml.nvmlDeviceGetHandleByIndex(0)
        self.peak = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def used(self) -> int:
        return int(self.nvml.nvmlDeviceGetMemoryInfo(self.handle).used)

    def start(self) -> None:
        self.peak = self.used()
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, self.used())
            time.sleep(0.01)

    def stop(self) -> int:
        self._stop.set()
        if self._thread:
            self._thread.join()
        return self.peak


def measure(sampler: Sampler, cfg: dict[str, Any], timeout: float = 240) -> dict[str, Any]:
    time.sleep(0.3)
    baseline = sampler.used()
    sampler.start()
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "lab.bench.gpu_planner", "--worker", json.dumps(cfg)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        peak = sampler.stop()
    except subprocess.TimeoutExpired:
        sampler.stop()
        return {"ok": False, "error": "timeout", "baseline": baseline}
    row: dict[str, Any] = {"baseline": baseline, "measured_peak": peak - baseline, "wall_s": time.perf_counter() - t0}
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode == 0 and lines:
        row.update(json.loads(lines[-1]))
        row["ok"] = True
    else:
        row["ok"] = False
        row["error"] = (proc.stderr or proc.stdout)[-1500:]
    return row


# -- orchestration ------------------------------------------------------------------------------


def find_vocab_dir() -> str:
    for d in glob.glob("/tmp/llama_cpp_python-*/vendor/llama.cpp/models"):
        if Path(d, "ggml-vocab-qwen2.gguf").exists():
            return d
    tars = glob.glob(str(ROOT / ".device" / "llama_cpp_python-*-trim.tar.gz"))
    out = Path("/tmp/pagewise-vocab")
    out.mkdir(exist_ok=True)
    if tars:
        with tarfile.open(tars[0]) as tf:
            for m in tf.getmembers():
                if m.name.endswith((".gguf",)) and "/models/ggml-vocab-" in m.name:
                    m.name = Path(m.name).name
                    tf.extract(m, out)
    return str(out)


def sweep_configs(info: Any, budget: int, ctx: int) -> list[dict[str, Any]]:
    from inference.planning.memory_model import Config, PlannerOptions, estimate

    out = []
    for kv, fa in (("f16", False), ("f16", True), ("q8_0", True), ("q4_0", True)):
        for g in range(info.n_layers + 1, -1, -1):
            e = estimate(info, Config(g, ctx, kv, fa), PlannerOptions())  # type: ignore[arg-type]
            if e.total <= budget:
                out.append({"n_gpu_layers": g, "kv": kv, "flash_attn": fa, "n_cpu_moe": 0, "predicted_total": e.total})
                break
        if info.is_moe and fa:
            for k in range(1, info.n_layers + 1):
                e = estimate(info, Config(info.n_layers + 1, ctx, kv, fa, n_cpu_moe=k), PlannerOptions())  # type: ignore[arg-type]
                if e.total <= budget:
                    out.append(
                        {
                            "n_gpu_layers": info.n_layers + 1,
                            "kv": kv,
                            "flash_attn": fa,
                            "n_cpu_moe": k,
                            "predicted_total": e.total,
                        }
                    )
                    break
    return out


def run_bench(args: argparse.Namespace) -> None:
    from inference.planning.gguf_info import read_gguf_info
    from inference.planning.gpu_budget import parse_budget
    from inference.planning.memory_model import PlannerOptions
    from inference.planning.plan import summary_line
    from inference.planning.policy import plan
    from scripts.random_gguf import write_random_gguf

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    results = out / "results.jsonl"
    budget = parse_budget(args.budget)
    vocab_dir = find_vocab_dir()
    os.environ["PAGEWISE_VOCAB_DIR"] = vocab_dir
    sampler = Sampler()
    deadline = time.monotonic() + args.deadline_s
    models = Path(args.models_dir)
    models.mkdir(parents=True, exist_ok=True)
    options = PlannerOptions(cpu_moe=True)
    sweep_ctx = {int(c) for c in args.sweep_ctx.split(",") if c}
    sweep_shapes = {c for c in args.sweep_shapes.split(",") if c}

    def emit(row: dict[str, Any]) -> None:
        with results.open("a") as fh:
            fh.write(json.dumps(row) + "\n")
        print(
            json.dumps(
                {
                    k: row.get(k)
                    for k in (
                        "shape",
                        "ctx",
                        "role",
                        "n_gpu_layers",
                        "kv",
                        "flash_attn",
                        "predicted_total",
                        "measured_peak",
                        "decode_tok_s",
                        "ok",
                    )
                }
            ),
            flush=True,
        )

    cases: dict[str, list[int]] = {}
    for case in (c for c in args.cases.split(",") if c):
        name, _, ctx_text = case.partition(":")
        cases.setdefault(name, []).append(int(ctx_text))
    for shape in list(cases) or args.shapes.split(","):
        if time.monotonic() > deadline:
            print(f"deadline reached before {shape}", flush=True)
            break
        path = models / f"{shape}.gguf"
        t0 = time.perf_counter()
        write_random_gguf(shape, path)
        info = read_gguf_info(path)
        print(f"wrote {shape}: {path.stat().st_size / GIB:.2f} GiB in {time.perf_counter() - t0:.1f} s", flush=True)
        for ctx in cases.get(shape) or [int(c) for c in args.ctx.split(",")]:
            if time.monotonic() > deadline:
                break
            try:
                p = plan(info, budget, ctx, options=options)
            except Exception as exc:  # PlanError: record it and go on
                emit(
                    {
                        "shape": shape,
                        "ctx": ctx,
                        "budget": budget,
                        "role": "planner",
                        "ok": False,
                        "error": f"plan failed: {exc}",
                        "n_gpu_layers": -1,
                        "kv": "",
                        "flash_attn": False,
                        "predicted_total": 0,
                    }
                )
                continue
            base = {
                "shape": shape,
                "ctx": ctx,
                "budget": budget,
                "model": str(path),
                "n_layers_total": info.n_layers + 1,
            }
            planner_cfg = {
                "n_gpu_layers": p.n_gpu_layers,
                "kv": p.type_k,
                "flash_attn": p.flash_attn,
                "n_cpu_moe": p.n_cpu_moe,
                "predicted_total": p.predicted.total,
            }
            configs = [("planner", planner_cfg)]
            if not args.no_sweep and (ctx in sweep_ctx or shape in sweep_shapes or not (sweep_ctx or sweep_shapes)):
                for c in sweep_configs(info, budget, p.n_ctx):
                    same = all(c[k] == planner_cfg[k] for k in ("n_gpu_layers", "kv", "flash_attn", "n_cpu_moe"))
                    if same:
                        c = planner_cfg
                    configs.append(("planner+sweep" if same else "sweep", c))
                configs = [
                    cf for cf in configs if not (cf[0] == "planner" and any(r == "planner+sweep" for r, _ in configs))
                ]
            for role, c in configs:
                if time.monotonic() > deadline:
                    break
                cfg = {**c, "model": str(path), "n_ctx": p.n_ctx, "n_decode": args.n_decode}
                row = {
                    **base,
                    "role": role,
                    **c,
                    "n_ctx": cfg["n_ctx"],
                    "plan_summary": summary_line(p),
                    "predicted": p.predicted.__class__.__name__
                    and {
                        "weights_gpu": p.predicted.weights_gpu,
                        "kv_cache": p.predicted.kv_cache,
                        "compute_buffers": p.predicted.compute_buffers,
                        "cuda_overhead": p.predicted.cuda_overhead,
                    }
                    if role.startswith("planner")
                    else None,
                }
                row.update(measure(sampler, cfg))
                emit(row)
                if role == "sweep" and row.get("ok") and row.get("measured_peak", 0) > budget and c["n_gpu_layers"] > 0:
                    lower = {**c, "n_gpu_layers": c["n_gpu_layers"] - 1}
                    row2 = {**base, "role": "sweep", **lower, "n_ctx": p.n_ctx}
                    row2.update(
                        measure(sampler, {**lower, "model": str(path), "n_ctx": p.n_ctx, "n_decode": args.n_decode})
                    )
                    emit(row2)
        path.unlink(missing_ok=True)


# -- report -----------------------------------------------------------------------------------


def report(path: str) -> str:
    rows = [json.loads(ln) for ln in Path(path).read_text().splitlines() if ln.strip()]
    lines = [
        "### Planner accuracy (12 GiB budget)",
        "",
        "| shape | ctx | plan | predicted MiB | measured peak MiB | error (% of budget) | peak ≤ budget | "
        "≥ 90% of budget (if partial) | llama.cpp buffers MiB (model/KV/compute) | other MiB |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    cases: dict[tuple[str, int], list[dict[str, Any]]] = {}
    for r in rows:
        cases.setdefault((r["shape"], r["ctx"]), []).append(r)
    n_ok = n_acc = n_fill = n_partial = n_cases = 0
    choice_lines = [
        "",
        "### Planner choice vs best measured configuration (decode tok/s after a 512-token prompt)",
        "",
        "| shape | ctx | planner config | planner tok/s | best config | best tok/s | fraction |",
        "|---|---|---|---|---|---|---|",
    ]
    fractions = []
    for (shape, ctx), rs in cases.items():
        budget = rs[0]["budget"]
        pl = next((r for r in rs if r["role"].startswith("planner")), None)
        if pl is None:
            continue
        n_cases += 1
        desc = f"{pl['n_gpu_layers']} layers, KV {pl['kv']}{', FA' if pl['flash_attn'] else ''}" + (
            f", experts of {pl['n_cpu_moe']} layers on CPU" if pl.get("n_cpu_moe") else ""
        )
        if not pl.get("ok"):
            lines.append(
                f"| {shape} | {ctx} | {desc} | {pl['predicted_total'] / MIB:.0f} | failed: "
                f"{str(pl.get('error', ''))[-80:].replace('|', '/')} | | | | | |"
            )
            continue
        meas = pl["measured_peak"]
        err = (pl["predicted_total"] - meas) / budget
        within = meas <= budget
        partial = pl["n_gpu_layers"] < pl["n_layers_total"] or bool(pl.get("n_cpu_moe"))
        fill = meas >= 0.9 * budget
        n_ok += within
        n_acc += abs(err) <= 0.03
        if partial:
            n_partial += 1
            n_fill += fill
        rep = "/".join(f"{pl[k] / MIB:.0f}" for k in ("reported_gpu_model", "reported_gpu_kv", "reported_gpu_compute"))
        other = (meas - pl["reported_gpu_model"] - pl["reported_gpu_kv"] - pl["reported_gpu_compute"]) / MIB
        lines.append(
            f"| {shape} | {ctx} | {desc} | {pl['predicted_total'] / MIB:.0f} | {meas / MIB:.0f} | {100 * err:+.1f} | "
            f"{'yes' if within else '**no**'} | {('yes' if fill else '**no**') if partial else 'n/a (fits)'} | "
            f"{rep} | {other:.0f} |"
        )
        valid = [r for r in rs if r.get("ok") and r.get("decode_tok_s") and r["measured_peak"] <= budget]
        swept = any(r["role"] != "planner" for r in rs)
        if swept and valid and pl.get("decode_tok_s"):
            best = max(valid, key=lambda r: r["decode_tok_s"])
            frac = pl["decode_tok_s"] / best["decode_tok_s"] if within else 0.0
            fractions.append(frac)
            bdesc = f"{best['n_gpu_layers']} layers, KV {best['kv']}{', FA' if best['flash_attn'] else ''}"
            choice_lines.append(
                f"| {shape} | {ctx} | {desc} | {pl['decode_tok_s']:.1f} | {bdesc} | "
                f"{best['decode_tok_s']:.1f} | {frac:.2f} |"
            )
    lines.append("")
    lines.append(
        f"Cases: {n_cases}; measured peak ≤ budget: {n_ok}/{n_cases}; |predicted − measured| ≤ 3% of budget: "
        f"{n_acc}/{n_cases}; measured ≥ 90% of budget where the model does not fit entirely: {n_fill}/{n_partial}."
    )
    if fractions:
        choice_lines.append("")
        choice_lines.append(
            f"Planner / best: mean {sum(fractions) / len(fractions):.3f}, min {min(fractions):.3f} "
            f"over {len(fractions)} cases; ≥ 0.95 in {sum(f >= 0.95 for f in fractions)}."
        )
    sweep = [
        "",
        "### All measured configurations",
        "",
        "| shape | ctx | role | layers | KV | FA | predicted MiB | measured MiB | decode tok/s | prefill tok/s |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        sweep.append(
            f"| {r['shape']} | {r['ctx']} | {r['role']} | {r['n_gpu_layers']} | {r['kv']} | "
            f"{'on' if r['flash_attn'] else 'off'} | "
            f"{r['predicted_total'] / MIB:.0f} | {r.get('measured_peak', 0) / MIB:.0f} | "
            f"{(r.get('decode_tok_s') or 0):.1f} | {(r.get('prefill_tok_s') or 0):.0f} |"
            if r.get("ok")
            else f"| {r['shape']} | {r['ctx']} | {r['role']} | {r['n_gpu_layers']} | {r['kv']} | "
            f"{'on' if r['flash_attn'] else 'off'} | "
            f"{r['predicted_total'] / MIB:.0f} | failed | | |"
        )
    return "\n".join(lines + choice_lines + sweep) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--report", help="print markdown tables for a results.jsonl")
    parser.add_argument("--posthoc", nargs="+", help="check the current planner against results.jsonl files")
    parser.add_argument("--out", default=os.environ.get("OUT", "bench-out"))
    parser.add_argument("--shapes", default="qwen2.5-7b,llama-3.1-8b,gemma-3-12b,qwen2.5-14b,qwen3-30b-a3b,qwen2.5-32b")
    parser.add_argument("--ctx", default="8192,32768,131072")
    parser.add_argument("--budget", default="12GiB")
    parser.add_argument("--models-dir", default="/tmp/pagewise-models")
    parser.add_argument("--n-decode", type=int, default=33)
    parser.add_argument("--deadline-s", type=float, default=480)
    parser.add_argument("--cases", default="", help="shape:ctx pairs, e.g. qwen2.5-32b:8192 (not --shapes/--ctx)")
    parser.add_argument("--no-sweep", action="store_true")
    parser.add_argument("--sweep-ctx", default="", help="sweep only these contexts (with --sweep-shapes: either)")
    parser.add_argument("--sweep-shapes", default="", help="sweep only these shapes (with --sweep-ctx: either)")
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(json.loads(args.worker))), flush=True)
        return 0
    if args.report:
        sys.stdout.write(report(args.report))
        return 0
    if args.posthoc:
        sys.stdout.write(posthoc(args.posthoc, args.budget))
        return 0
    run_bench(args)
    return 0


def posthoc(paths: list[str], budget_text: str = "12GiB") -> str:
    """The current planner's choices and predictions against configurations already measured.

    Measurements do not depend on the planner, so a configuration measured in any run can check
    a later planner's arithmetic; cases whose chosen configuration was never measured say so.
    """
    from inference.planning.gpu_budget import parse_budget
    from inference.planning.memory_model import Config, PlannerOptions, estimate
    from inference.planning.policy import plan
    from scripts.random_gguf import SHAPES, shape_info

    budget = parse_budget(budget_text)
    rows = [json.loads(ln) for p in paths for ln in Path(p).read_text().splitlines() if ln.strip()]
    rows = [r for r in rows if r.get("ok")]
    out = [
        "| shape | ctx | current plan | predicted MiB | measured MiB | error (% of budget) | decode tok/s "
        "| best measured tok/s |",
        "|---|---|---|---|---|---|---|---|",
    ]
    errors = []
    for shape in ("qwen2.5-7b", "llama-3.1-8b", "gemma-3-12b", "qwen2.5-14b", "qwen3-30b-a3b", "qwen2.5-32b"):
        info = shape_info(SHAPES[shape])
        for ctx in (8192, 32768, 131072):
            p = plan(info, budget, ctx, options=PlannerOptions(cpu_moe=True))
            desc = f"{p.n_gpu_layers} layers, KV {p.type_k}{', FA' if p.flash_attn else ''}" + (
                f", experts of {p.n_cpu_moe} layers on CPU" if p.n_cpu_moe else ""
            )
            same = [
                r
                for r in rows
                if r["shape"] == shape
                and r["n_ctx"] == p.n_ctx
                and r["n_gpu_layers"] == p.n_gpu_layers
                and r["kv"] == p.type_k
                and r["flash_attn"] == p.flash_attn
                and r.get("n_cpu_moe", 0) == p.n_cpu_moe
            ]
            case = [r for r in rows if r["shape"] == shape and r["n_ctx"] == p.n_ctx and r["measured_peak"] <= budget]
            best = max((r.get("decode_tok_s") or 0 for r in case), default=0)
            if not same:
                out.append(f"| {shape} | {ctx} | {desc} | {p.predicted.total / MIB:.0f} | not measured | | | |")
                continue
            r = same[0]
            e = estimate(
                info, Config(r["n_gpu_layers"], r["n_ctx"], r["kv"], r["flash_attn"], n_cpu_moe=r.get("n_cpu_moe", 0))
            )
            err = (e.total - r["measured_peak"]) / budget
            errors.append(err)
            out.append(
                f"| {shape} | {ctx} | {desc} | {e.total / MIB:.0f} | {r['measured_peak'] / MIB:.0f} | "
                f"{100 * err:+.1f} | "
                f"{(r.get('decode_tok_s') or 0):.1f} | {best:.1f} |"
            )
    all_errs = []
    for r in rows:
        info = shape_info(SHAPES[r["shape"]])
        config = Config(
            r["n_gpu_layers"],
            r["n_ctx"],
            r["kv"],
            r["flash_attn"],
            n_cpu_moe=r.get("n_cpu_moe", 0),
            gpu_ops=r["n_gpu_layers"] == 0,  # measured on a CUDA build
        )
        all_errs.append((estimate(info, config).total - r["measured_peak"]) / budget)
    out.append("")
    out.append(
        f"All {len(all_errs)} measured configurations against the current arithmetic: "
        "error (predicted − measured, % of "
        f"budget) from {100 * min(all_errs):+.1f} to {100 * max(all_errs):+.1f}; within ±3%: "
        f"{sum(abs(e) <= 0.03 for e in all_errs)}/{len(all_errs)}; under-predicted: {sum(e < 0 for e in all_errs)}."
    )
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    raise SystemExit(main())

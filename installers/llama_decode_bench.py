#!/usr/bin/env python3
"""Prefill and decode speed of one llama_cpp build, self-contained (it imports llama_cpp only).

    python llama_decode_bench.py MODEL.gguf --threads 2 [--prompt-tokens 256 --gen-tokens 64 --rounds 3]

Prints one JSON line: the build's system info, the threads, and the median round's prefill and
decode tokens/s. installers/bench_wine_decode.sh runs it with the Linux build natively and with the
MinGW build under Wine (the Windows Python of the Wine build, which has no project on its path),
with OpenMP's wait policy and the thread count varied, so the same code measures both sides.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("--threads", type=int, required=True)
    parser.add_argument("--prompt-tokens", type=int, default=256)
    parser.add_argument("--gen-tokens", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--label", default="")
    args = parser.parse_args(argv)

    import llama_cpp

    llm = llama_cpp.Llama(
        model_path=args.model,
        n_ctx=1024,
        n_threads=args.threads,
        n_threads_batch=args.threads,
        n_batch=512,
        verbose=False,
    )
    words = ("the parties agree that this contract shall be governed by the laws of the state " * 64).split()
    prompt_tokens = llm.tokenize(" ".join(words).encode())[: args.prompt_tokens]
    rounds = []
    for _ in range(max(1, args.rounds)):
        llm.reset()
        started = time.perf_counter()
        llm.eval(prompt_tokens)
        prefill_s = time.perf_counter() - started
        token = llm.sample(temp=0.0)
        started = time.perf_counter()
        for _ in range(args.gen_tokens):  # greedy, never stopped early: every round decodes as many
            llm.eval([token])
            token = llm.sample(temp=0.0)
        decode_s = time.perf_counter() - started
        rounds.append((len(prompt_tokens) / prefill_s, args.gen_tokens / decode_s))
    print(
        json.dumps(
            {
                "label": args.label,
                "platform": sys.platform,
                "threads": args.threads,
                "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY", ""),
                "system_info": llama_cpp.llama_print_system_info().decode(errors="replace").strip(),
                "prefill_tok_s": round(statistics.median(r[0] for r in rounds), 1),
                "decode_tok_s": round(statistics.median(r[1] for r in rounds), 2),
                "decode_tok_s_rounds": [round(r[1], 2) for r in rounds],
            }
        ),
        flush=True,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

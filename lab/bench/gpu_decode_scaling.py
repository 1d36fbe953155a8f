"""Why llama-server's decode hardly grows with its slots in the data room's review (issue 57): the
same random-weight model decoded with 1, 4 and 8 sequences at short and at whole-contract contexts,
by llama.cpp's own C++ loop (``llama-batched-bench``: no server, no HTTP, no Python) and through
``llama-server`` (N concurrent completions of a prompt of P tokens, each capped at G tokens).

If the C++ loop's total decode speed grows with the sequences at a short context but not at a
contract's 8-12K tokens, the review is bound by reading each sequence's KV cache (attention), not by
the server, its sampling or the client; if the C++ loop grows and the server does not, the server is.

    # on the GPU machine, after lab/bench/gpu_llama_server.sh (which builds llama-batched-bench too)
    PYTHONPATH=/tmp/site:$PWD python3 -m lab.bench.gpu_decode_scaling --out $OUT
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
import urllib.request
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

BIN = Path("/tmp/llama-bin")
# llama-batched-bench's table: |    PP |     TG |    B |   N_KV |   T_PP s | S_PP t/s |   T_TG s | S_TG t/s |
ROW = re.compile(r"^\|\s*(\d+)\s*\|\s*(\d+)\s*\|\s*(\d+)\s*\|\s*(\d+)\s*\|" + r"\s*([\d.]+)\s*\|" * 6)


def parse_batched_bench(text: str) -> list[dict[str, float]]:
    """The rows of llama-batched-bench's table: prompt and generated tokens a sequence, sequences,
    cells, prefill and decode time and speed (S_TG: all sequences' generated tokens per second)."""
    rows = []
    for line in text.splitlines():
        match = ROW.match(line.strip())
        if match:
            pp, tg, b, n_kv = (int(match.group(i)) for i in range(1, 5))
            t_pp, s_pp, t_tg, s_tg, t, s = (float(match.group(i)) for i in range(5, 11))
            rows.append({"pp": pp, "tg": tg, "sequences": b, "n_kv": n_kv, "t_pp_s": t_pp, "s_pp": s_pp,
                         "t_tg_s": t_tg, "s_tg": s_tg, "t_s": t, "s": s})  # fmt: skip
    return rows


def batched_bench(
    model: Path, prompts: Sequence[int], gen: int, sequences: Sequence[int], extra: Sequence[str]
) -> list[dict[str, Any]]:
    ctx = max(prompts) * max(sequences) + gen * max(sequences) + 256
    command = [
        str(BIN / "llama-batched-bench"), "-m", str(model), "-c", str(ctx), "-b", "2048", "-ub", "512",
        "-ngl", "999", "-fa", "on", "-npp", ",".join(map(str, prompts)), "-ntg", str(gen),
        "-npl", ",".join(map(str, sequences)), *extra,
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=400)
    rows = parse_batched_bench(done.stdout)
    if not rows:
        raise RuntimeError(f"llama-batched-bench gave no table (rc {done.returncode}): {done.stderr[-2000:]}")
    return [{**row, "extra": " ".join(extra)} for row in rows]


def completion(url: str, prompt: list[int], gen: int) -> dict[str, Any]:
    body = {"prompt": prompt, "n_predict": gen, "temperature": 0, "cache_prompt": False, "ignore_eos": True}
    request = urllib.request.Request(
        url + "/completion", json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=300) as response:
        reply: dict[str, Any] = json.loads(response.read())
    return reply


def server_decode(
    model: Path, prompts: Sequence[int], gen: int, sequences: Sequence[int], extra: Sequence[str], port: int, log: Path
) -> list[dict[str, Any]]:
    """N concurrent completions of P random token ids through llama-server with max(N) slots."""
    slots = max(sequences)
    ctx = (max(prompts) + gen + 64) * slots
    command = [
        str(BIN / "llama-server"), "-m", str(model), "--host", "127.0.0.1", "--port", str(port), "-c", str(ctx),
        "-np", str(slots), "-ngl", "999", "-fa", "on", "--no-kv-unified", "-t", "8", "--metrics", *extra,
    ]  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    rows = []
    with log.open("ab") as handle:
        process = subprocess.Popen(command, stdout=handle, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 180
            while True:
                try:
                    with urllib.request.urlopen(url + "/health", timeout=2) as response:
                        if response.status == 200:
                            break
                except OSError:
                    if process.poll() is not None or time.monotonic() > deadline:
                        raise RuntimeError(f"llama-server did not start: see {log}") from None
                    time.sleep(0.5)
            for p in prompts:
                for n in sequences:
                    token_lists = [[1000 + (i * 7919 + j * 104729) % 120000 for j in range(p)] for i in range(n)]
                    started = time.perf_counter()
                    with ThreadPoolExecutor(n) as pool:
                        replies = list(pool.map(lambda t: completion(url, t, gen), token_lists))
                    wall = time.perf_counter() - started
                    timings = [r.get("timings", {}) for r in replies]
                    predicted = sum(int(t.get("predicted_n", 0)) for t in timings)
                    decode_ms = max(float(t.get("predicted_ms", 0.0)) for t in timings)
                    rows.append({
                        "pp": p, "tg": gen, "sequences": n, "extra": " ".join(extra), "wall_s": round(wall, 2),
                        "predicted": predicted, "decode_s": round(decode_ms / 1000, 2),
                        "s_tg": round(predicted / (decode_ms / 1000), 1) if decode_ms else None,
                        "per_slot_tok_s": [round(float(t.get("predicted_per_second", 0.0)), 1) for t in timings],
                    })  # fmt: skip
                    print(json.dumps(rows[-1]), flush=True)
        finally:
            process.terminate()
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=os.environ.get("OUT", "."))
    parser.add_argument("--shape", default="llama-3.1-8b")
    parser.add_argument("--prompts", default="256,4096,12288", help="prompt tokens a sequence")
    parser.add_argument("--gen", type=int, default=128, help="tokens generated a sequence")
    parser.add_argument("--sequences", default="1,4,8")
    parser.add_argument(
        "--server-extras", default=";--cache-ram 0", help="';'-separated extra server arguments, one run each"
    )
    parser.add_argument("--port", type=int, default=8091)
    args = parser.parse_args(argv)
    from lab.bench.gpu_offload import model_file

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    model = model_file(args.shape)
    prompts = [int(p) for p in args.prompts.split(",")]
    sequences = [int(n) for n in args.sequences.split(",")]
    results: dict[str, Any] = {"shape": args.shape, "gen": args.gen}
    started = time.perf_counter()
    results["batched_bench"] = batched_bench(model, prompts, args.gen, sequences, [])
    results["batched_bench_unified"] = batched_bench(model, prompts, args.gen, sequences, ["-kvu"])
    print(json.dumps(results["batched_bench"]), flush=True)
    print(f"batched-bench {time.perf_counter() - started:.0f} s", flush=True)
    results["server"] = []
    for extra in args.server_extras.split(";"):
        results["server"] += server_decode(
            model, prompts, args.gen, sequences, extra.split(), args.port, out / "llama-server.log"
        )
    (out / "decode_scaling.json").write_text(json.dumps(results, indent=1), encoding="utf-8")
    for name in ("batched_bench", "batched_bench_unified", "server"):
        for row in results[name]:
            print(name, row["extra"] or "-", row["pp"], row["sequences"], row["s_tg"], sep="\t")
    return 0


if __name__ == "__main__":
    sys.exit(main())

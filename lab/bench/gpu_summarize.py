"""1M tokens through `pagewise summarize` (issue 10's compression target), on an NVIDIA GPU.

The library comes from ``lab/bench/long_library.py`` (the fixture contracts' pages, six
shuffled copies, added with `pagewise ingest`; no two segments share their text). It is carried
to the device machine as a tarball of ``library.sqlite`` (the vectors and the PDF are not needed
to summarize). For each shape, the library is unpacked into a fresh folder (an empty summary
store), a random-weight GGUF of that shape is written once, and the real command runs:

    pagewise summarize DOC --model M --budget 12GiB --threads 8 --json

timed from outside (wall: start-up, hashing the model, planning, loading, compression) while
GPU memory is sampled. Time inside compression is the command's own ``stats.seconds``.

    python3 -m lab.bench.gpu_summarize --out $OUT --library build/long-library.tgz \
        --shapes llama-3.1-8b,qwen2.5-7b
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

from lab.bench.gpu_offload import model_file

ROOT = Path(__file__).resolve().parents[2]


def one_run(library_tgz: Path, shape: str, budget: str, threads: int, extra: list[str]) -> dict[str, object]:
    from inference.telemetry import GpuTelemetry

    model = model_file(shape)
    home = Path(tempfile.mkdtemp(prefix=f"home-{shape}-"))
    with tarfile.open(library_tgz) as tar:
        tar.extractall(home, filter="data")
    env = {**os.environ, "PAGEWISE_HOME": str(home)}
    cli = [sys.executable, "-c", "import sys; from app.cli import main; sys.exit(main())"]
    listed = subprocess.run([*cli, "list", "--json"], env=env, capture_output=True, text=True, check=True)
    doc = json.loads(listed.stdout.strip().splitlines()[0])
    gpu = GpuTelemetry(interval_s=0.05)
    gpu.mark_baseline()  # NVML's "used" counts the driver's reserve on an idle GPU
    gpu.start()
    started = time.perf_counter()
    done = subprocess.run(
        [
            *cli,
            "summarize",
            doc["doc_id"],
            "--model",
            str(model),
            "--budget",
            budget,
            "--threads",
            str(threads),
            "--json",
            *extra,
        ],
        env=env,
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - started
    gpu.stop()
    row: dict[str, object] = {
        "shape": shape,
        "pages": doc["pages"],
        "extra": extra,
        "wall_s": round(wall, 2),
        "rc": done.returncode,
    }
    if done.returncode != 0:
        row["stderr"] = done.stderr[-3000:]
        return row
    result = json.loads(done.stdout)
    stats = result["stats"]
    row.update(
        segments=len(result["segments"]),
        plan=result.get("plan"),
        parallel=result.get("parallel"),
        stats=stats,
        seconds_per_million_prompt_tokens=round(stats["seconds"] / stats["prompt_tokens"] * 1e6, 1),
        wall_per_million_prompt_tokens=round(wall / stats["prompt_tokens"] * 1e6, 1),
        peak_used_mib=round((gpu.peak_used_bytes - (gpu.baseline_used_bytes or 0)) / 2**20),
        stderr_tail=done.stderr[-1500:],
    )
    gpu.close()
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=os.environ.get("OUT", "."))
    parser.add_argument("--library", type=Path, required=True)
    parser.add_argument("--shapes", default="llama-3.1-8b,qwen2.5-7b")
    parser.add_argument("--budget", default="12GiB")
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--extra", default="", help="more summarize flags, space-separated")
    args = parser.parse_args()
    out = Path(args.out) / "summarize_bench.jsonl"
    for shape in args.shapes.split(","):
        row = one_run(args.library, shape, args.budget, args.threads, args.extra.split())
        with out.open("a") as handle:
            handle.write(json.dumps(row) + "\n")
        print(json.dumps({k: v for k, v in row.items() if k != "stderr_tail"}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""A data room reviewed by the model on one GPU (issue 57, Build 4): the local engine held to a
desktop's 12 GiB against llama.cpp's own ``llama-server`` at ``--parallel`` 1, 4 and 8, held to
12 GiB and with the card's whole memory, back to back on one machine, each through the product's
own path (``pagewise review --all``'s: ``app.commands._model_args.open_model`` and
``summarizer.review.room_review.review_room``), with a random-weight Llama-3.1-8B-shaped Q4_K_M.

Here, once (no model): render the first ``--limit`` contracts of the data room
(``lab.bench.dataroom_render``, CUAD's training contracts as PDFs), add them to an empty library
*without vectors* (the model review does not need them: each item's evidence is found by BM25 and
the clause ranker, whose ONNX model is in the checkout; the embedder is not used) and pack it:

    python -m lab.bench.gpu_room prepare --limit 24 --library build/room-library.tgz

On the device machine (carry [".device", "build/room-library.tgz"]; ``.device`` from
``../shared/device/prep.sh onnxruntime==1.32.0 flatbuffers``), one call:

    bash lab/bench/gpu_llama_server.sh && export PYTHONPATH=/tmp/site:$PWD &&
    python3 -m lab.bench.gpu_room run --out $OUT --library build/room-library.tgz --limit-s 75

Each configuration reviews the same contracts from the first one afresh (``fresh``: nothing
stored), stopped after ``--limit-s`` seconds of review (the model's load apart): what a night's
review of a data room does in its steady state. Figures per configuration: contracts finished,
items answered, items per minute, contracts per hour (items answered ÷ the checklist's items,
per hour: a contract stopped half-way counts for its share), the engine's busy share (requests or
sequences in flight ÷ slots, time-weighted, from the first reading to the stop), GPU memory by
NVML (the peak used minus the idle card's), and the server's or the plan's settings; for a server,
the prompt tokens it computed (``prompt_tokens``: not from a slot's cache) and took from a cache
(``prompt_tokens_cached``) by its ``/metrics``, per reading sent (``readings_sent``). A
configuration named with ``-noaff`` (``p8-full-noaff``) runs without contract affinity (every
client thread takes the lowest-keyed reading: all slots read the same contract at once). Random
weights never stop early: every reply runs to the product's cap (``REPLY_TOKENS``). Output:
``$OUT/room_gpu.jsonl`` (one line a configuration) and a markdown table on stdout.

On this CPU, a smoke test of the same path (SmolLM2, a llama-server built for the CPU):

    python -m lab.bench.gpu_room run --out /tmp/room-out --library build/room-library.tgz \\
        --model SMOLLM2.gguf --server-bin /tmp/llsrc/b/bin/llama-server --configs local,p2-cpu \\
        --budget 0 --threads 2 --limit-s 60 --contracts 2
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from lab.bench.library_pack import fresh_home, gpu_memory, pack_library, unpack_library

ROOT = Path(__file__).resolve().parents[2]
START = time.monotonic()


@dataclass(frozen=True)
class Config:
    """One measured configuration: the local engine at a budget, or llama-server with ``slots``."""

    label: str
    slots: int = 0  # 0: the local engine
    ctx: int = 0  # the server's whole context (-c), shared by its slots
    kv: str = "f16"
    gpu: bool = True
    affinity: bool = True  # each client thread keeps to a contract (prompt_feed's FeedReader)

    @property
    def local(self) -> bool:
        return self.slots == 0


# The server's context: every slot holds a whole-contract reading of the library's contracts
# (12,288 tokens a slot) where the memory allows. Held to 12 GiB (an 8B Q4_K_M's weights take
# 4.6 GiB): one slot 16,384 tokens (f16 KV, as the local plan), 4 slots 4 x 12,288 (f16, 6 GiB),
# 8 slots 8 x 11,264 with a q8_0 KV (6.1 GiB); the whole card: 16,384 a slot, f16.
CONFIGS: dict[str, Config] = {
    "local": Config("local"),
    "p1-12g": Config("p1-12g", 1, 16384),
    "p4-12g": Config("p4-12g", 4, 4 * 12288),
    "p8-12g": Config("p8-12g", 8, 8 * 11264, "q8_0"),
    "p1-full": Config("p1-full", 1, 16384),
    "p4-full": Config("p4-full", 4, 4 * 16384),
    "p8-full": Config("p8-full", 8, 8 * 16384),
    "p2-cpu": Config("p2-cpu", 2, 2 * 8192, gpu=False),  # the smoke test on this CPU
}


def config_named(label: str) -> Config:
    """A configuration of ``CONFIGS``, or one with ``-noaff``: the same without contract affinity."""
    base = label.removesuffix("-noaff")
    return replace(CONFIGS[base], label=label, affinity=False) if base != label else CONFIGS[label]


@contextmanager
def affinity(on: bool) -> Iterator[None]:
    """Off: the client threads take the lowest-keyed reading, whatever they read last (the order
    before contract affinity)."""
    from inference.engines.prompt_feed import PromptFeed

    if on:
        yield
        return
    take = PromptFeed.take

    def lowest_key(self: PromptFeed, cancel: Any = None, wait_s: float | None = None, reader: Any = None) -> Any:
        return take(self, cancel, wait_s) if cancel is not None else take(self, wait_s=wait_s)

    PromptFeed.take = lowest_key  # type: ignore[method-assign]
    try:
        yield
    finally:
        PromptFeed.take = take  # type: ignore[method-assign]


def prepare(limit: int, library_tgz: Path) -> dict[str, Any]:
    """Render ``limit`` contracts of the data room and pack a library of them without vectors."""
    from lab.bench.dataroom_render import DEFAULT_OUT, render_room
    from summarizer.library.ingest import IngestOptions, ingest_path
    from summarizer.library.storage.store import Library

    render_room(DEFAULT_OUT, limit)
    manifest = json.loads((DEFAULT_OUT / "manifest.json").read_text(encoding="utf-8"))
    pdfs = [DEFAULT_OUT / manifest[name]["pdf"] for name in sorted(manifest)[:limit]]  # render_room's first
    home = fresh_home("room-library-")
    pages = 0
    try:
        with Library.open(home / "library.sqlite") as library:
            for pdf in pdfs:
                result = ingest_path(library, pdf, IngestOptions(embed=False, ocr="never"))
                pages += result.pages
        pack_library(home, library_tgz)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    return {"contracts": len(pdfs), "pages": pages, "bytes": library_tgz.stat().st_size}


class Server:
    """``llama-server`` for one configuration, on 127.0.0.1, stopped on exit."""

    def __init__(self, binary: str, model: Path, config: Config, port: int, threads: int, log: Path) -> None:
        self.url = f"http://127.0.0.1:{port}"
        self.command = [
            binary, "-m", str(model), "--host", "127.0.0.1", "--port", str(port),
            "-c", str(config.ctx), "-np", str(config.slots), "-t", str(threads),
            "-ngl", "999" if config.gpu else "0", "-fa", "on" if config.gpu else "off",
            "-ctk", config.kv, "-ctv", config.kv, "-fit", "off", "--no-kv-unified", "--jinja", "--metrics",
            *os.environ.get("ROOM_SERVER_ARGS", "").split(),
        ]  # fmt: skip
        self.log = log
        self.process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Server:
        self.handle = self.log.open("ab")
        self.process = subprocess.Popen(self.command, stdout=self.handle, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"llama-server exited with {self.process.returncode}: see {self.log}")
            try:
                with urllib.request.urlopen(self.url + "/health", timeout=2) as response:
                    if response.status == 200:
                        return self
            except OSError:
                pass
            time.sleep(0.5)
        raise RuntimeError(f"llama-server did not become ready in 180 s: see {self.log}")

    def __exit__(self, *exc: object) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.handle.close()

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    def metrics(self) -> dict[str, float]:
        """The server's counters (``--metrics``: llamacpp:prompt_tokens_total ...), by name."""
        with urllib.request.urlopen(self.url + "/metrics", timeout=10) as response:
            text = response.read().decode()
        pairs = (line.split() for line in text.splitlines() if line.startswith("llamacpp:"))
        return {p[0].removeprefix("llamacpp:"): float(p[1]) for p in pairs if len(p) == 2}


def model_args(model: Path, budget: str, threads: int, remote: str = "") -> argparse.Namespace:
    """The arguments ``pagewise review --all`` would have, through the CLI's own parser."""
    from app.cli import build_parser

    argv = ["review", "--all", "--fresh", "--threads", str(threads)]
    argv += ["--remote", remote] if remote else ["--model", str(model), "--budget", budget]
    return build_parser().parse_args(argv)


def review_for(
    library: Any, engine: Any, doc_ids: Sequence[str], label: str, limit_s: float, *, schema: bool = True
) -> dict[str, Any]:
    """Review ``doc_ids`` afresh, stopped after ``limit_s`` seconds; the last status's figures.
    ``schema``: the replies held to the review's JSON schema, as the product holds them."""
    from inference.cancel import Cancelled
    from summarizer.review.checklist import load_checklist
    from summarizer.review.item_answers import REPLY_SCHEMA
    from summarizer.review.room_control import RoomControl
    from summarizer.review.room_review import RoomStatus, review_room

    checklist = load_checklist("cuad")
    control = RoomControl()
    last: list[RoomStatus] = []
    first_done: list[float] = []
    started = time.perf_counter()

    def keep(status: RoomStatus) -> None:
        last[:] = [status]
        if status.contracts_done and not first_done:
            first_done.append(time.perf_counter() - started)

    timer = threading.Timer(limit_s, control.stop)
    timer.start()
    stopped = False
    try:
        result = review_room(
            library,
            engine,
            doc_ids,
            checklist,
            control=control,
            model=f"bench/{label}",
            fresh=True,
            on_status=keep,
            reply_schema=REPLY_SCHEMA if schema else None,
        )
        busy, items, done = result.busy_share, result.items_answered, result.reviewed
    except Cancelled:
        stopped = True
        status = last[0] if last else None
        busy = status.busy_share if status else None
        items = status.items_done if status else 0
        done = status.contracts_done if status else 0
    finally:
        timer.cancel()
    elapsed = time.perf_counter() - started
    n_items = len(checklist.items)
    feed = control.feed
    return {
        "readings_sent": feed.taken if feed is not None else None,
        "review_s": round(elapsed, 1),
        "stopped_at_limit": stopped,
        "contracts_finished": done,
        "items_answered": items,
        "items_per_min": round(items / elapsed * 60, 1) if elapsed > 0 else None,
        "contracts_per_hour": round(items / n_items / elapsed * 3600, 1) if elapsed > 0 else None,
        "busy_share": None if busy is None else round(busy, 3),
        "first_contract_s": round(first_done[0], 1) if first_done else None,
        "checklist_items": n_items,
    }


def measure(
    args: argparse.Namespace, config: Config, model: Path, library: Any, doc_ids: Sequence[str]
) -> dict[str, Any]:
    from app.commands._model_args import open_model
    from inference.progress import no_progress
    from inference.telemetry import GpuTelemetry

    row: dict[str, Any] = {"config": config.label, "contracts_in_room": len(doc_ids), "affinity": config.affinity}
    server: Server | None = None
    gpu = GpuTelemetry(interval_s=0.05, pids=lambda: (os.getpid(), server.pid if server else None))
    gpu.mark_baseline()
    gpu.start()
    try:
        started = time.perf_counter()
        if config.local:
            opened = open_model(model_args(model, args.budget, args.threads), library, no_progress, batch=True)
            if opened.plan is not None:
                from inference.planning.plan import summary_line

                row.update(plan=summary_line(opened.plan), parallel=opened.parallel, n_ctx=opened.plan.n_ctx)
        else:
            server = Server(
                args.server_bin, model, config, args.port, args.threads, Path(args.out) / "llama-server.log"
            )
            server.__enter__()
            row.update(slots=config.slots, server_ctx=config.ctx, kv=config.kv, flash_attn=config.gpu)
            remote = model_args(model, args.budget, args.threads, server.url)
            opened = open_model(remote, library, no_progress, batch=True)
            row.update(parallel=opened.engine.parallel, n_ctx=opened.engine.n_ctx)
        row["load_s"] = round(time.perf_counter() - started, 1)
        with opened, affinity(config.affinity):
            row.update(
                review_for(library, opened.engine, doc_ids, config.label, args.limit_s, schema=not args.no_schema)
            )
        if server is not None:
            counters = server.metrics()
            sent = row.get("readings_sent") or 0
            row.update(
                prompt_tokens=counters.get("prompt_tokens_total"),
                prompt_tokens_cached=counters.get("prompt_tokens_cached_total"),
                prompt_s=counters.get("prompt_seconds_total"),
                predicted_tokens=counters.get("tokens_predicted_total"),
                prompt_tokens_per_reading=round(counters.get("prompt_tokens_total", 0) / sent) if sent else None,
            )
    except Exception as error:  # recorded in the row: the other configurations still run
        row["error"] = f"{type(error).__name__}: {error}"
    finally:
        if server is not None:
            server.__exit__()
        gpu.stop()
    row.update(gpu_memory(gpu))
    gpu.close()
    return row


def run(args: argparse.Namespace) -> int:
    from summarizer.library.storage.store import Library

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    home = unpack_library(args.library, "room-bench-")
    setup: dict[str, Any] = {"threads": args.threads, "budget": args.budget, "limit_s": args.limit_s}
    if args.model:
        model = Path(args.model)
        setup["model"] = model.name
    else:
        from lab.bench.gpu_offload import model_file

        started = time.perf_counter()
        model = model_file(args.shape)
        setup.update(model=f"random {args.shape} Q4_K_M", model_write_s=round(time.perf_counter() - started, 1))
    rows = []
    with Library.open() as library:
        records = [r for r in library.documents() if r.state == "ready" and r.passages > 0]
        records.sort(key=lambda r: r.path)
        records = records[: args.contracts] if args.contracts else records
        doc_ids = [r.doc_id for r in records]
        pages = sum(r.pages for r in records)
        setup.update(contracts=len(records), pages=pages, vectors=library.embedding_model is not None)
        print(json.dumps(setup), flush=True)
        for label in args.configs.split(","):
            if args.stop_by and time.monotonic() - START + args.limit_s + 40 > args.stop_by:
                print(json.dumps({"config": label, "skipped": f"would end past --stop-by {args.stop_by:.0f} s"}))
                continue
            row = {**measure(args, config_named(label), model, library, doc_ids), **setup}
            rows.append(row)
            with (out / "room_gpu.jsonl").open("a") as handle:
                handle.write(json.dumps(row) + "\n")
            print(json.dumps(row), flush=True)
    shutil.rmtree(home, ignore_errors=True)
    print(table(rows))
    return 0


def table(rows: Sequence[dict[str, Any]]) -> str:
    local = next((r for r in rows if r["config"] == "local" and r.get("contracts_per_hour")), None)
    lines = [
        "| configuration | contracts/h | × local | items/min | busy | finished | prompt tok/rd | peak MiB | settings |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        rate = r.get("contracts_per_hour")
        ratio = f"{rate / local['contracts_per_hour']:.1f}×" if rate and local else "-"
        settings = r.get("plan") or (
            f"-np {r['slots']} -c {r['server_ctx']} KV {r['kv']}" if "slots" in r else r.get("error", "")
        )
        cells = [r["config"], rate, ratio, r.get("items_per_min"), r.get("busy_share"), r.get("contracts_finished"),
                 r.get("prompt_tokens_per_reading"), r.get("peak_mib", "-"), settings]  # fmt: skip
        lines.append("| " + " | ".join("-" if c is None else str(c) for c in cells) + " |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("prepare", help="render and add the contracts here, pack the library")
    p.add_argument("--limit", type=int, default=24)
    p.add_argument("--library", type=Path, default=ROOT / "build" / "room-library.tgz")
    p = sub.add_parser("run", help="review with each configuration")
    p.add_argument("--out", default=os.environ.get("OUT", "."))
    p.add_argument("--library", type=Path, default=ROOT / "build" / "room-library.tgz")
    p.add_argument("--model", help="a GGUF file (default: a random-weight one of --shape)")
    p.add_argument("--shape", default="llama-3.1-8b")
    p.add_argument("--server-bin", default="/tmp/llama-bin/llama-server")
    p.add_argument("--port", type=int, default=8090, help="llama-server's port on 127.0.0.1")
    p.add_argument("--configs", default="local,p8-full,p1-12g,p4-12g,p8-12g,p4-full")
    p.add_argument("--budget", default="12GiB", help="the local engine's GPU memory budget")
    p.add_argument("--threads", type=int, default=8)
    p.add_argument("--limit-s", type=float, default=75.0, help="stop each review after S seconds")
    p.add_argument("--contracts", type=int, default=0, help="review only the first N contracts (0: all)")
    p.add_argument(
        "--no-schema",
        action="store_true",
        help="replies not held to the JSON schema: random weights make llama.cpp's grammar test the "
        "whole vocabulary at every token, which real models rarely make it do",
    )
    p.add_argument("--stop-by", type=float, default=0.0, help="start no configuration that would end after S s")
    args = parser.parse_args(argv)
    if args.command == "prepare":
        print(json.dumps(prepare(args.limit, args.library)))
        return 0
    unknown = {c.removesuffix("-noaff") for c in args.configs.split(",")} - set(CONFIGS)
    if unknown:
        parser.error(f"unknown configurations: {', '.join(sorted(unknown))}")
    return run(args)


if __name__ == "__main__":
    sys.exit(main())

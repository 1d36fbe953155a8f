"""Where a cold ``pagewise ask`` spends its time: process start, imports, llama.cpp's backend and
CUDA context, reading the model file, uploading the weights, the first prefill and token; then
the whole cold path as the app runs it (its own planner, hash cache and model worker) and as a
user types it (``pagewise ask`` in a new process, timed from outside).

    python -m lab.bench.cold_start --model FILE.gguf --budget-gib 12 --threads 2 --out result.json

Each phase that must start from nothing runs in a new process (``--probe``); the model file is
dropped from the page cache before each "cold" phase with ``posix_fadvise(DONTNEED)`` (no root
needed; its pages still mapped by another process stay), and the share of the file in the page
cache is read with ``mincore`` before and after, so the JSON says how cold "cold" was. Reading
the file once with plain I/O gives the disk's speed, the floor of a cold load.

On the GPU machine (no PySide6 needed; ``--no-embed --tokenizer-dir`` as for
``scripts.bench_first_answer`` where the embedder cannot run):

    python -m scripts.random_gguf llama-3.1-8b /tmp/models/llama-3.1-8b.gguf
    python -m lab.bench.cold_start --model /tmp/models/llama-3.1-8b.gguf --budget-gib 12 --threads 8 \
        --out $OUT/cold-start.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from lab.results import write_json

ROOT = Path(__file__).resolve().parents[2]
DOCUMENT = ROOT / "tests" / "fixtures" / "contracts" / "endorsement-8p.pdf"
QUESTION = "Who may terminate this agreement, and on what notice?"
SHORT_PROMPT = (
    "You answer questions about a contract.\n\nQuestion: Who may terminate this agreement, and on what notice?\nAnswer:"
)
READ_CHUNK = 64 * 1024 * 1024
MB = 1_000_000


# --- the page cache ------------------------------------------------------------------------


def drop_from_page_cache(path: Path) -> None:
    """Ask the kernel to forget the file's cached pages (written ones are flushed first, so that
    a freshly written model can be dropped too)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def cached_fraction(path: Path) -> float | None:
    """The share of the file's pages in the page cache (``mincore``); None where it cannot be read."""
    import ctypes
    import mmap

    size = path.stat().st_size
    if size == 0:
        return 1.0
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        with path.open("rb") as file, mmap.mmap(file.fileno(), size, access=mmap.ACCESS_COPY) as mapped:
            view = (ctypes.c_char * size).from_buffer(mapped)  # a private mapping: its address for mincore
            try:
                pages = (size + mmap.PAGESIZE - 1) // mmap.PAGESIZE
                vector = (ctypes.c_ubyte * pages)()
                failed = libc.mincore(ctypes.c_void_p(ctypes.addressof(view)), ctypes.c_size_t(size), vector)
                return None if failed else round(sum(b & 1 for b in bytes(vector)) / pages, 3)
            finally:
                del view
    except (OSError, ValueError, AttributeError):
        return None


def read_whole_file(path: Path) -> dict[str, Any]:
    """Read the file once with plain I/O: seconds and MB/s."""
    buffer = bytearray(READ_CHUNK)
    size = 0
    started = time.perf_counter()
    with path.open("rb", buffering=0) as file:
        while count := file.readinto(buffer):
            size += count
    seconds = time.perf_counter() - started
    return {"seconds": round(seconds, 3), "mb_per_s": round(size / MB / seconds, 1) if seconds else None}


def file_read(path: Path) -> dict[str, Any]:
    before = cached_fraction(path)
    drop_from_page_cache(path)
    dropped = cached_fraction(path)
    cold = read_whole_file(path)
    warm = read_whole_file(path)
    return {
        "cached_before": before,
        "cached_after_drop": dropped,
        "cold": cold,
        "warm": warm,
        "note": "cold is the disk's speed only where cached_after_drop is near 0",
    }


# --- probes: each runs in a new process and prints one JSON line ------------------------------


def _since(launched_at: float) -> float:
    return round(time.monotonic() - launched_at, 3)  # CLOCK_MONOTONIC: one clock for all processes


def probe_imports(args: argparse.Namespace) -> dict[str, Any]:
    """What ``pagewise ask`` imports before it can load a model, and llama_cpp (the worker's)."""
    started = _since(args.launched_at)
    steps: dict[str, float] = {}
    for module in ("app.cli", "app.commands.ask", "summarizer.library.storage.store", "summarizer.answers.answer",
                   "summarizer.llm.local_model", "llama_cpp"):  # fmt: skip
        began = time.perf_counter()
        __import__(module)
        steps[module] = round(time.perf_counter() - began, 3)
    return {"python_start_s": started, "import_s": steps, "imports_total_s": round(sum(steps.values()), 3)}


def _cuda_context_s() -> float | str | None:
    """Create the CUDA primary context (``cudaFree(0)``) through the runtime llama.cpp loaded (or
    any: the primary context is the driver's, one per device and process); None without one, the
    error's words where it fails."""
    import ctypes

    with open("/proc/self/maps") as maps:
        found = sorted({line.split()[-1] for line in maps if "libcudart.so" in line})
    # Only a runtime the process already holds: llama.cpp's CUDA build links cudart statically by
    # default, and loading a second, shared libcudart beside it is the suspect of the probe's crash
    # on the GPU machine (free(): invalid pointer after ggml_cuda_init). Without one, the context's
    # cost stays inside the load phase.
    runtime = None
    for name in found:
        try:
            runtime = ctypes.CDLL(name)
            break
        except OSError:
            continue
    if runtime is None:
        return "not separable: no shared libcudart in the process (the context is made inside the load)"
    began = time.perf_counter()
    status = runtime.cudaFree(ctypes.c_void_p(0))
    seconds = time.perf_counter() - began
    return round(seconds, 3) if status == 0 else f"cudaFree(0) returned CUDA error {status}"


PHASE = "cold-start phase: "


def _phase(name: str) -> None:
    """Mark on stderr the phase about to start (a probe that crashes is known by its last mark)."""
    print(PHASE + name, file=sys.stderr, flush=True)


def probe_llama_plain(args: argparse.Namespace) -> dict[str, Any]:
    """llama.cpp as the product loads it, and nothing else: ``Llama(**plan)`` (backends, CUDA
    context, file read, upload, context) then the first token; the load's split is llama.cpp's own
    ``llama_perf_context`` (its t_load_ms)."""
    result: dict[str, Any] = {"python_start_s": _since(args.launched_at)}
    path = Path(args.model)
    result["cached_at_start"] = cached_fraction(path)
    _phase("plan")  # in a process of its own, as in the product (the worker process loads the model):
    # the planner's GPU query and llama.cpp's load in one process abort on CUDA (free(): invalid pointer)
    began = time.perf_counter()
    code = ("import json, sys; from lab.bench.cold_start import _plan, main; import argparse; "
            "a = argparse.Namespace(model=sys.argv[1], budget_gib=float(sys.argv[2]), threads=int(sys.argv[3])); "
            "p = _plan(a); print(json.dumps({'kwargs': p.llama_kwargs(), 'layers': p.n_gpu_layers}))")  # fmt: skip
    planned = json.loads(subprocess.run([sys.executable, "-c", code, str(args.model), str(args.budget_gib),
                                         str(args.threads)], cwd=ROOT, capture_output=True, text=True,
                                        check=True).stdout.strip().splitlines()[-1])  # fmt: skip
    result["plan_process_s"] = round(time.perf_counter() - began, 3)
    _phase("import")
    began = time.perf_counter()
    import llama_cpp

    result["import_llama_cpp_s"] = round(time.perf_counter() - began, 3)
    _phase("load")
    began = time.perf_counter()
    llm = llama_cpp.Llama(**planned["kwargs"], verbose=False)
    result["load_s"] = round(time.perf_counter() - began, 3)
    result["n_gpu_layers"] = planned["layers"]
    result["cached_after_load"] = cached_fraction(path)
    _phase("first token")
    began = time.perf_counter()
    llm.create_completion(SHORT_PROMPT, max_tokens=1, temperature=0.0)
    result["first_token_s"] = round(time.perf_counter() - began, 3)
    perf = llama_cpp.llama_perf_context(llm._ctx.ctx)
    result["llama_perf_ms"] = {"t_start": perf.t_start_ms, "t_load": perf.t_load_ms, "t_p_eval": perf.t_p_eval_ms}
    result["total_s"] = _since(args.launched_at)
    _phase("close")
    llm.close()
    return result


def probe_llama(args: argparse.Namespace) -> dict[str, Any]:
    """llama.cpp alone, phase by phase: import, backend init, CUDA context, metadata and
    vocabulary, the planner's load (file read + weights upload + context), the first token."""
    result: dict[str, Any] = {"python_start_s": _since(args.launched_at)}
    path = Path(args.model)
    result["cached_at_start"] = cached_fraction(path)
    began = time.perf_counter()
    import llama_cpp

    result["import_llama_cpp_s"] = round(time.perf_counter() - began, 3)
    _phase("backend init")
    began = time.perf_counter()
    llama_cpp.llama_backend_init()
    gpu = bool(llama_cpp.llama_supports_gpu_offload())  # loads the backends: CUDA's enumerates devices
    result["backend_init_s"] = round(time.perf_counter() - began, 3)
    result["gpu_offload"] = gpu
    _phase("cuda context")
    result["cuda_context_s"] = _cuda_context_s() if gpu else None
    _phase("plan")
    began = time.perf_counter()
    plan = _plan(args)
    result["plan_s"] = round(time.perf_counter() - began, 3)
    result["plan"] = {"n_gpu_layers": plan.n_gpu_layers, "n_ctx": plan.n_ctx, "n_batch": plan.n_batch,
                      "n_ubatch": plan.n_ubatch, "type_k": plan.type_k, "flash_attn": plan.flash_attn}  # fmt: skip
    _phase("vocabulary only")
    began = time.perf_counter()
    vocab = llama_cpp.Llama(model_path=str(path), vocab_only=True, verbose=False)
    result["vocab_only_load_s"] = round(time.perf_counter() - began, 3)
    vocab.close()
    _phase("load")
    began = time.perf_counter()
    llm = llama_cpp.Llama(**plan.llama_kwargs(), verbose=False)
    result["load_s"] = round(time.perf_counter() - began, 3)
    result["model_bytes"] = int(llama_cpp.llama_model_size(llm._model.model))
    result["cached_after_load"] = cached_fraction(path)
    tokens = llm.tokenize(SHORT_PROMPT.encode())
    began = time.perf_counter()
    llm.create_completion(SHORT_PROMPT, max_tokens=1, temperature=0.0)
    result["first_token_s"] = round(time.perf_counter() - began, 3)
    result["prompt_tokens"] = len(tokens)
    result["total_s"] = _since(args.launched_at)
    llm.close()
    return result


def _plan(args: argparse.Namespace) -> Any:
    """The plan ``pagewise ask --budget`` makes (an answer, batching allowed)."""
    from inference.planning.gpu_budget import usable_budget
    from summarizer.llm.local_model import plan_local_model

    budget = usable_budget(f"{args.budget_gib}GiB")[0]
    plan, _parallel = plan_local_model(args.model, n_threads=args.threads, budget=budget)
    return plan


def probe_app(args: argparse.Namespace) -> dict[str, Any]:
    """The cold ask as ``pagewise ask`` runs it, in this process: the app's planner, hash cache
    and model worker (``open_local_model``), then retrieval, prefill and the first piece."""
    result: dict[str, Any] = {"python_start_s": _since(args.launched_at)}
    began = time.perf_counter()
    from inference.planning.gpu_budget import usable_budget
    from inference.progress import Progress, Stage
    from summarizer.answers.answer import AnswerOptions, answer_question
    from summarizer.library.storage.store import Library
    from summarizer.llm.local_model import open_local_model

    result["imports_s"] = round(time.perf_counter() - began, 3)
    result["cached_at_start"] = cached_fraction(Path(args.model))
    marks: list[tuple[str, float]] = []

    def record(progress: Progress) -> None:
        if progress.stage == Stage.LOAD:
            marks.append((progress.message or str(progress.done), time.perf_counter()))
        elif progress.stage == Stage.HASH_MODEL and not any(m[0] == "hash" for m in marks):
            marks.append(("hash", time.perf_counter()))

    with Library.open() as library:
        began = time.perf_counter()
        budget = usable_budget(f"{args.budget_gib}GiB")[0]
        model = open_local_model(library, args.model, n_threads=args.threads, budget=budget, progress=record)
        loaded = time.perf_counter()
        steps = [("start", began), *marks, ("returned", loaded)]
        result["open_model_s"] = round(loaded - began, 3)
        result["open_model_steps"] = [
            {"until": name, "s": round(at - steps[i][1], 3)} for i, (name, at) in enumerate(steps[1:])
        ]
        result["plan"] = {"n_gpu_layers": model.plan.n_gpu_layers, "n_ctx": model.plan.n_ctx}
        with model:
            first: list[float] = []
            asked = time.perf_counter()
            stream = answer_question(library, model.engine, QUESTION, model_sha256=model.sha256,
                                     doc_ids=[args.doc_id], options=AnswerOptions(k=3, answer_tokens=16))  # fmt: skip
            for _piece in stream:
                if not first:
                    result["first_piece_since_launch_s"] = _since(args.launched_at)
                first.append(time.perf_counter() - asked)
            answer = stream.answer
            result["first_piece_s"] = round(first[0], 3) if first else None
            result["prompt_tokens"] = answer.stats.prompt_tokens
            result["engine_ttft_s"] = round(answer.stats.ttft_s, 3)
            result["mode"] = answer.mode
    return result


PROBES: dict[str, Callable[[argparse.Namespace], dict[str, Any]]] = {
    "imports": probe_imports,
    "llama": probe_llama,
    "llama_plain": probe_llama_plain,
    "app": probe_app,
}


def run_probe(name: str, args: argparse.Namespace, extra: Sequence[str] = ()) -> dict[str, Any]:
    cmd = [sys.executable, "-m", "lab.bench.cold_start", "--probe", name, "--model", str(args.model),
           "--budget-gib", str(args.budget_gib), "--threads", str(args.threads), *extra,
           "--launched-at", repr(time.monotonic())]  # fmt: skip
    began = time.perf_counter()
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=args.timeout)
    wall = time.perf_counter() - began
    if done.returncode != 0:  # recorded with the last phase reached; the other probes still run
        phases = [line[len(PHASE) :] for line in done.stderr.splitlines() if line.startswith(PHASE)]
        failed = {"failed": done.returncode, "last_phase": phases[-1] if phases else None,
                  "stderr_tail": done.stderr[-1500:], "process_wall_s": round(wall, 3)}  # fmt: skip
        print(f"{name}: FAILED {json.dumps(failed)}", flush=True)
        return failed
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    result["process_wall_s"] = round(wall, 3)
    print(f"{name}: {json.dumps(result)}", flush=True)
    return result


# --- the whole cold path ----------------------------------------------------------------------


def fresh_library(args: argparse.Namespace) -> str:
    """A new data folder (this process and its children) holding the small contract; its doc_id."""
    home = Path(tempfile.mkdtemp(prefix="pagewise-cold-start-"))
    os.environ["PAGEWISE_HOME"] = str(home)
    os.environ["PAGEWISE_CONFIG"] = str(home / "settings.json")
    if args.tokenizer_dir is not None:  # passages are cut in the embedder's tokens, even without vectors
        import shutil

        shutil.copytree(args.tokenizer_dir, home / "models" / "embeddings" / "sentence-transformers--all-MiniLM-L6-v2")
    from summarizer.library.ingest import IngestOptions, ingest_path
    from summarizer.library.storage.store import Library

    with Library.open() as library:
        return ingest_path(library, DOCUMENT, IngestOptions(embed=not args.no_embed)).doc_id


def hash_first_use(path: Path) -> dict[str, Any]:
    """The model's sha256 on its first use (the app caches it per file): reads the whole file."""
    from summarizer.library.storage.store import Library
    from summarizer.llm.model_identity import model_sha256

    drop_from_page_cache(path)
    with Library.open() as library:
        began = time.perf_counter()
        model_sha256(library, path)
        return {"seconds": round(time.perf_counter() - began, 3), "file_was_dropped_from_cache": True}


def cli_ask(args: argparse.Namespace, doc_id: str) -> dict[str, Any]:
    """``pagewise ask`` in a new process, timed from outside: its first byte on stdout is the
    answer's first token."""
    cmd = [sys.executable, "-m", "app.cli", "ask", doc_id, QUESTION, "--model", str(args.model),
           "--threads", str(args.threads), "--budget", f"{args.budget_gib}GiB", "-k", "3",
           "--answer-tokens", "16"]  # fmt: skip
    cached = cached_fraction(Path(args.model))
    began = time.perf_counter()
    process = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    process.stdout.read(1)
    first = time.perf_counter() - began
    process.stdout.read()
    errors = process.stderr.read().decode(errors="replace")
    code = process.wait()
    if code:
        raise RuntimeError(f"pagewise ask failed ({code}):\n{errors[-4000:]}")
    return {"cached_at_start": cached, "first_token_s": round(first, 3),
            "exit_s": round(time.perf_counter() - began, 3)}  # fmt: skip


def machine() -> dict[str, Any]:
    about: dict[str, Any] = {"cpus": os.cpu_count(), "python": sys.version.split()[0]}
    try:
        about["gpu"] = subprocess.run(
            ["nvidia-smi", "--query-gpu=name,memory.total,driver_version", "--format=csv,noheader"],
            capture_output=True, text=True, timeout=30, check=True,
        ).stdout.strip()  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        about["gpu"] = None
    try:
        about["commit"] = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                                         text=True, timeout=10).stdout.strip() or None  # fmt: skip
    except OSError:
        about["commit"] = None
    return about


def measure(args: argparse.Namespace) -> dict[str, Any]:
    path = Path(args.model)
    result: dict[str, Any] = {
        "command": "python -m lab.bench.cold_start " + " ".join(sys.argv[1:]),
        "machine": machine(),
        "model": path.name,
        "model_file_bytes": path.stat().st_size,
        "budget_gib": args.budget_gib,
        "threads": args.threads,
    }
    starts = []
    for _ in range(3):
        began = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        starts.append(time.perf_counter() - began)
    result["python_bare_start_s"] = round(statistics.median(starts), 3)
    result["imports"] = run_probe("imports", args)
    result["file_read"] = file_read(path)
    print(f"file read: {json.dumps(result['file_read'])}", flush=True)
    drop_from_page_cache(path)
    result["llama_cold_file"] = run_probe("llama", args)
    result["llama_warm_file"] = run_probe("llama", args)
    drop_from_page_cache(path)
    result["llama_plain_cold_file"] = run_probe("llama_plain", args)
    result["llama_plain_warm_file"] = run_probe("llama_plain", args)
    if args.skip_app:
        return result
    doc_id = fresh_library(args)
    result["hash_first_use"] = hash_first_use(path)
    drop_from_page_cache(path)
    result["app_cold_file"] = run_probe("app", args, ["--doc-id", doc_id])
    result["app_warm_file"] = run_probe("app", args, ["--doc-id", doc_id])
    drop_from_page_cache(path)
    result["cli_cold_file"] = cli_ask(args, doc_id)
    result["cli_warm_file"] = cli_ask(args, doc_id)
    print(f"cli: {result['cli_cold_file']} {result['cli_warm_file']}", flush=True)
    return result


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", type=Path, required=True, help="a GGUF file")
    parser.add_argument("--budget-gib", type=float, default=12.0, help="GPU memory budget (ignored without a GPU)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out", type=Path, help="the JSON result")
    parser.add_argument("--skip-app", action="store_true", help="llama.cpp phases only (no library, no app)")
    parser.add_argument("--no-embed", action="store_true", help="no passage vectors (where the embedder cannot run)")
    parser.add_argument("--tokenizer-dir", type=Path, help="all-MiniLM-L6-v2's tokenizer files (with --no-embed)")
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--probe", choices=sorted(PROBES), help=argparse.SUPPRESS)
    parser.add_argument("--launched-at", type=float, help=argparse.SUPPRESS)
    parser.add_argument("--doc-id", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.probe:
        print(json.dumps(PROBES[args.probe](args)), flush=True)
        return 0
    if args.out is None:
        parser.error("--out is required")
    result = measure(args)
    write_json(args.out, result, indent=2)
    print(f"wrote {args.out}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

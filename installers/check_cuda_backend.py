"""Check the CUDA variant's llama.cpp: its backends load as the bundle loads them, the GPU runs a
model where the NVIDIA driver is, and the CPU runs it, with the notice, where it is not.

The CUDA variant builds llama.cpp with ``GGML_BACKEND_DL`` (installers/llama_cmake_args.sh):
libggml-cpu.so and libggml-cuda.so are modules that ggml loads at run time, which the bundle's
runtime hook (installers/rthooks/pyi_rth_pagewise_cuda.py) asks for right after ``llama_cpp`` is
imported. This runs that hook, imports ``llama_cpp`` from the current environment, loads a GGUF
with every layer offloaded, generates a few tokens and says where they ran:

    # here, in the CUDA variant's build venv (no driver: the CPU, with the notice)
    build/linux-cuda/venv/bin/python installers/check_cuda_backend.py --expect cpu
    # the frozen bundle runs the same hook; its self-test says the backend
    # on the GPU machine, after building llama-cpp-python with the same CMake options
    python3 installers/check_cuda_backend.py --expect gpu

Prints one JSON object; exits 1 when the backend is not the one expected.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import runpy
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HOOK = ROOT / "installers" / "rthooks" / "pyi_rth_pagewise_cuda.py"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", type=Path, default=ROOT / "assets" / "tiny-random.gguf")
    parser.add_argument("--expect", choices=["gpu", "cpu"], required=True)
    parser.add_argument("--tokens", type=int, default=32)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()

    runpy.run_path(str(HOOK), run_name="pyi_rth_pagewise_cuda")  # as the frozen app does at start
    import llama_cpp

    lib = Path(llama_cpp.__file__).parent / "lib"
    libraries = sorted(p.name for p in lib.iterdir() if ".so" in p.name or p.suffix == ".dll")
    gpu_offload = bool(llama_cpp.llama_supports_gpu_offload())
    # llama.cpp logs to fd 2 from C: catch it in a file to read the buffers it made.
    failed: ValueError | None = None
    with tempfile.TemporaryFile(mode="w+b") as log:
        saved = os.dup(2)
        os.dup2(log.fileno(), 2)
        try:
            llm = llama_cpp.Llama(
                str(args.model), n_gpu_layers=-1, n_ctx=512, n_threads=args.threads, verbose=True, seed=1
            )
            started = time.perf_counter()
            out = llm.create_completion("The parties agree", max_tokens=args.tokens, temperature=0.0)
            elapsed = time.perf_counter() - started
            del llm
        except ValueError as error:  # the model did not load: llama.cpp's log says why
            failed = error
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        log.seek(0)
        text = log.read().decode("utf-8", "replace")
    if failed is not None:
        print("\n".join(text.splitlines()[-40:]), file=sys.stderr)
        raise failed
    buffers = sorted(set(re.findall(r"\b(CUDA\d+|CPU)(?:_Mapped)? model buffer size", text)))
    offloaded = re.search(r"offloaded (\d+)/(\d+) layers to GPU", text)
    generated = int(out["usage"]["completion_tokens"])
    backend = "gpu" if gpu_offload and any(b.startswith("CUDA") for b in buffers) else "cpu"
    result = {
        "expect": args.expect,
        "backend": backend,
        "gpu_notice": os.environ.get("PAGEWISE_GPU_UNAVAILABLE"),
        "llama_supports_gpu_offload": gpu_offload,
        "model_buffers": buffers,
        "offloaded": offloaded.group(0) if offloaded else None,
        "generated_tokens": generated,
        "tokens_per_s": round(generated / elapsed, 1) if elapsed > 0 else None,
        "libraries": libraries,
    }
    print(json.dumps(result, indent=1))
    ok = backend == args.expect and generated > 0
    if args.expect == "cpu":
        ok = ok and result["gpu_notice"] is not None
    if not ok:
        print(f"check_cuda_backend.py: expected the {args.expect} backend; see above", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

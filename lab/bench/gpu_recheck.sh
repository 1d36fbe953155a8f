#!/bin/bash
# Issue 47, step 2: the GPU figures of docs/benchmarks.md re-measured at HEAD, in three device
# calls run back to back on one warm machine (each under 10 minutes; the CUDA build is reused):
#   bash lab/bench/gpu_recheck.sh planner-prefill  # planner peak vs prediction (14B@32K, 32B@8K);
#                                                  # offloaded prefill vs raw eval(), 32B@8K, 3 rounds
#   bash lab/bench/gpu_recheck.sh summarize        # 1M tokens through `pagewise summarize`, both shapes
#                                                  # (SHAPES=qwen2.5-7b for one)
#   bash lab/bench/gpu_recheck.sh review           # the 41-item review (runs stopped at 60 s)
#   bash lab/bench/gpu_recheck.sh first-answer     # step 1: the window's first answer 5 s after it
#                                                  # opens (no Qt), then the cold-start breakdown
#                                                  # (COLD_START=0: without it)
#   bash lab/bench/gpu_recheck.sh cold-start       # the cold-start breakdown alone
# Needs carry [".device", "build/long-library.tgz", "build/review-library.tgz"] (made here by
# `python -m lab.bench.long_library --no-embed …` and `python -m lab.bench.gpu_review prepare`).
set -uo pipefail
case "${1:-}" in -h|--help|"") sed -n '2,14p' "$0" | cut -c3-; exit 0 ;; esac
# llama-cpp-python with the product's CMake options for every build (installers/llama-cmake-options.txt,
# variant "all": portable AVX2 CPU code, AVX-512 and AMX off, which the offloaded layers run on)
# plus CUDA for the card; statically linked backends (the bundle's GGML_BACKEND_DL loading is
# checked by lab/bench/gpu_cuda_variant.sh instead). Built once per machine into /tmp/site.
if ! python3 -c "import sys; sys.path.insert(0, '/tmp/site'); import llama_cpp" 2>/dev/null; then
  R=$PWD
  python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site "$R"/.device/whl/*.whl || exit 1
  opts=$(awk '$1 == "all" {print $2}' installers/llama-cmake-options.txt | tr '\n' ' ')
  tar xzf "$R"/.device/llama_cpp_python-*-trim.tar.gz -C /tmp && cd /tmp/llama_cpp_python-*/ || exit 1
  start=$(date +%s)
  CMAKE_ARGS="$opts -DGGML_CUDA=on -DCMAKE_CUDA_ARCHITECTURES=90" CMAKE_BUILD_PARALLEL_LEVEL=16 \
    python3 -m pip wheel -q --no-build-isolation --no-deps -w /tmp/llama-wheel . > /tmp/llama-build.log 2>&1 \
    || { tail -30 /tmp/llama-build.log; exit 1; }
  echo "CUDA build with the product's options ($opts) in $(( $(date +%s) - start )) s" | tee "$OUT/build.txt"
  python3 -m pip install -q --no-index --no-deps --target /tmp/site /tmp/llama-wheel/*.whl || exit 1
  cd "$R" || exit 1
fi
export PYTHONPATH=/tmp/site:$PWD:${PYTHONPATH:-}
nvidia-smi --query-gpu=name,memory.used,memory.total --format=csv,noheader | tee "$OUT/card.txt"
git rev-parse HEAD 2>/dev/null >> "$OUT/card.txt"
case "${1:-}" in
planner-prefill)
  python3 -m lab.bench.gpu_planner --out "$OUT" --models-dir /tmp/models --no-sweep \
    --cases qwen2.5-14b:32768,qwen2.5-32b:8192
  python3 -m lab.bench.gpu_offload --out "$OUT" ttft --shape qwen2.5-32b --ctx 8192 --prompts 478,3000 \
    --gen-tokens 16 --rounds 3 ;;
summarize)
  python3 -m lab.bench.gpu_summarize --out "$OUT" --library build/long-library.tgz \
    --shapes "${SHAPES:-llama-3.1-8b,qwen2.5-7b}" ;;
review)
  python3 -m lab.bench.gpu_review run --out "$OUT" --library build/review-library.tgz --limit-s 60 ;;
first-answer)
  MODEL=$(python3 -c "from lab.bench.gpu_offload import model_file; print(model_file('llama-3.1-8b'))" | tail -1)
  timeout 240 python3 -m lab.bench.first_answer_core --model "$MODEL" --budget 12GiB --threads 8 --wait 5 \
    --rounds 1 --no-embed --tokenizer-dir .device/minilm --out "$OUT"
  [ "${COLD_START:-1}" = 0 ] || bash "$0" cold-start ;;
cold-start)
  MODEL=$(python3 -c "from lab.bench.gpu_offload import model_file; print(model_file('llama-3.1-8b'))" | tail -1)
  timeout 200 python3 -m lab.bench.cold_start --model "$MODEL" --budget-gib 12 --threads 8 --no-embed \
    --tokenizer-dir .device/minilm --timeout 190 --out "$OUT/cold-start-gpu-llama-3.1-8b.json" ;;
*) echo "unknown phase: $1 (see --help)" >&2; exit 2 ;;
esac
ls -la "$OUT"

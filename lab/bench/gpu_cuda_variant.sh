#!/bin/bash
# The CUDA variant's GPU path on the GPU machine (the device tool, carry [".device"]): build
# llama-cpp-python with the variant's own CMake options (installers/llama_cmake_args.sh: ggml's
# backends as loadable modules; sm_90 only, the H200), then load them as the bundle's runtime hook
# does and run a model with every layer on the GPU (installers/check_cuda_backend.py --expect gpu).
# The bundle itself is built here by installers/build_linux.sh --variant cuda; the GPU machine
# has no package index for its venv and the bundle (~1 GB) is too large to carry there.
set -uo pipefail
case "${1:-}" in -h|--help) sed -n '2,7p' "$0" | cut -c3-; exit 0 ;; esac
R=$(pwd)
export PYTHONUNBUFFERED=1
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site-dl "$R"/.device/whl/*.whl || exit 1
tar xzf "$R"/.device/llama_cpp_python-*-trim.tar.gz -C /tmp && cd /tmp/llama_cpp_python-*/ || exit 1
CUDA_ARCHITECTURES=90-real source "$R/installers/llama_cmake_args.sh" cuda || exit 1
echo "CMAKE_ARGS=$LLAMA_CMAKE_ARGS"
start=$(date +%s)
CMAKE_ARGS="$LLAMA_CMAKE_ARGS" CMAKE_BUILD_PARALLEL_LEVEL=16 \
  python3 -m pip wheel -q --no-build-isolation --no-deps -w /tmp/llama-wheel-dl . > /tmp/llama-build-dl.log 2>&1
rc=$?
echo "llama-cpp-python (CUDA variant options) build rc=$rc in $(( $(date +%s) - start )) s"
[ $rc = 0 ] || { tail -30 /tmp/llama-build-dl.log; exit $rc; }
python3 -m pip install -q --no-index --no-deps --target /tmp/site-dl /tmp/llama-wheel-dl/*.whl || exit 1
cd "$R" || exit 1
export PYTHONPATH=/tmp/site-dl:$R
readelf -d /tmp/site-dl/llama_cpp/lib/libggml-cuda.so | grep NEEDED | tee "$OUT/cuda-variant-gpu-needed.txt"
python3 installers/check_cuda_backend.py --expect gpu --threads 8 | tee "$OUT/cuda-variant-gpu-tiny.json"
# A model of a real shape (random weights, Qwen2.5-7B, Q4_K_M), all 29 layers offloaded.
python3 -m scripts.random_gguf qwen2.5-7b /tmp/qwen7b.gguf > /dev/null && \
  python3 installers/check_cuda_backend.py --expect gpu --threads 8 --tokens 64 --model /tmp/qwen7b.gguf \
  | tee "$OUT/cuda-variant-gpu-7b.json"

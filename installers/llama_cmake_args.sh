#!/usr/bin/env bash
# llama.cpp's CMake options for a Pagewise build, one place for installers/build_linux.sh and the
# GPU machine's check of the CUDA backend (installers/check_cuda_backend.py explains it):
#
#   source installers/llama_cmake_args.sh cpu|cuda   # sets LLAMA_CMAKE_ARGS (and, for cuda,
#                                                    # CUDA_MAJOR, CUDA_WHEELS, MIN_DRIVER, CUDACXX)
#   bash installers/llama_cmake_args.sh cuda         # prints them
#
# CUDA_HOME: the toolkit (default /usr/local/cuda, else the nvcc on PATH); CUDA_ARCHITECTURES overrides the GPUs built for.
_pagewise_llama_variant="${1:-cpu}"

# Portable CPU code: no -march=native; AVX2/FMA/F16C are on every x86-64 since Haswell (2013) and
# Zen. llama.cpp's examples, tests and server are not built (nothing of them is bundled).
LLAMA_CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON \
-DGGML_AVX512=OFF -DGGML_OPENMP=ON -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TESTS=OFF \
-DLLAMA_BUILD_SERVER=OFF -DLLAMA_CURL=OFF"

if [[ "$_pagewise_llama_variant" == cuda ]]; then
    # The CUDA toolkit decides the runtime that is bundled and so the oldest driver that runs it:
    # CUDA 12 runs on drivers R525+, CUDA 13 on R580+ (the development and GPU machines have 13.0).
    # ggml's backends are built as loadable modules (GGML_BACKEND_DL): libggml-cuda.so is loaded
    # at run time and skipped when the driver (libcuda.so.1) is missing, so the same bundle starts
    # everywhere and falls back to the CPU (installers/rthooks/pyi_rth_pagewise_cuda.py says so).
    # Real code for the cards users have (sm_86, sm_89) and the H200 (sm_90): no PTX JIT needed.
    # No NCCL: it serves several GPUs only, is not bundled, and ggml links it whenever the build
    # machine has it (the GPU machine does), which would stop libggml-cuda.so loading elsewhere.
    if [[ -z "${CUDA_HOME:-}" ]]; then
        CUDA_HOME=/usr/local/cuda
        [[ -x "$CUDA_HOME/bin/nvcc" ]] || CUDA_HOME="$(dirname "$(dirname "$(command -v nvcc || echo /none/bin/nvcc)")")"
    fi
    NVCC="$CUDA_HOME/bin/nvcc"
    if [[ ! -x "$NVCC" ]]; then
        echo "llama_cmake_args.sh: no nvcc at $NVCC; set CUDA_HOME to a CUDA 12 or 13 toolkit" >&2
        return 1 2>/dev/null || exit 1
    fi
    CUDA_MAJOR="$("$NVCC" --version | sed -n 's/.*release \([0-9]*\)\..*/\1/p')"
    case "$CUDA_MAJOR" in
        # PyPI's runtime and cuBLAS wheels for that CUDA (pinned in constraints-build.txt).
        12) CUDA_WHEELS="nvidia-cuda-runtime-cu12 nvidia-cublas-cu12"; MIN_DRIVER=525 ;;
        13) CUDA_WHEELS="nvidia-cuda-runtime nvidia-cublas"; MIN_DRIVER=580 ;;
        *)
            echo "llama_cmake_args.sh: nvcc at $NVCC is CUDA $CUDA_MAJOR; use a CUDA 12 or 13 toolkit" >&2
            return 1 2>/dev/null || exit 1 ;;
    esac
    export CUDACXX="$NVCC"
    LLAMA_CMAKE_ARGS="$LLAMA_CMAKE_ARGS -DGGML_CUDA=ON -DGGML_BACKEND_DL=ON -DGGML_CPU_ALL_VARIANTS=OFF -DGGML_CUDA_NCCL=OFF \
-DCMAKE_CUDA_ARCHITECTURES=${CUDA_ARCHITECTURES:-86-real;89-real;90-real}"
fi

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
    echo "$LLAMA_CMAKE_ARGS"
fi

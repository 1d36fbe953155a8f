#!/usr/bin/env bash
# llama.cpp's CMake options for a Pagewise build, for installers/install_llama_cpp.sh (the Makefile's
# venv and installers/build_linux.sh) and the GPU machine's check of the CUDA backend:
#
#   source installers/llama_cmake_args.sh cpu|cuda   # sets LLAMA_CMAKE_ARGS (and, for cuda,
#                                                    # CUDA_MAJOR, CUDA_WHEELS, MIN_DRIVER, CUDACXX)
#   bash installers/llama_cmake_args.sh cuda         # prints them
#
# CUDA_HOME: the toolkit (default /usr/local/cuda, else the nvcc on PATH); CUDA_ARCHITECTURES overrides the GPUs built for.
_pagewise_llama_variant="${1:-cpu}"

# The options themselves live in installers/llama-cmake-options.txt (the Windows script and
# inference/engines/llama_build.py read the same file): the "all" lines, then the variant's own.
_pagewise_llama_options="$(dirname "${BASH_SOURCE[0]}")/llama-cmake-options.txt"
LLAMA_CMAKE_ARGS="$(awk -v v="$_pagewise_llama_variant" '!/^#/ && ($1 == "all" || $1 == v) {print $2}' \
    "$_pagewise_llama_options" | paste -sd' ')"
if [[ -n "${CUDA_ARCHITECTURES:-}" ]]; then
    LLAMA_CMAKE_ARGS="$(sed "s/-DCMAKE_CUDA_ARCHITECTURES=[^ ]*/-DCMAKE_CUDA_ARCHITECTURES=$CUDA_ARCHITECTURES/" \
        <<<"$LLAMA_CMAKE_ARGS")"
fi

if [[ "$_pagewise_llama_variant" == cuda ]]; then
    # The CUDA toolkit decides the runtime that is bundled and so the oldest driver that runs it:
    # CUDA 12 runs on drivers R525+, CUDA 13 on R580+ (the development and GPU machines have 13.0).
    # (The CUDA options and why: installers/llama-cmake-options.txt; the runtime hook
    # installers/rthooks/pyi_rth_pagewise_cuda.py says when the bundle falls back to the CPU.)
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
fi

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
    echo "$LLAMA_CMAKE_ARGS"
fi

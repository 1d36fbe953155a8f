#!/usr/bin/env bash
# Installs llama-cpp-python, built from source with Pagewise's one set of llama.cpp options
# (installers/llama-cmake-options.txt), into a venv, and records what was built:
#
#   installers/install_llama_cpp.sh PYTHON [cpu|cuda]
#
# Used by the Makefile's venv (and so CI) and installers/build_linux.sh. LLAMA_CMAKE_EXTRA adds
# machine-specific options (build_linux.sh's cuBLAS and driver-stub paths for the CUDA variant).
#
# pip's wheel cache keys a built wheel by its source, not by CMAKE_ARGS, so it is never used here:
# the wheel is built into a folder of our own named by the hash of the version and the options
# ($PAGEWISE_WHEEL_CACHE, default ~/.cache/pagewise/llama-wheels/<hash>/), and a change of options
# builds a new one. The record, llama_cpp/pagewise-build.json in the venv (a frozen bundle carries
# it too), holds the version, variant, options and hash: `pagewise doctor` and --selftest show it,
# and tests/inference/engines/test_llama_build.py fails when it is missing, native or has AMX.
set -euo pipefail
PYTHON="${1:?usage: install_llama_cpp.sh PYTHON [cpu|cuda]}"
VARIANT="${2:-cpu}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=installers/llama_cmake_args.sh
source "$ROOT/installers/llama_cmake_args.sh" "$VARIANT"
ARGS="$LLAMA_CMAKE_ARGS${LLAMA_CMAKE_EXTRA:+ $LLAMA_CMAKE_EXTRA}"
VERSION="$(sed -n 's/^llama[-_]cpp[-_]python==\(.*\)$/\1/Ip' "$ROOT/requirements.lock")"
[[ -n "$VERSION" ]] || { echo "install_llama_cpp.sh: no llama-cpp-python pin in requirements.lock" >&2; exit 1; }
KEY="$("$PYTHON" "$ROOT/installers/llama_record.py" key --version "$VERSION" --args "$ARGS")"
CACHE="${PAGEWISE_WHEEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pagewise/llama-wheels}/$VARIANT-$KEY"

wheel() { find "$CACHE" -maxdepth 1 -name 'llama_cpp_python-*.whl' 2>/dev/null | head -1; }
if [[ -z "$(wheel)" ]]; then
    echo "llama-cpp-python $VERSION from source ($VARIANT, options $KEY; 10-20 min on two cores):"
    echo "  CMAKE_ARGS=$ARGS"
    TMP="$(mktemp -d "${TMPDIR:-/tmp}/pagewise-llama-XXXXXX")"
    trap 'rm -rf "$TMP"' EXIT
    CMAKE_ARGS="$ARGS" FORCE_CMAKE=1 CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}" \
        "$PYTHON" -m pip wheel -q --no-deps --no-cache-dir --no-binary llama-cpp-python \
        -w "$TMP" "llama-cpp-python==$VERSION"
    mkdir -p "$(dirname "$CACHE")"
    rm -rf "$CACHE.partial" && mkdir "$CACHE.partial" && mv "$TMP"/llama_cpp_python-*.whl "$CACHE.partial/"
    rm -rf "$CACHE" && mv "$CACHE.partial" "$CACHE"  # whole or not at all: a killed build leaves no wheel
fi
"$PYTHON" -m pip install -q --no-deps --force-reinstall "$(wheel)"
"$PYTHON" "$ROOT/installers/llama_record.py" write --variant "$VARIANT" --version "$VERSION" --args "$ARGS"

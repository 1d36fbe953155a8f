#!/bin/bash
# On the GPU machine, from the project root (issue 57): build llama.cpp's own `llama-server` and
# the shared libraries llama-cpp-python loads, with CUDA for sm_90, from llama-cpp-python 0.3.36's
# vendor/llama.cpp (.device/llama_cpp_python-*-trim.tar.gz, made by ../shared/device/prep.sh), in
# one CMake tree, so the CUDA kernels are compiled once (~5 minutes on 16 cores) for both:
#   /tmp/llama-bin/llama-server           the server
#   /tmp/llama-bin/llama-batched-bench    llama.cpp's own multi-sequence decode loop (gpu_decode_scaling.py)
#   /tmp/llama-bin/lib*.so                libllama, libggml*, libmtmd
#   /tmp/site/llama_cpp                   llama-cpp-python's Python package, those libraries in its lib/
# A second call on a machine still warm finds them and returns at once.
#   bash lab/bench/gpu_llama_server.sh && export PYTHONPATH=/tmp/site:$PWD
set -uo pipefail
case "${1:-}" in -h|--help) sed -n '2,10p' "$0" | cut -c3-; exit 0 ;; esac
R=$(pwd)
BIN=/tmp/llama-bin
export PYTHONUNBUFFERED=1
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site "$R"/.device/whl/*.whl || exit 1
if [[ -x $BIN/llama-server && -x $BIN/llama-batched-bench && -f $BIN/libllama.so && -d /tmp/site/llama_cpp ]]; then
    echo "llama-server and libllama already built"
    exit 0
fi
tar xzf "$R"/.device/llama_cpp_python-*-trim.tar.gz -C /tmp || exit 1
SRC=$(ls -d /tmp/llama_cpp_python-*/ | head -1)
start=$(date +%s)
# The product's options for every build (installers/llama-cmake-options.txt), CUDA for the card, and
# the server, which the product's builds leave out.
opts=$(awk '$1 == "all" {print $2}' installers/llama-cmake-options.txt | tr '\n' ' ')
# shellcheck disable=SC2086
cmake -S "$SRC/vendor/llama.cpp" -B /tmp/llama-cuda -DCMAKE_BUILD_TYPE=Release $opts -DGGML_CUDA=on \
    -DCMAKE_CUDA_ARCHITECTURES=90 -DBUILD_SHARED_LIBS=ON -DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_SERVER=ON \
    -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF \
    > /tmp/llama-cmake.log 2>&1 || { tail -30 /tmp/llama-cmake.log; exit 1; }
cmake --build /tmp/llama-cuda --target llama-server llama-batched-bench mtmd -j 16 > /tmp/llama-build.log 2>&1
rc=$?
echo "llama.cpp CUDA build (llama-server, libllama, libmtmd) rc=$rc in $(( $(date +%s) - start )) s"
[[ $rc = 0 ]] || { tail -40 /tmp/llama-build.log; exit $rc; }
mkdir -p $BIN
cp -a /tmp/llama-cuda/bin/llama-server /tmp/llama-cuda/bin/llama-batched-bench /tmp/llama-cuda/bin/lib*.so* $BIN/
# the package's own lib folder, where llama_cpp, _ggml and mtmd_cpp look by default
mkdir -p /tmp/site
rm -rf /tmp/site/llama_cpp
cp -a "$SRC/llama_cpp" /tmp/site/llama_cpp
mkdir -p /tmp/site/llama_cpp/lib
cp -a $BIN/lib*.so* /tmp/site/llama_cpp/lib/
ls $BIN

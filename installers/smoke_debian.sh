#!/usr/bin/env bash
# Smoke test of the .deb on a clean Debian root (run as root; needs debootstrap and the Debian
# package mirror; ImageMagick's convert on the host turns the screenshot into a PNG):
#
#   sudo installers/smoke_debian.sh [dist/pagewise_VERSION_amd64.deb]
#
# 1. debootstrap a minimal Debian (SUITE, default bookworm) into a temporary folder;
# 2. apt-get install the .deb there, so its Depends are resolved from the mirror, and check
#    with ldd that nothing the bundle links to is missing;
# 3. as an ordinary user: `pagewise --selftest` (offscreen) from the installed, read-only
#    /opt/pagewise; the portable .tar.gz unpacked under a path with spaces and non-ASCII
#    characters and its self-test; a data folder on another file system (PAGEWISE_HOME): ingest,
#    list and search through the command line;
# 4. Xvfb inside the root: the window with the sample open, a screenshot
#    (docs/screenshots/installed-deb.png), then a second instance started while the first runs,
#    and the library checked afterwards;
# 5. upgrade: the same package with a higher version installed over it keeps the user's library;
#    a library written by an older Pagewise (made here from an older commit) is migrated by the
#    installed app, which keeps a copy first;
# 6. apt-get remove: /opt/pagewise is gone and the user's library is still there.
#
# Environment: SUITE, MIRROR, DEBOOTSTRAP_TARBALL (a `debootstrap --make-tarball` cache of the
# base system, to skip downloading it again), KEEP_ROOT=1 (leave the root for a look), SCREENSHOT.
set -uo pipefail

ROOT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VERSION="$(sed -n 's/^version = "\(.*\)"/\1/p' "$ROOT_DIR/pyproject.toml" | head -1)"
DEB="${1:-$ROOT_DIR/dist/pagewise_${VERSION}_amd64.deb}"
TARBALL="${TARBALL:-$ROOT_DIR/dist/pagewise-$VERSION-linux-x86_64-cpu.tar.gz}"
SUITE="${SUITE:-bookworm}"
MIRROR="${MIRROR:-http://deb.debian.org/debian}"
SCREENSHOT="${SCREENSHOT:-$ROOT_DIR/docs/screenshots/installed-deb.png}"
[[ $EUID -eq 0 ]] || { echo "smoke_debian.sh: run as root (debootstrap, chroot, mounts)" >&2; exit 2; }
[[ -f "$DEB" ]] || { echo "smoke_debian.sh: no package at $DEB; run installers/build_linux.sh first" >&2; exit 2; }
command -v debootstrap > /dev/null || { echo "smoke_debian.sh: apt-get install debootstrap" >&2; exit 2; }
PACKAGE="$(dpkg-deb -f "$DEB" Package)"  # pagewise, or pagewise-cuda

CHROOT="$(mktemp -d /var/tmp/pagewise-smoke.XXXXXX)"
chmod 755 "$CHROOT"  # mktemp's 0700 would keep the ordinary user out of its own root
FAILED=()
RESULTS=()
log() { printf '\n== %s (%s)\n' "$*" "$(date +%H:%M:%S)"; }
check() {  # check NAME COMMAND...: run, record PASS/FAIL
    local name="$1"; shift
    if "$@"; then RESULTS+=("PASS  $name"); else RESULTS+=("FAIL  $name"); FAILED+=("$name"); fi
}
cleanup() {
    [[ -n "${XVFB_PID:-}" ]] && kill "$XVFB_PID" 2> /dev/null
    for mount in dev/shm dev/pts dev sys proc mnt/otherdisk; do
        mountpoint -q "$CHROOT/$mount" && umount -l "$CHROOT/$mount"
    done
    if [[ "${KEEP_ROOT:-0}" == 1 ]]; then echo "root kept at $CHROOT"; else rm -rf --one-file-system "$CHROOT"; fi
    rm -f "$CHROOT.debootstrap.log"
}
trap cleanup EXIT
in_root() { chroot "$CHROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"; }
# As the ordinary user "tester" (uid 1000): /opt/pagewise is read-only to it.
as_user() { chroot --userspec=1000:1000 "$CHROOT" /usr/bin/env -i PATH=/usr/bin:/bin HOME=/home/tester \
    LANG=C.UTF-8 USER=tester "$@"; }

log "debootstrap $SUITE into $CHROOT"
debootstrap --variant=minbase ${DEBOOTSTRAP_TARBALL:+--unpack-tarball="$DEBOOTSTRAP_TARBALL"} \
    "$SUITE" "$CHROOT" "$MIRROR" > "$CHROOT.debootstrap.log" 2>&1 \
    || { tail -20 "$CHROOT.debootstrap.log"; exit 1; }
mount -t proc proc "$CHROOT/proc"
mount -t sysfs -o ro sysfs "$CHROOT/sys"
mount --bind /dev "$CHROOT/dev"
mount --bind /dev/pts "$CHROOT/dev/pts"
mount -t tmpfs -o mode=1777 shm "$CHROOT/dev/shm"  # multiprocessing's semaphores live here
mkdir -p "$CHROOT/mnt/otherdisk"
mount -t tmpfs -o mode=1777,size=1g otherdisk "$CHROOT/mnt/otherdisk"  # "another disk"
cp /etc/resolv.conf "$CHROOT/etc/resolv.conf"
echo "deb $MIRROR $SUITE main" > "$CHROOT/etc/apt/sources.list"
in_root useradd -m -u 1000 -s /bin/sh tester
echo "glibc in the root: $(in_root ldd --version | head -1)"

log "apt-get install $(basename "$DEB")"
cp "$DEB" "$CHROOT/tmp/"
in_root apt-get update -q > /dev/null
before="$(in_root dpkg-query -W -f '${Package}\n' | sort)"
install_deb() {
    in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
        "/tmp/$(basename "$DEB")" > "$CHROOT/tmp/apt-install.log" 2>&1
    local code=$?
    grep -E "newly installed|^E:" "$CHROOT/tmp/apt-install.log"
    return $code
}
check "apt-get install the .deb (Depends resolved from the mirror)" install_deb
after="$(in_root dpkg-query -W -f '${Package}\n' | sort)"
echo "packages apt added: $(comm -13 <(echo "$before") <(echo "$after") | tr '\n' ' ')"
du -sh "$CHROOT/opt/pagewise"

missing_libraries() {  # every ELF in the bundle, its own folders on the path, as at run time
    local dirs
    dirs="$(find "$CHROOT/opt/pagewise" -name '*.so*' -printf '%h\n' | sort -u | sed "s|^$CHROOT||" | paste -sd:)"
    # libqgtk3.so is skipped: Qt uses the GTK theme plugin only where GTK is installed; libcuda.so.1
    # is the NVIDIA driver, which no package carries (the CUDA variant's backend needs it).
    in_root sh -c "find /opt/pagewise -type f \( -name '*.so*' -o -name pagewise \) ! -name libqgtk3.so -exec sh -c \
        'LD_LIBRARY_PATH=$dirs ldd \"\$1\" 2>/dev/null | grep \"not found\" | grep -v \"libcuda.so.1 \" | sed \"s|^|\$1: |\"' _ {} \;" \
        | tee "$CHROOT/tmp/missing.txt"
    [[ ! -s "$CHROOT/tmp/missing.txt" ]]
}
check "no library the bundle links to is missing (ldd, before any X package)" missing_libraries

log "pagewise --selftest (installed, run by an ordinary user, offscreen)"
touch "$CHROOT/tmp/stamp"
selftest_installed() {
    as_user env QT_QPA_PLATFORM=offscreen pagewise --selftest > "$CHROOT/tmp/selftest.txt" 2>&1
    local code=$?
    cat "$CHROOT/tmp/selftest.txt"
    return $code
}
check "pagewise --selftest from /usr/bin/pagewise" selftest_installed
if [[ "$PACKAGE" == pagewise-cuda ]]; then
    # No NVIDIA driver in the root: the CUDA backend cannot load, the CPU runs, and it is said.
    cpu_fallback_said() {
        grep -q "install the NVIDIA driver [0-9]" "$CHROOT/tmp/selftest.txt" \
            && grep -q "^backend: CPU" "$CHROOT/tmp/selftest.txt"
    }
    check "without the NVIDIA driver the CUDA build runs on the CPU and names the driver it needs" cpu_fallback_said
fi
written="$(find "$CHROOT/opt/pagewise" -newer "$CHROOT/tmp/stamp" | head -5)"
check "nothing written into the read-only install folder" test -z "$written"
help_lists_commands() { as_user pagewise --help > "$CHROOT/tmp/help.txt" && grep -q "search" "$CHROOT/tmp/help.txt"; }
check "pagewise --help lists the commands (pkgutil finds them in the bundle)" help_lists_commands

if [[ -f "$TARBALL" ]]; then
    log "portable .tar.gz under a path with spaces and non-ASCII characters"
    odd="/home/tester/Mes programmes/Pagewise für Verträge"
    mkdir -p "$CHROOT$odd"
    tar -C "$CHROOT$odd" -xzf "$TARBALL"
    chown -R 1000:1000 "$CHROOT/home/tester"
    top="$(tar -tzf "$TARBALL" | head -1 | cut -d/ -f1)"
    check "selftest of the .tar.gz from '$odd/$top'" \
        as_user env QT_QPA_PLATFORM=offscreen "$odd/$top/pagewise" --selftest
fi

log "data folder on another file system (PAGEWISE_HOME), through the command line"
DATA="/mnt/otherdisk/Pagewise data"
user_cli() { as_user env PAGEWISE_HOME="$DATA" pagewise "$@"; }
check "ingest the sample into '$DATA'" user_cli ingest /opt/pagewise/_internal/assets/sample-contract.pdf
user_cli list
search_finds() {
    user_cli search --all "$1" -k "$2" > "$CHROOT/tmp/search.txt"
    cat "$CHROOT/tmp/search.txt"
    grep -q "score" "$CHROOT/tmp/search.txt"
}
check "search --all finds passages (hybrid: BM25 + vectors)" search_finds "termination for convenience" 2
review_memo() {  # the CUAD checklist (package data) and python-docx's template, from the bundle
    local doc_id
    doc_id="$(user_cli list | awk 'NR == 1 {print $1}')"
    user_cli review "$doc_id" --evidence-only --format docx --out "$DATA/review.docx" > "$CHROOT/tmp/review.txt" 2>&1
    local code=$?
    tail -3 "$CHROOT/tmp/review.txt"
    ls -l "$CHROOT$DATA/review.docx" 2> /dev/null
    [[ $code -eq 0 && -s "$CHROOT$DATA/review.docx" ]]
}
check "review --evidence-only writes the DOCX memo (checklist and template in the bundle)" review_memo
ls -la "$CHROOT$DATA"

log "the window under Xvfb inside the root (xvfb, x11-apps, x11-utils installed now)"
in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    xvfb x11-apps x11-utils > "$CHROOT/tmp/apt-x.log" 2>&1
as_user sh -c 'Xvfb :99 -screen 0 1360x860x24 -nolisten tcp > /tmp/xvfb.log 2>&1 & echo $! > /tmp/xvfb.pid'
sleep 3
XVFB_PID="$(cat "$CHROOT/tmp/xvfb.pid")"
window_count() { as_user env DISPLAY=:99 xwininfo -root -tree 2> /dev/null | grep -c '"Pagewise' ; }
as_user sh -c "DISPLAY=:99 PAGEWISE_HOME='$DATA' pagewise /opt/pagewise/_internal/assets/sample-contract.pdf \
    > /tmp/first.log 2>&1 & echo \$! > /tmp/first.pid"
for _ in $(seq 60); do [[ "$(window_count)" -ge 1 ]] && break; sleep 2; done
check "the window opens under Xvfb (xcb platform plugin)" test "$(window_count)" -ge 1
sleep 25  # the sample is already in this library: it opens in the viewer
as_user env DISPLAY=:99 xwd -root -silent > "$CHROOT/tmp/installed-deb.xwd"
mkdir -p "$(dirname "$SCREENSHOT")"
check "screenshot saved to ${SCREENSHOT#"$ROOT_DIR"/}" convert "xwd:$CHROOT/tmp/installed-deb.xwd" "$SCREENSHOT"
FIRST_PID="$(cat "$CHROOT/tmp/first.pid")"

log "a second instance while the first runs"
windows_before="$(window_count)"
second_instance() {
    as_user sh -c "DISPLAY=:99 PAGEWISE_HOME='$DATA' timeout 60 pagewise /opt/pagewise/_internal/assets/sample-contract.pdf \
        > /tmp/second.log 2>&1"
    local code=$?
    echo "second instance: exit status $code, said: $(grep -v ' INFO ' "$CHROOT/tmp/second.log" | tail -3)"
    [[ $code -eq 0 ]] && grep -q "already open" "$CHROOT/tmp/second.log"
}
check "a second instance hands its file to the first window and exits" second_instance
sleep 5
echo "Pagewise windows on the display: $windows_before before, $(window_count) after"
check "no second window" test "$(window_count)" -eq "$windows_before"
check "the first instance is still running" kill -0 "$FIRST_PID"
kill "$FIRST_PID" 2> /dev/null
sleep 5
echo "first instance log (last lines):"; tail -5 "$CHROOT/tmp/first.log"
user_cli list
check "the library is intact after two instances (search)" search_finds "governing law" 1
in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends sqlite3 > "$CHROOT/tmp/apt-sqlite.log" 2>&1
integrity_ok() {
    local result
    result="$(as_user sqlite3 "$DATA/library.sqlite" "PRAGMA integrity_check;")"
    echo "PRAGMA integrity_check: $result"
    [[ "$result" == ok ]]
}
check "the library passes SQLite's integrity check after two instances" integrity_ok
kill "$XVFB_PID" 2> /dev/null; XVFB_PID=

log "upgrade: a newer package installed over this one; a library made by an older Pagewise"
# There is one release so far: the newer package is this one with its version raised (-Znone:
# recompressing a CUDA package takes many minutes). dpkg replaces /opt/pagewise; the user's data
# folder is not the package's, and stays.
newer_package_installs() {
    local dir code
    dir="$(mktemp -d /var/tmp/pagewise-newer.XXXXXX)"
    dpkg-deb -R "$DEB" "$dir/pkg" && sed -i 's/^Version: .*/&+upgradecheck1/' "$dir/pkg/DEBIAN/control" \
        && dpkg-deb -Znone --build "$dir/pkg" "$CHROOT/tmp/newer.deb" > /dev/null
    code=$?
    rm -rf "$dir"
    [[ $code -eq 0 ]] || return $code
    in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends /tmp/newer.deb \
        > "$CHROOT/tmp/apt-upgrade.log" 2>&1 || { tail -5 "$CHROOT/tmp/apt-upgrade.log"; return 1; }
    rm -f "$CHROOT/tmp/newer.deb"
    local version
    version="$(in_root dpkg-query -W -f '${Version}' "$PACKAGE")"
    echo "installed now: $PACKAGE $version"
    [[ "$version" == *+upgradecheck1 ]]
}
check "a newer package installs over this one (apt-get install)" newer_package_installs
check "the user's library is intact after the upgrade (search)" search_finds "governing law" 1
check "the library passes SQLite's integrity check after the upgrade" integrity_ok
# A library written by an older Pagewise (OLD_LIBRARY_COMMIT: the last commit before review
# results and the embedding-model record, library format v3), made here from that commit's source
# with the development venv; the installed app migrates it and keeps a copy first.
OLD_LIBRARY_COMMIT="${OLD_LIBRARY_COMMIT:-bad3435}"
OLD="/home/tester/old-library"
old_library_made() {
    local src code
    [[ -x "$ROOT_DIR/.venv/bin/python" ]] || { echo "no $ROOT_DIR/.venv: run make test first"; return 1; }
    src="$(mktemp -d /var/tmp/pagewise-old.XXXXXX)"
    git -C "$ROOT_DIR" archive "$OLD_LIBRARY_COMMIT" | tar -x -C "$src" \
        && (cd "$src" && PAGEWISE_HOME="$CHROOT$OLD" "$ROOT_DIR/.venv/bin/python" -m app.cli ingest \
            assets/sample-contract.pdf > /dev/null)
    code=$?
    rm -rf "$src"
    chown -R 1000:1000 "$CHROOT$OLD"
    echo "library format of $OLD: v$(sqlite3 "$CHROOT$OLD/library.sqlite" 'SELECT MAX(version) FROM migrations')"
    return $code
}
old_library_migrated() {
    as_user env PAGEWISE_HOME="$OLD" pagewise list > "$CHROOT/tmp/old-list.txt" 2>&1
    local code=$? version
    cat "$CHROOT/tmp/old-list.txt"
    version="$(as_user sqlite3 "$OLD/library.sqlite" 'SELECT MAX(version) FROM migrations')"
    echo "library format now: v$version; kept: $(ls "$CHROOT$OLD" | grep bak | paste -sd' ')"
    [[ $code -eq 0 ]] && grep -q "sample-contract" "$CHROOT/tmp/old-list.txt" \
        && grep -q "previous version is kept" "$CHROOT/tmp/old-list.txt" \
        && [[ -f "$CHROOT$OLD/library.sqlite.bak-v3" && "$version" -gt 3 ]]
}
old_library_searched() {
    as_user env PAGEWISE_HOME="$OLD" pagewise search --all "governing law" -k 1 > "$CHROOT/tmp/old-search.txt" 2>&1
    tail -3 "$CHROOT/tmp/old-search.txt"
    grep -q "score" "$CHROOT/tmp/old-search.txt"
}
check "a library made by Pagewise at $OLD_LIBRARY_COMMIT (format v3)" old_library_made
check "the installed app migrates it, keeping library.sqlite.bak-v3 first" old_library_migrated
check "the migrated library searches (hybrid)" old_library_searched

log "apt-get remove $PACKAGE"
in_root env DEBIAN_FRONTEND=noninteractive apt-get remove -y -q "$PACKAGE" > /dev/null
check "remove deletes /opt/pagewise and /usr/bin/pagewise" test ! -e "$CHROOT/opt/pagewise" -a ! -e "$CHROOT/usr/bin/pagewise"
check "remove leaves the user's library" test -f "$CHROOT$DATA/library.sqlite"

log "summary"
printf '%s\n' "${RESULTS[@]}"
if [[ ${#FAILED[@]} -gt 0 ]]; then echo "smoke test FAILED: ${#FAILED[@]} check(s)"; exit 1; fi
echo "smoke test passed"

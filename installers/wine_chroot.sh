# Sourced by build_windows_wine.sh and smoke_wine.sh: Wine 10.0 from a Debian 13 ("trixie") chroot.
# Debian 12's own Wine 8.0 cannot run the build (numpy aborts on ucrtbase's C99 complex stubs, Qt
# 6.12 needs Windows' ICU): ../shared/reports/windows-wine10.md. Every Wine and X command of the
# scripts runs inside the chroot with a clean environment; the checkout (and any folder the scripts
# hand to Wine) is bind-mounted there at the same path.
#
# WINE_CHROOT: where the chroot lives (default /var/tmp/pagewise-wine10, outside the checkout, so
# that no `rm -rf build` can walk into a bind mount of the checkout); WINE_CHROOT= (empty) runs the
# host's own Wine instead. The chroot is made by build_windows_wine.sh's toolchain step
# (wine_chroot_make) and removed only by `build_windows_wine.sh --remove-chroot`, which unmounts
# everything first.
WINE_CHROOT="${WINE_CHROOT-/var/tmp/pagewise-wine10}"
WINE_DEB_VERSION="10.0~repack-6"        # Debian 13's Wine, pinned: the shims are built against it
WINE_SUITE=trixie
WINE_CHROOT_MOUNTS=()                   # what this shell mounted, unmounted by wine_chroot_umount

if [[ -n "$WINE_CHROOT" ]]; then
    # The host's Debian mirror (deb.debian.org unless apt's sources name another).
    wine_chroot_mirror() {
        local m
        m="$(grep -rhoE '^(URIs:|deb) *https?://[^ ]+/debian/?( |$)' /etc/apt/sources.list /etc/apt/sources.list.d 2> /dev/null \
            | grep -oE 'https?://[^ ]+' | head -1)"
        echo "${m:-http://deb.debian.org/debian}"
    }

    # Mount proc, sys, dev and bind the given folders at the same path. Idempotent; needs root.
    wine_chroot_mount() {
        local c="$WINE_CHROOT" d
        [[ -d "$c/usr" ]] || { echo "wine_chroot.sh: no chroot at $c (run installers/build_windows_wine.sh --until toolchain)" >&2; return 2; }
        for d in proc sys dev dev/pts dev/shm; do
            mkdir -p "$c/$d"
            mountpoint -q "$c/$d" && continue
            case "$d" in
                proc) mount -t proc proc "$c/proc" ;;
                sys) mount -t sysfs sys "$c/sys" ;;
                dev/shm) mount -t tmpfs shm "$c/dev/shm" ;;
                *) mount --bind "/$d" "$c/$d" ;;
            esac
            WINE_CHROOT_MOUNTS+=("$c/$d")
        done
        for d in "$@"; do
            mkdir -p "$c$d"
            mountpoint -q "$c$d" && continue
            mount --bind "$d" "$c$d"
            WINE_CHROOT_MOUNTS+=("$c$d")
        done
    }

    # Every mount below the chroot (deepest first), whoever made it.
    wine_chroot_mounts() { awk -v c="$WINE_CHROOT/" 'index($2 "/", c) == 1 { print $2 }' /proc/self/mounts | sort -r; }

    # Stop Wine, then unmount what lives in the chroot (all of it with "all", else what this shell
    # mounted). Lazy unmounts: a process of a Windows program that outlived wineserver -k does not
    # keep the checkout bound in the chroot.
    wine_chroot_umount() {
        local m
        _in_chroot wineserver -k > /dev/null 2>&1 || true
        if [[ "${1:-}" == all ]]; then
            while read -r m; do [[ -n "$m" ]] && umount -l "$m"; done < <(wine_chroot_mounts)
        else
            for ((i = ${#WINE_CHROOT_MOUNTS[@]} - 1; i >= 0; i--)); do
                mountpoint -q "${WINE_CHROOT_MOUNTS[$i]}" && umount -l "${WINE_CHROOT_MOUNTS[$i]}"
            done
            WINE_CHROOT_MOUNTS=()
        fi
    }

    # Whether the chroot has the program /usr/bin/NAME, looked at from inside: Debian's wine is an
    # absolute link through /etc/alternatives, which from outside resolves on the host instead (and
    # fails on a host without Wine, leaving the chroot unmounted: "could not load ntdll.so").
    wine_chroot_has() { [[ -d "$WINE_CHROOT/usr/bin" ]] && chroot "$WINE_CHROOT" /usr/bin/test -x "/usr/bin/$1"; }

    # debootstrap a minimal trixie and install the pinned Wine, Xvfb and the screenshot tools. Does
    # nothing when the chroot already has that Wine.
    wine_chroot_make() {
        local c="$WINE_CHROOT" mirror
        mirror="$(wine_chroot_mirror)"
        if wine_chroot_has wine && wine_chroot_has xdotool && chroot "$c" dpkg-query -W -f='${Version}' wine 2> /dev/null | grep -qx "$WINE_DEB_VERSION"; then
            echo "chroot $c has wine $WINE_DEB_VERSION"
            return 0
        fi
        if [[ ! -x "$c/usr/bin/apt-get" ]]; then
            [[ -z "$(wine_chroot_mounts)" ]] || { echo "wine_chroot.sh: $c is half made and has mounts; run --remove-chroot" >&2; return 1; }
            rm -rf "$c"
            debootstrap --variant=minbase "$WINE_SUITE" "$c" "$mirror"
        fi
        wine_chroot_mount
        printf 'deb %s %s main\ndeb-src %s %s main\n' "$mirror" "$WINE_SUITE" "$mirror" "$WINE_SUITE" > "$c/etc/apt/sources.list"
        chroot "$c" apt-get update -q
        chroot "$c" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
            "wine=$WINE_DEB_VERSION" "wine64=$WINE_DEB_VERSION" "libwine=$WINE_DEB_VERSION" \
            "fonts-wine=$WINE_DEB_VERSION" xvfb xauth x11-apps imagemagick xdotool ca-certificates
        chroot "$c" wine --version
    }

    # Wine's .spec files (which exports are '@ stub'), for installers/wine-shims/winestubs.py.
    wine_chroot_specs() {   # wine_chroot_specs OUT_DIR
        local out="$1" tarball
        [[ -f "$out/dlls/apisetschema/apisetschema.spec" ]] && return 0
        mkdir -p "$WINE_CHROOT/tmp/wine-src"
        chroot "$WINE_CHROOT" bash -c "cd /tmp/wine-src && apt-get source -q --download-only wine=$WINE_DEB_VERSION" > /dev/null
        tarball="$(ls "$WINE_CHROOT"/tmp/wine-src/wine_*.orig.tar.xz | head -1)"
        rm -rf "$out" && mkdir -p "$out"
        tar xJf "$tarball" -C "$out" --strip-components=1 --wildcards '*/dlls/*/*.spec'
        rm -rf "$WINE_CHROOT/tmp/wine-src"
    }

    _in_chroot() {
        local envs=(HOME=/root PATH=/usr/bin:/bin XDG_RUNTIME_DIR=/tmp) v
        for v in LANG LC_ALL WINEPREFIX WINEARCH WINEDEBUG WINEDLLOVERRIDES KMP_AFFINITY DISPLAY \
                 QT_QPA_PLATFORM PAGEWISE_VARIANT PAGEWISE_HOME PYTHONUTF8 PYTHONIOENCODING \
                 OMP_WAIT_POLICY GOMP_SPINCOUNT LLAMA_CPP_LIB_PATH; do
            [[ -v $v ]] && envs+=("$v=${!v}")
        done
        [[ -v LANG ]] || envs+=(LANG=C.UTF-8)
        # Wine 9+ keeps QT_* (and PATH, HOME, TEMP, ...) of the Unix environment from Windows
        # programs unless they are written with a WINE prefix (dlls/ntdll/unix/env.c,
        # is_special_env_var): QT_QPA_PLATFORM=offscreen alone would not reach Qt.
        [[ -v QT_QPA_PLATFORM ]] && envs+=("WINEQT_QPA_PLATFORM=$QT_QPA_PLATFORM")
        chroot "$WINE_CHROOT" env -i "${envs[@]}" bash -c 'cd "$1" 2>/dev/null || cd /; shift; exec "$@"' _ "$PWD" "$@"
    }
    wine() { _in_chroot wine "$@"; }
    wineserver() { _in_chroot wineserver "$@"; }
    wineboot() { _in_chroot wineboot "$@"; }
    winepath() { _in_chroot winepath "$@"; }
    xvfb-run() { _in_chroot xvfb-run "$@"; }
    xwd() { _in_chroot xwd "$@"; }
    xdotool() { _in_chroot xdotool "$@"; }
    convert() { _in_chroot convert "$@"; }
    Xvfb() { exec chroot "$WINE_CHROOT" env -i PATH=/usr/bin:/bin Xvfb "$@"; }   # backgrounded only
fi

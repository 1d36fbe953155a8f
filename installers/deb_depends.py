"""The .deb's Depends: line for a PyInstaller bundle: ``deb_depends.py BUNDLE_DIR``.

Every ELF file in the bundle is read with ``ldd`` (the bundle's own folders on the library
path, as at run time); each library it needs that the bundle does not carry is mapped to the
Debian package holding it (``dpkg -S`` on the build machine), and the newest ``GLIBC_x.y``
symbol version any file needs becomes ``libc6 (>= x.y)``. Libraries missing on the build
machine are mapped with the table below, and the packages Qt's xcb platform plugin loads at run
time (it names only xcb-cursor0 when one is missing) are always listed. Prints one line.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

# What a fresh Debian desktop may lack for Qt's xcb platform plugin and its GL integration;
# listed even when ldd resolved them, so the package never relies on the build machine.
ALWAYS = [
    "libxcb-cursor0",
    "libxcb-icccm4",
    "libxcb-keysyms1",
    "libxcb-image0",
    "libxcb-util1",
    "libxcb-render-util0",
    "libxcb-shape0",
    "libxcb-randr0",
    "libxcb-xkb1",
    "libxkbcommon-x11-0",
    "libxkbcommon0",
    "libx11-xcb1",
    "libegl1",
    "libgl1",
    "libfontconfig1",
    "libfreetype6",
    "libdbus-1-3",
    "libglib2.0-0",
]

# soname -> package, for libraries the build machine does not have (ldd: "not found").
KNOWN = {
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-util.so.1": "libxcb-util1",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
    "libxcb-xfixes.so.0": "libxcb-xfixes0",
    "libxcb-shm.so.0": "libxcb-shm0",
    "libxcb-sync.so.1": "libxcb-sync1",
    "libxcb-render.so.0": "libxcb-render0",
    "libxcb-xinput.so.0": "libxcb-xinput0",
    "libxcb-glx.so.0": "libxcb-glx0",
    "libxcb.so.1": "libxcb1",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libxkbcommon.so.0": "libxkbcommon0",
    "libX11-xcb.so.1": "libx11-xcb1",
    "libX11.so.6": "libx11-6",
    "libEGL.so.1": "libegl1",
    "libGL.so.1": "libgl1",
    "libOpenGL.so.0": "libopengl0",
    "libGLX.so.0": "libglx0",
    "libfontconfig.so.1": "libfontconfig1",
    "libfreetype.so.6": "libfreetype6",
    "libdbus-1.so.3": "libdbus-1-3",
    "libglib-2.0.so.0": "libglib2.0-0",
    "libgthread-2.0.so.0": "libglib2.0-0",
    "libgobject-2.0.so.0": "libglib2.0-0",
    "libgio-2.0.so.0": "libglib2.0-0",
    "libwayland-client.so.0": "libwayland-client0",
    "libwayland-cursor.so.0": "libwayland-cursor0",
    "libwayland-egl.so.1": "libwayland-egl1",
    "libdrm.so.2": "libdrm2",
    "libgbm.so.1": "libgbm1",
    "libgomp.so.1": "libgomp1",
}

# Part of libc6 itself (versioned below) or of every Debian system.
ESSENTIAL = {"libc6", "libc-bin", "libgcc-s1", "libstdc++6", "zlib1g"}
# The CUDA variant may load the driver's library; it is never a dependency (CPU fallback).
OPTIONAL = {"libcuda.so.1", "libnvidia-ml.so.1"}
# Plugins Qt tries and skips when their libraries are missing: the GTK 3 theme (native file
# dialogs on GNOME) is used where GTK is installed, and never required.
OPTIONAL_PLUGINS = {"libqgtk3.so"}
RECOMMENDS = ["libgtk-3-0"]


def elf_files(bundle: Path) -> list[Path]:
    found = []
    for path in bundle.rglob("*"):
        if path.is_file() and not path.is_symlink():
            with path.open("rb") as handle:
                if handle.read(4) == b"\x7fELF":
                    found.append(path)
    return sorted(found)


def package_of(library: str) -> str | None:
    real = os.path.realpath(library)
    candidates = {library, real}
    for path in list(candidates):  # merged /usr: dpkg may know either spelling
        if path.startswith("/usr/lib/"):
            candidates.add(path[len("/usr") :])
        elif path.startswith("/lib/"):
            candidates.add("/usr" + path)
    for path in sorted(candidates):
        result = subprocess.run(["dpkg", "-S", path], capture_output=True, text=True)
        if result.returncode == 0:
            return result.stdout.split(":")[0].strip()
    return None


def glibc_needed(files: list[Path]) -> str:
    newest = (2, 17)
    for path in files:
        result = subprocess.run(["objdump", "-T", str(path)], capture_output=True, text=True)
        for major, minor in re.findall(r"GLIBC_(\d+)\.(\d+)", result.stdout):
            newest = max(newest, (int(major), int(minor)))
    return f"{newest[0]}.{newest[1]}"


def main(bundle: Path) -> int:
    files = elf_files(bundle)
    library_dirs = sorted({str(p.parent) for p in files})
    env = dict(os.environ, LD_LIBRARY_PATH=os.pathsep.join(library_dirs))
    packages = set(ALWAYS)
    unknown: dict[str, str] = {}
    bundle_root = str(bundle.resolve())
    for path in files:
        if path.name in OPTIONAL_PLUGINS:
            continue
        result = subprocess.run(["ldd", str(path)], capture_output=True, text=True, env=env)
        for line in result.stdout.splitlines():
            match = re.match(r"\s*(\S+) => (not found|\S+)", line)
            if not match:
                continue
            soname, where = match.groups()
            if soname in OPTIONAL or where.startswith(bundle_root):
                continue
            package = KNOWN.get(soname) if where == "not found" else package_of(where)
            if package is None:
                unknown.setdefault(soname, str(path.relative_to(bundle)))
            else:
                packages.add(package)
    if unknown:
        for soname, needer in sorted(unknown.items()):
            sys.stderr.write(f"deb_depends.py: no Debian package known for {soname} (needed by {needer})\n")
        return 1
    depends = [f"libc6 (>= {glibc_needed(files)})", *sorted(packages - ESSENTIAL)]
    if "libstdc++6" in packages:
        depends.append("libstdc++6")
    print(", ".join(depends))
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: deb_depends.py BUNDLE_DIR")
    sys.exit(main(Path(sys.argv[1])))

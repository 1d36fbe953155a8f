"""The system libraries the window needs on Linux, and which of them are missing.

Qt's X11 platform plugin links against a dozen xcb libraries that a desktop Debian or Ubuntu
does not always have (on a fresh Debian desktop, ``libxcb-icccm4`` and ``libxcb-keysyms1`` were
missing while Qt's own message named only ``xcb-cursor0``). ``ldd`` on the plugin and the Qt
libraries it loads names each one that cannot be found; the table says which Debian package
holds it. Qt-free: ``pagewise doctor`` and the window's start-up both use it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

# soname → Debian/Ubuntu package (the same names on both).
DEBIAN_PACKAGES = {
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-util.so.1": "libxcb-util1",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-render.so.0": "libxcb-render0",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-shm.so.0": "libxcb-shm0",
    "libxcb-sync.so.1": "libxcb-sync1",
    "libxcb-xfixes.so.0": "libxcb-xfixes0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
    "libxcb.so.1": "libxcb1",
    "libX11-xcb.so.1": "libx11-xcb1",
    "libX11.so.6": "libx11-6",
    "libxkbcommon.so.0": "libxkbcommon0",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libEGL.so.1": "libegl1",
    "libGL.so.1": "libgl1",
    "libOpenGL.so.0": "libopengl0",
    "libfontconfig.so.1": "libfontconfig1",
    "libfreetype.so.6": "libfreetype6",
    "libdbus-1.so.3": "libdbus-1-3",
    "libglib-2.0.so.0": "libglib2.0-0",
}
# What the X11 window loads: the platform plugin, its Qt library, and QtGui/QtPdf under them.
QT_FILES = ("plugins/platforms/libqxcb.so", "lib/libQt6XcbQpa.so.6", "lib/libQt6Gui.so.6", "lib/libQt6Pdf.so.6")


def parse_ldd(output: str) -> list[str]:
    """The sonames ``ldd`` reports as ``not found``, in order, once each."""
    missing: list[str] = []
    for line in output.splitlines():
        name, _, rest = line.strip().partition(" => ")
        if rest.strip() == "not found" and name not in missing:
            missing.append(name)
    return missing


def qt_dir() -> Path | None:
    import importlib.util

    spec = importlib.util.find_spec("PySide6")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "Qt"


def missing_window_libraries(qt: Path | None = None) -> list[str]:
    """Sonames the X11 window needs that this system lacks; empty off Linux or without ``ldd``."""
    if not sys.platform.startswith("linux"):
        return []
    ldd = shutil.which("ldd")
    qt = qt or qt_dir()
    if ldd is None or qt is None:
        return []
    missing: list[str] = []
    for relative in QT_FILES:
        path = qt / relative
        if not path.exists():
            continue
        try:
            done = subprocess.run([ldd, str(path)], capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.SubprocessError):
            continue
        missing += [name for name in parse_ldd(done.stdout) if name not in missing]
    return missing


def install_hint(missing: list[str]) -> str:
    """``sudo apt install …`` for the missing libraries (their Debian/Ubuntu packages)."""
    packages = [DEBIAN_PACKAGES[name] for name in missing if name in DEBIAN_PACKAGES]
    unknown = [name for name in missing if name not in DEBIAN_PACKAGES]
    parts = []
    if packages:
        parts.append("On Debian or Ubuntu: sudo apt install " + " ".join(packages))
    if unknown:
        parts.append("Install the packages that provide " + ", ".join(unknown))
    return "; ".join(parts) + "."


def uses_x11() -> bool:
    """Whether Qt will pick its X11 (xcb) plugin: asked for, or no Wayland session to use."""
    platform = os.environ.get("QT_QPA_PLATFORM", "")
    if platform:
        return platform.split(";")[0].startswith("xcb")
    return sys.platform.startswith("linux") and not os.environ.get("WAYLAND_DISPLAY")


def window_libraries_problem() -> str | None:
    """A message naming the missing libraries and how to install them, or None."""
    missing = missing_window_libraries()
    if not missing:
        return None
    return f"The window needs system libraries that are missing: {', '.join(missing)}. " + install_hint(missing)

"""Whether the computer runs on battery (background work pauses then, when Settings say "auto").

Linux: ``/sys/class/power_supply`` (a mains adapter that is online means plugged in; batteries
without any adapter listed count as battery when one of them is discharging). Windows:
``GetSystemPowerStatus``. Elsewhere, or when nothing can be read, the answer is "not known" and
background work runs.
"""

from __future__ import annotations

import ctypes
import sys
from pathlib import Path

POWER_SUPPLY = Path("/sys/class/power_supply")


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="ascii", errors="replace").strip()
    except OSError:
        return ""


def _linux_on_battery(root: Path = POWER_SUPPLY) -> bool | None:
    if not root.is_dir():
        return None
    adapters = [p for p in root.iterdir() if _read(p / "type") == "Mains"]
    if any(_read(p / "online") == "1" for p in adapters):
        return False
    batteries = [p for p in root.iterdir() if _read(p / "type") == "Battery"]
    if not batteries:
        return None  # a desktop: no battery at all
    if adapters:
        return True  # adapters listed, none online
    return any(_read(p / "status") == "Discharging" for p in batteries)


class _SystemPowerStatus(ctypes.Structure):
    _fields_ = [
        ("ACLineStatus", ctypes.c_ubyte),
        ("BatteryFlag", ctypes.c_ubyte),
        ("BatteryLifePercent", ctypes.c_ubyte),
        ("SystemStatusFlag", ctypes.c_ubyte),
        ("BatteryLifeTime", ctypes.c_ulong),
        ("BatteryFullLifeTime", ctypes.c_ulong),
    ]


def _windows_on_battery() -> bool | None:
    status = _SystemPowerStatus()
    if not ctypes.windll.kernel32.GetSystemPowerStatus(ctypes.byref(status)):  # type: ignore[attr-defined]
        return None
    return {0: True, 1: False}.get(status.ACLineStatus)  # 255: unknown


def on_battery() -> bool | None:
    """True on battery, False on mains power, None when it cannot be told."""
    if sys.platform.startswith("linux"):
        return _linux_on_battery()
    if sys.platform == "win32":
        return _windows_on_battery()
    return None

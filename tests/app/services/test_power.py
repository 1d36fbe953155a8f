"""Whether the computer runs on battery, read from a fake /sys/class/power_supply."""

from __future__ import annotations

from pathlib import Path

from app.services.power import _linux_on_battery


def supply(root: Path, name: str, **files: str) -> None:
    folder = root / name
    folder.mkdir(parents=True)
    for key, value in files.items():
        (folder / key).write_text(value + "\n")


def test_mains_online_battery_and_a_desktop(tmp_path: Path) -> None:
    laptop = tmp_path / "laptop"
    supply(laptop, "AC", type="Mains", online="1")
    supply(laptop, "BAT0", type="Battery", status="Charging")
    assert _linux_on_battery(laptop) is False
    (laptop / "AC" / "online").write_text("0\n")
    assert _linux_on_battery(laptop) is True
    no_adapter = tmp_path / "no-adapter"
    supply(no_adapter, "BAT0", type="Battery", status="Discharging")
    assert _linux_on_battery(no_adapter) is True
    desktop = tmp_path / "desktop"
    supply(desktop, "AC", type="Mains", online="1")
    assert _linux_on_battery(desktop) is False
    assert _linux_on_battery(tmp_path / "none") is None
    empty = tmp_path / "empty"
    empty.mkdir()
    assert _linux_on_battery(empty) is None

"""A small window (findings of a new user: at 900×600 the status line was cut and the Find box
shrank to a few letters; at 640×480 the library list was clipped)."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QPushButton

from tests.app.conftest import wait_for_document
from tests.conftest import CONTRACTS

LONG_PLAN = (
    "Qwen2.5-14B-Instruct-Q4_K_M · 49/49 layers GPU · ctx 32768 · KV q8_0 · 11.2 GiB of 12.0 GiB · "
    "batches of 4 · CUDA — not loaded yet"
)


def test_a_small_window_keeps_each_part_usable(qtbot: Any, make_window: Any) -> None:
    window = make_window()
    window.add_paths([CONTRACTS / "license-17p.pdf"])
    wait_for_document(qtbot, window)
    window.status.set_plan(LONG_PLAN)
    window.resize(900, 600)
    qtbot.waitUntil(lambda: window.size().toTuple() == (900, 600), timeout=3000)
    assert window.viewer.find_box.width() >= 120
    plan, corner = window.status.plan_label, window.status.no_gpu
    assert plan.shown_text().endswith("…") and plan.toolTip() == LONG_PLAN  # elided, whole in the tooltip
    assert plan.geometry().right() < corner.geometry().left() and corner.geometry().right() <= window.status.width()
    buttons = window.welcome.findChildren(QPushButton)  # side by side no more: one above the other
    qtbot.waitUntil(lambda: all(b.width() >= b.sizeHint().width() for b in buttons), timeout=3000)

    window.resize(640, 480)  # smaller than the window allows: it stays readable instead
    qtbot.waitUntil(lambda: window.width() < 900 or window.height() < 600, timeout=3000)
    assert window.width() >= 900 and window.height() >= 560
    assert window.library_panel.list.width() >= 150
    assert window.viewer.find_box.width() >= 120

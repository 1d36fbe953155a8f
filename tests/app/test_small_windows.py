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
    free = window.screen().availableGeometry()  # a screen smaller than that lowers the minimum to fit
    assert window.width() >= min(900, free.width() - 16) and window.height() >= min(560, free.height() - 48)
    assert window.library_panel.list.width() >= 150
    assert window.viewer.find_box.width() >= 120


def test_the_review_tab_has_room_at_the_default_size_and_scrolls_at_900x600(
    qtbot: Any, make_window: Any, tmp_path: Any
) -> None:
    """Issue 24: contract names cut at 1360×860; at 900×600 cells showed "..." and buttons were clipped."""
    from PySide6.QtWidgets import QScrollArea

    from tests.app.controllers.test_review import run_review, window_with_contract

    window, _doc_id, panel = window_with_contract(qtbot, make_window, tmp_path, evidence_only=True)
    window.tabs.setCurrentWidget(window.conversation)
    window.resize(1360, 860)
    qtbot.waitUntil(lambda: window.size().toTuple() == (1360, 860), timeout=3000)
    viewer_before = window.viewer.width()
    window.tabs.setCurrentWidget(window.review)
    run_review(qtbot, window)
    qtbot.wait(50)
    right = window.tabs.parentWidget()
    assert right.width() >= 0.5 * window.splitter.width()  # the grid's room comes from the viewer...
    assert panel.grid.columnWidth(0) >= 300 and panel.contracts.height() >= 70  # four rows or so
    window.tabs.setCurrentWidget(window.conversation)
    qtbot.wait(50)
    assert abs(window.viewer.width() - viewer_before) <= 2  # ...and goes back to it

    window.tabs.setCurrentWidget(window.review)
    window.resize(900, 600)
    qtbot.waitUntil(lambda: window.size().toTuple() == (900, 600), timeout=3000)
    scroll = panel.findChild(QScrollArea, "review-scroll")
    assert panel.grid.height() >= 160  # not squeezed: the tab scrolls instead
    for button in (panel.review_button, panel.save_button, *panel.export_buttons.values()):
        assert button.width() >= button.sizeHint().width()  # whole, not clipped
        scroll.ensureWidgetVisible(button)
        assert button.visibleRegion().boundingRect().width() >= button.sizeHint().width() - 4


def test_the_review_tab_takes_half_a_narrow_window_and_the_window_fits_its_screen(
    qtbot: Any, make_window: Any, tmp_path: Any
) -> None:
    """Walk 2026-12-05, finding 13: at 900×600 the Review tab kept ~30 % of the width (controls,
    legend and names cut, one contract column); with QT_SCALE_FACTOR=2 on a 1920×1080 screen
    the window opened taller than the screen, its status bar below it."""
    window = make_window()
    window.resize(900, 600)
    qtbot.waitUntil(lambda: window.size().toTuple() == (900, 600), timeout=3000)
    window.tabs.setCurrentWidget(window.review)
    right = window.tabs.parentWidget()
    qtbot.waitUntil(lambda: right.width() >= 0.5 * window.splitter.width(), timeout=3000)
    assert window.viewer.width() >= window.viewer.minimumSizeHint().width()  # the viewer stays whole
    window.tabs.setCurrentWidget(window.conversation)
    qtbot.waitUntil(lambda: window.library_panel.width() >= 170, timeout=3000)  # and back

    # The offscreen screen is 800×800: a 1360×860 window would not fit it.
    window.window_state.remove("geometry")
    window.restore_state()
    free = window.screen().availableGeometry()
    assert window.width() <= free.width() and window.height() + window.FRAME_ROOM[1] <= free.height()
    assert window.minimumWidth() <= free.width() and window.minimumHeight() <= free.height()

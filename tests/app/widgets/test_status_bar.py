"""The status bar says "CPU only" when the CUDA build found no NVIDIA driver (the reason its
startup hook leaves in ``PAGEWISE_GPU_UNAVAILABLE``), with the reason in the tooltips; without
that variable nothing of the kind is shown."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from PySide6.QtWidgets import QLabel

NOTICE = "no NVIDIA driver found; this build needs driver 580 (CUDA 13) or newer"


def welcome_text(window: Any) -> str:
    return " ".join(label.text() for label in window.welcome.findChildren(QLabel))


def test_cpu_only_with_the_reason_when_the_gpu_is_unavailable(
    qtbot: Any, make_window: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PAGEWISE_GPU_UNAVAILABLE", NOTICE)
    window = make_window()
    status = window.status
    assert status.cpu_only.isVisible() and status.cpu_only.text() == "CPU only"
    assert status.cpu_only.toolTip() == f"Models run on the CPU: {NOTICE}."
    assert not status.no_gpu.isVisible()  # "no NVIDIA GPU" would be wrong: the driver is missing
    plan = status.plan_label
    assert NOTICE not in plan.text() and plan.toolTip() == f"{plan.text()}\nModels run on the CPU: {NOTICE}."
    status.set_plan("fake-model · test plan — not loaded yet")
    assert plan.toolTip().startswith("fake-model · test plan — not loaded yet\n") and NOTICE in plan.toolTip()
    assert f"The GPU cannot be used ({NOTICE})" in welcome_text(window)


def test_nothing_about_it_without_the_notice(qtbot: Any, make_window: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PAGEWISE_GPU_UNAVAILABLE", raising=False)
    window = make_window()
    status = window.status
    assert not status.cpu_only.isVisible() and status.cpu_only.toolTip() == ""
    assert status.no_gpu.isVisible() and status.no_gpu.text() == "no NVIDIA GPU"
    assert status.plan_label.toolTip() == status.plan_label.text()
    assert "No NVIDIA GPU was found" in welcome_text(window) and "cannot be used" not in welcome_text(window)


def test_the_status_pieces_are_set_apart(qtbot: Any) -> None:
    """Walk 2026-12-05, finding 19: "…a question or review goes first generating 13.8 tok/s" and
    "…0/2 last 22.4 tok/s": the pieces of the status bar ran together."""
    from app.widgets.status_bar import StatusBar

    status = StatusBar(None)
    qtbot.addWidget(status)
    status.resize(1360, 30)
    status.show()
    qtbot.waitExposed(status)
    assert not status.speed_label.isVisible()  # nothing to say yet: no empty piece with its mark
    status.set_background("background summary paused: a question or review goes first")
    status.set_running_rate(13.8)
    qtbot.wait(20)
    pieces = [status.background, status.speed_label, status.no_gpu]
    assert all(piece.isVisible() for piece in pieces)
    for left, right in itertools.pairwise(pieces):
        text_end = left.mapTo(status, left.contentsRect().topLeft()).x() + left.fontMetrics().horizontalAdvance(
            left.text()
        )
        text_start = right.mapTo(status, right.contentsRect().topLeft()).x()
        assert text_start - text_end >= 12, (left.text(), right.text())  # a separator and room around it
        assert right.frameShape() == right.Shape.NoFrame and "border-left" in right.styleSheet()

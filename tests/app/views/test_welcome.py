"""The welcome panel offers a model that suits this computer (issue 24, finding 18: on a 2-core
machine without a GPU it offered a 7B model, 4.6 GB, after saying models run "slower" there)."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtWidgets import QLabel, QPushButton

from app.views.welcome import recommended_model

GIB = 1024**3


def test_without_a_gpu_the_welcome_panel_offers_the_small_model(make_window: Any) -> None:
    window = make_window()  # no GPU telemetry: the CPU
    label, entry = window.recommended
    assert entry.params_billion < 2 and entry.approx_size_gb < 1.5  # a 1.5B model, not the 7B
    assert window.model_setup.recommended_entry is entry  # "Download recommended model" gets it too
    text = " ".join(widget.text() for widget in window.welcome.findChildren(QLabel))
    assert f"{entry.title}, a {entry.approx_size_gb:.1f} GB download" in text
    assert "for a computer without a graphics card" in text
    buttons = [button.text() for button in window.welcome.findChildren(QPushButton)]
    assert f"Download {entry.title} (~{entry.approx_size_gb:.1f} GB)" in buttons and label in buttons[-1]


@pytest.mark.parametrize(
    ("vram_gib", "params_billion", "reason"),
    [
        (None, 1.54, "without a graphics card"),
        (3.8, 1.54, "less than the 8 GB"),  # a GPU too small for the 7B
        (7.6, 7.6, "fits 8 GB of GPU memory"),
        (11.6, 14.8, "fits 12 GB of GPU memory"),
    ],
)
def test_the_recommendation_follows_the_gpu_memory(vram_gib: float | None, params_billion: float, reason: str) -> None:
    from app.views.welcome import why_recommended  # new with the small model: the old code fails on it here

    vram = int(vram_gib * GIB) if vram_gib else None
    label, entry = recommended_model(vram)
    assert entry is not None and entry.params_billion == params_billion
    assert entry.title in label and f"{entry.approx_size_gb:.1f} GB" in label
    assert reason in why_recommended(entry, vram)

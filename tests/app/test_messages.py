"""The banner area above the window's content (findings of a new user: banners piled up, and
"Asking needs a language model…" stayed after a model was set)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.app.conftest import wait_for_document
from tests.conftest import CONTRACTS


def shown(window: Any) -> list[str]:
    return [item.message.text for item in window.message_bar.items()]


def test_at_most_two_banners_the_newest_and_each_text_once(make_window: Any) -> None:
    window = make_window()
    for n in range(5):
        window.messages.error(f"Problem {n}.")
    window.messages.error("Problem 3.")  # the same again: shown once, as the newest
    assert shown(window) == ["Problem 4.", "Problem 3."]
    assert len(window.messages.history) == 6  # all of them are still logged


def test_a_banner_goes_when_its_condition_ends(qtbot: Any, make_window: Any, smollm2_path: Path) -> None:
    window = make_window(real_planner=True)
    window.add_paths([CONTRACTS / "endorsement-8p.pdf"])
    wait_for_document(qtbot, window)
    assert window.ask("Anything?") is None
    assert window.summarize() is None
    needs_model = [t for t in shown(window) if "needs a language model" in t]
    assert len(needs_model) == 1  # asked and summarized: one banner for the one condition
    window.messages.info("Unrelated news.")
    window.model_setup.apply_settings({"model_path": str(smollm2_path)})
    assert shown(window) == ["Unrelated news."]
    assert "not loaded yet" in window.status.plan_label.text()


def test_a_banner_floats_over_the_content_and_moves_nothing(qtbot: Any, make_window: Any) -> None:
    """Issue 24: banners pushed the window's content down ~25 px and back when they hid."""
    window = make_window()
    window.resize(1200, 800)
    window.show()
    qtbot.waitExposed(window)
    before = window.splitter.mapTo(window, window.splitter.rect().topLeft())
    window.messages.warning("The model file is missing: choose another one.")
    qtbot.wait(50)
    assert window.splitter.mapTo(window, window.splitter.rect().topLeft()) == before
    bar = window.message_bar
    assert bar.isVisible() and bar.geometry().bottom() < window.centralWidget().height()
    assert bar.width() <= bar.WIDTH
    bar.items()[0].dismiss()
    qtbot.waitUntil(lambda: not bar.isVisible())

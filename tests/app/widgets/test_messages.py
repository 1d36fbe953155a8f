"""The banner area above the window's content (findings of a new user: banners piled up, and
"Asking needs a language model…" stayed after a model was set)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QRect, Qt

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


def test_a_long_banner_ends_in_an_ellipsis_between_words(qtbot: Any) -> None:
    from PySide6.QtWidgets import QLabel

    from app.widgets.messages import MAX_LINES, MessageBar, MessageCenter

    center = MessageCenter()
    bar = MessageBar(center)
    qtbot.addWidget(bar)
    bar.resize(420, 200)
    bar.show()
    text = " ".join(f"Sentence {n} of a long explanation from the hub." for n in range(40))
    center.error(text)
    (label,) = bar.items()[0].findChildren(QLabel)
    qtbot.waitUntil(lambda: label.text() != text, timeout=3000)  # before: the whole text, clipped
    shown = label.text()
    assert shown.endswith("…") and text.startswith(shown[:-1]) and text[len(shown) - 1] == " "
    assert label.fontMetrics().boundingRect(0, 0, label.contentsRect().width(), 10_000,
                                            int(Qt.TextFlag.TextWordWrap), shown).height() <= (
        label.fontMetrics().lineSpacing() * MAX_LINES)  # fmt: skip
    assert label.toolTip() == text
    bar.resize(4000, 200)  # wider: more of it is shown again
    qtbot.waitUntil(lambda: len(label.text()) > len(shown), timeout=3000)


def _two_errors_over_a_page(qtbot: Any, make_window: Any) -> Any:
    window = make_window()
    window.resize(1360, 860)
    window.show()
    qtbot.waitExposed(window)
    window.messages.error(
        "/tmp/walk/docs/bad/meeting-notes.pdf is not a PDF (it does not start with %PDF). "
        "Open it and export it as PDF first."
    )
    window.messages.error(
        "/tmp/walk/docs/bad/truncated-supply.pdf is damaged or incomplete and cannot be opened (it may "
        "have been cut off while downloading). Download or copy it again, then add it."
    )
    qtbot.wait(50)
    return window


def test_a_banner_shows_its_text_whole_and_opaque_without_overlapping(qtbot: Any, make_window: Any) -> None:
    """Walk 2026-12-05, finding 4: two-line banners showed one and a half lines, had no background
    (their text was printed over the contract's), overlapped each other, and their ✕ sat on
    "Copy answer"."""
    window = _two_errors_over_a_page(qtbot, make_window)
    items = window.message_bar.items()
    assert len(items) == 2
    for item in items:
        label = item.label
        assert label.text() == label.full_text  # two lines of text at this width: none cut off
        needed = label.fontMetrics().boundingRect(
            0, 0, label.contentsRect().width(), 10_000, int(Qt.TextFlag.TextWordWrap), label.text()
        )
        assert label.contentsRect().height() >= needed.height()
        assert label.mapTo(item, label.contentsRect().bottomLeft()).y() <= item.contentsRect().bottom()
        # Opaque: the corner under the text, where no letter is, is painted, not see-through.
        image = item.grab().toImage()
        corner = image.pixelColor(image.width() - 30, image.height() - 4)
        assert corner.alpha() == 255 and corner != Qt.GlobalColor.black
    first, second = (item.geometry() for item in items)
    assert not first.intersects(second)
    bar = window.message_bar.geometry()
    central = window.centralWidget()
    for button in (window.conversation.copy_button, window.conversation.ask_button):
        assert not bar.intersects(QRect(button.mapTo(central, button.rect().topLeft()), button.size()))


def test_an_information_with_a_button_goes_in_time(qtbot: Any, make_window: Any, monkeypatch: Any) -> None:
    """The walk of 2026-12-06, finding 21: "X is ready. Show" stayed for minutes until closed. It
    goes after a while (longer than one without a button); a second replaces the first."""
    from app.widgets import messages

    monkeypatch.setattr(messages, "ACTION_INFO_TIMEOUT_MS", 50, raising=False)
    window = make_window()
    window.messages.info("A is ready.", key="document-ready", action="Show", on_action=lambda: None)
    window.messages.info("B is ready.", key="document-ready", action="Show", on_action=lambda: None)
    assert shown(window) == ["B is ready."]
    qtbot.waitUntil(lambda: shown(window) == [], timeout=5000)

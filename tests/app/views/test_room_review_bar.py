"""The Review tab's bar for the data room's model review: the progress line's words, Pause that
turns into Resume, and the notice whose button says what it does."""

from __future__ import annotations

from typing import Any

from app.views.room_review_bar import RoomReviewBar, status_text
from summarizer.review.room_review import RoomStatus


def test_the_progress_line_counts_contracts_rate_time_left_and_skipped() -> None:
    status = RoomStatus(120, 449, 12, 4_000, 310.4, 4_320.0, 0.93)
    assert status_text(status) == (
        "120 of 449 contracts · 310 items/min · ~1 h 12 min left · 12 already reviewed by this model and "
        "checklist, skipped"
    )
    assert status_text(RoomStatus(0, 1, 0, 0, None, None, None)) == "0 of 1 contract"
    assert "left" not in status_text(RoomStatus(3, 3, 0, 6, 60.0, 0.0, 0.9))  # done: no time left to say


def test_pause_turns_into_resume_and_the_notice_names_its_action(qtbot: Any) -> None:
    bar = RoomReviewBar()
    qtbot.addWidget(bar)
    bar.show()
    asked: list[str] = []
    bar.pause_requested.connect(lambda: asked.append("pause"))
    bar.resume_requested.connect(lambda: asked.append("resume"))
    bar.notice_accepted.connect(asked.append)
    bar.start("Reviewing the library with the model…", 449)
    assert bar.progress_row.isVisible() and not bar.button.isEnabled()
    bar.show_status(RoomStatus(10, 449, 0, 400, 200.0, 600.0, 0.9))
    assert bar.bar.value() == 10 and bar.bar.maximum() == 449
    bar.pause_button.click()
    bar.set_paused(True)
    assert bar.pause_button.text() == "Resume" and bar.label.text().startswith("Paused · 10 of 449")
    bar.pause_button.click()
    assert asked == ["pause", "resume"]
    bar.show_notice("resume", "Paused: the server at http://10.0.0.5:8080 stopped answering.", "Resume")
    assert bar.notice_row.isVisible() and not bar.dismiss_button.isVisible()  # a paused job: Resume or Stop
    bar.notice_button.click()
    assert asked[-1] == "resume"
    bar.finish()
    assert not bar.progress_row.isVisible() and not bar.notice_row.isVisible() and bar.button.isEnabled()
    dismissed: list[str] = []
    bar.notice_dismissed.connect(dismissed.append)
    bar.show_notice("continue", "A model review was left unfinished.", "Continue")
    assert bar.dismiss_button.isVisible()
    bar.dismiss_button.click()
    assert dismissed == ["continue"] and not bar.notice_row.isVisible()


def test_while_the_model_loads_the_bar_says_so_with_the_loaders_steps(qtbot: Any) -> None:
    from inference.progress import Progress, Stage

    bar = RoomReviewBar()
    qtbot.addWidget(bar)
    bar.show()
    bar.start("Reviewing the library with the model: starting…", 449)
    bar.loading_words = "Loading Qwen2.5-14B…"
    bar.show_loading(Progress(Stage.LOAD, 1, 3, "loading Qwen2.5-14B-Instruct-Q4_K_M.gguf"))
    assert bar.label.text() == "Loading Qwen2.5-14B… step 2 of 3 · loading Qwen2.5-14B-Instruct-Q4_K_M.gguf"
    assert (bar.bar.maximum(), bar.bar.value(), bar.bar.format()) == (100, 33, "%p%")
    bar.show_loading(Progress(Stage.HASH_MODEL, 4, 8, "Qwen2.5-14B-Instruct-Q4_K_M.gguf"))
    assert "reading its file once" in bar.label.text() and bar.bar.value() == 50
    bar.show_loading(Progress(Stage.LOAD, 0, None, "starting"))
    assert bar.bar.maximum() == 0  # busy: the loader gives no share
    bar.show_status(RoomStatus(0, 449, 0, 0, None, None, None))  # the review's figures take over
    assert bar.label.text() == "0 of 449 contracts" and bar.bar.format() == "%v/%m" and bar.bar.maximum() == 449

"""The Review button with "Evidence only" unchecked (issue 57): several checked contracts go through
the data room's review (``app.controllers.room_review``: one way to review many with the model),
with its bar, Pause and Stop, the contracts reviewed before skipped and counted; one contract
keeps the Review tab's own run. The scripted engine throughout."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from summarizer.review.item_answers import stored_review
from summarizer.review.room_review import stored_room
from tests.app.controllers.test_room_review import SlowFake, room_window, wait_done


def press_review(window: Any) -> None:
    window.review.evidence_only.setChecked(False)
    window.review.review_button.click()


def test_the_checked_contracts_are_reviewed_as_a_data_room_and_those_done_before_are_skipped(
    qtbot: Any, make_window: Any, tmp_path: Path
) -> None:
    engine = SlowFake(autoload=False, n_ctx=8192, piece_delay_s=0.01)
    window, ids = room_window(make_window, tmp_path, n=3, engine=engine)
    panel, reviews, room = window.review, window.reviews, window.reviews.room
    panel.check_all(False)
    panel.set_checked(ids[0])  # one contract: the Review tab's own run, as before
    press_review(window)
    assert reviews.job is not None and room.job is None
    qtbot.waitUntil(lambda: reviews.job is None, timeout=60_000)
    assert panel.grid.item(0, 0).text() == "New York (p.\u00a01)"

    panel.check_all(True)  # three: the data room's job, its bar showing the progress
    reviews.show_stored()
    press_review(window)
    assert room.job is not None and reviews.job is None
    assert panel.room.progress_row.isVisible() and not panel.room.button.isEnabled()
    assert "the 3 checked contracts" in panel.room.label.text()
    wait_done(qtbot, window)
    assert room.result is not None and (room.result.reviewed, room.result.skipped) == (2, 1)
    assert "2 contracts, 1 skipped (reviewed before by this model and checklist)" in window.messages.history[-1].text
    assert [panel.grid.item(0, c).text() for c in range(3)] == ["New York (p.\u00a01)"] * 3
    assert [panel.grid.item(1, c).text() for c in range(3)] == ["not found"] * 3
    assert all(stored_review(window.library, doc_id, reviews.checklist) is not None for doc_id in ids)
    assert panel.review_button.isEnabled() and not panel.room.progress_row.isVisible()


def test_stop_from_the_bar_keeps_what_is_done_and_review_again_reads_only_the_rest(
    qtbot: Any, make_window: Any, tmp_path: Path
) -> None:
    engine = SlowFake(autoload=False, n_ctx=8192, piece_delay_s=0.01)
    window, ids = room_window(make_window, tmp_path, n=4, engine=engine)
    panel, reviews, room = window.review, window.reviews, window.reviews.room
    press_review(window)
    assert room.job is not None
    qtbot.waitUntil(lambda: room.last_status is not None and room.last_status.contracts_done >= 1, timeout=60_000)
    panel.room.pause_button.click()  # the bar's Pause holds this job too
    assert room.control is not None and room.control.paused
    panel.room.stop_button.click()
    wait_done(qtbot, window)
    assert room.result is None and panel.room.notice_kind == "continue"
    record = room.unfinished()  # offered again next time
    assert record is not None
    done = stored_room(window.library, ids, reviews.checklist, record["model"]).complete
    assert 1 <= done < 4

    asked = len(engine.calls)
    press_review(window)
    wait_done(qtbot, window)
    assert room.result is not None and (room.result.reviewed, room.result.skipped) == (4 - done, done)
    assert f"{done} skipped" in window.messages.history[-1].text
    assert len(engine.calls) > asked


def test_review_while_a_model_review_runs_waits_for_it(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    engine = SlowFake(autoload=False, n_ctx=8192, piece_delay_s=0.01)
    window, ids = room_window(make_window, tmp_path, n=3, engine=engine)
    reviews, room = window.reviews, window.reviews.room
    room.start()  # the button beside Review: the library
    press_review(window)  # the same contracts, asked again meanwhile: queued, then all skipped
    assert reviews.job is None and sorted(reviews.queued) == sorted(ids)
    wait_done(qtbot, window)
    qtbot.waitUntil(lambda: room.result is not None and room.result.skipped == 3, timeout=60_000)
    wait_done(qtbot, window)
    assert reviews.queued == []


def test_the_bar_says_the_model_is_loading_then_shows_the_reviews_progress(
    qtbot: Any, make_window: Any, tmp_path: Path
) -> None:
    import re
    import threading

    engine = SlowFake(autoload=False, n_ctx=8192)
    engine.load_gate = threading.Event()  # the model takes its time to load
    window, _ids = room_window(make_window, tmp_path, n=3, engine=engine)
    bar, room = window.review.room, window.reviews.room
    room.start()
    loading = "Loading fake-model… step 1 of 1 · loading fake model"  # the planner's name, the loader's words
    qtbot.waitUntil(lambda: bar.label.text().startswith(loading), timeout=30_000)
    assert bar.progress_row.isVisible() and bar.bar.format() == "%p%"
    qtbot.waitUntil(lambda: re.search(r"· \d+ s$", bar.label.text()) is not None, timeout=30_000)  # the seconds go on
    engine.load_gate.set()
    wait_done(qtbot, window)
    assert room.result is not None and room.result.reviewed == 3
    assert room.last_status is not None and bar.label.text().startswith("3 of 3 contracts")


def test_a_review_started_while_the_window_loads_its_model_shows_that_load(
    qtbot: Any, make_window: Any, tmp_path: Path
) -> None:
    import threading

    from tests.app.controllers.test_room_review import CHECKLIST_CSV, pages
    from tests.summarizer.doc_factory import add_document

    engine = SlowFake(autoload=False, n_ctx=8192)
    engine.load_gate = threading.Event()  # the window's load, begun at its opening, takes its time
    model = tmp_path / "model.gguf"
    model.write_bytes(b"GGUF" + bytes(256))
    window = make_window(engine=engine, settings={"model_path": str(model)})
    qtbot.waitUntil(lambda: window.model_setup.model_loading() is not None and engine.load_started.is_set())
    for k in range(2):
        add_document(window.library, pages(k), title=f"Contract {k}", words_per_passage=30)
    (tmp_path / "two.csv").write_text(CHECKLIST_CSV)
    window.tabs.setCurrentWidget(window.review)
    assert window.reviews.use_checklist(str(tmp_path / "two.csv"))
    window.reviews.refresh_documents()
    window.review.check_all(True)
    bar, room = window.review.room, window.reviews.room
    room.confirm = lambda _question: True
    room.start()  # waits in the model's thread behind the window's load
    assert bar.label.text() == "Loading fake-model…" and bar.bar.maximum() == 0  # busy until the loader says more
    engine.load_gate.set()
    wait_done(qtbot, window)
    assert room.result is not None and room.result.reviewed == 2

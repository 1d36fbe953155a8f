"""The data room reviewed by the model from the Review tab (issue 57), with the scripted engine and
the fake OpenAI-compatible server on 127.0.0.1: cells fill in as items are answered, the bar counts
contracts and skipped ones, Pause holds new readings until Resume, Stop keeps what is done and the
next window offers to continue it, a server that goes away pauses the job with its address and a
Resume button, a refused key stops it with the command line's message, without a model the
message points to Settings; the Review button ("Evidence only" unchecked) sends several checked
contracts through the same job (one contract keeps the tab's own run); while the model loads the
bar says so."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from summarizer.review.item_answers import stored_review
from summarizer.review.room_review import stored_room
from tests.app.controllers.room_tab import (
    add_contracts,
    open_room,
    pages,
    reply,
    room_window,
    slow_fake,
    wait_done,
    wait_first_contract,
)
from tests.inference.engines.openai_fake import FakeServer, Running
from tests.summarizer.doc_factory import add_document


def test_the_library_is_reviewed_and_the_cells_fill_in_as_items_are_answered(
    qtbot: Any, make_window: Any, tmp_path: Path
) -> None:
    engine = slow_fake()
    window, _ids = room_window(make_window, tmp_path, engine=engine)
    panel, room = window.review, window.reviews.room
    assert panel.room.button.text() == "Review the library with the model…"
    questions: list[str] = []
    room.confirm = lambda question: questions.append(question) or True
    job = panel.room.button.click() or room.job
    assert job is not None and "the library (3 contracts)" in questions[0]
    arrivals: list[object] = []
    job.partial.connect(arrivals.append)
    # a cell shows the model's answer while the job still runs
    qtbot.waitUntil(lambda: panel.grid.item(0, 0).text() == "New York (p.\u00a01)", timeout=60_000)
    assert room.job is not None and panel.room.progress_row.isVisible()
    wait_done(qtbot, window)
    assert [panel.grid.item(0, c).text() for c in range(3)] == ["New York (p.\u00a01)"] * 3
    assert [panel.grid.item(1, c).text() for c in range(3)] == ["not found"] * 3
    assert room.result is not None and (room.result.reviewed, room.result.skipped) == (3, 0)
    assert not panel.room.progress_row.isVisible() and panel.room.button.isEnabled()
    assert room.unfinished() is None  # ended well: nothing to offer next time
    assert any(type(a).__name__ == "ItemDone" for a in arrivals)
    assert "3 contracts" in window.messages.history[-1].text

    # again: every contract skipped, and the bar says so
    room.start()
    wait_done(qtbot, window)
    assert room.result is not None and (room.result.reviewed, room.result.skipped) == (0, 3)
    assert room.last_status is not None and room.last_status.skipped == 3
    assert "3 already reviewed by this model and checklist, skipped" in panel.room.label.text()


def test_the_table_filtered_rows_are_reviewed_and_cells_say_whose_verdict(
    qtbot: Any, make_window: Any, tmp_path: Path
) -> None:
    from summarizer.review.evidence_batch import review_evidence_stored

    window, ids = room_window(make_window, tmp_path, n=4, engine=slow_fake(piece_delay_s=0.0))
    panel, room = window.review, window.reviews.room
    review_evidence_stored(window.library, ids, window.reviews.checklist, keep=False)  # evidence only, as today
    panel.contracts_as_rows.setChecked(True)
    window.reviews.show_stored()
    panel.filter_box.setText("Contract 2")
    assert panel.shown_contracts() == 1
    assert panel.room.button.text() == "Review the 1 filtered with the model…"
    assert room.target().doc_ids == [ids[2]] and room.target().label == "the 1 filtered contract"
    room.start()
    wait_done(qtbot, window)
    panel.filter_box.setText("")
    model = panel.table_model
    row = {panel.columns[n].doc_id: n for n in range(4) if panel.columns[n] is not None}
    law = next(c for c, col in enumerate(model.columns) if col.key == "law")
    tip = str(model.data(model.index(row[ids[2]], law), 3))  # ToolTipRole
    assert model.data(model.index(row[ids[2]], law)) == "New York (p.\u00a01)" and "the model's" in tip
    other = str(model.data(model.index(row[ids[0]], law), 3))
    assert model.data(model.index(row[ids[0]], law)).startswith("candidate") and "evidence only" in other
    grey = model.data(model.index(row[ids[0]], law), 9)  # ForegroundRole: evidence only is grey text
    assert grey is not None and grey.color().name() == "#808080"
    assert model.data(model.index(row[ids[2]], law), 9) is None  # the model's: the palette's text colour
    panel.filter_box.setText("model has Governing Law")
    assert panel.shown_contracts() == 1  # the model's verdict only on contract 2
    panel.filter_box.setText("evidence has Governing Law")
    assert panel.shown_contracts() == 3


def test_pause_holds_new_readings_and_resume_finishes(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    engine = slow_fake()
    window, _ids = room_window(make_window, tmp_path, n=4, engine=engine)
    panel, room = window.review, window.reviews.room
    room.start()
    wait_first_contract(qtbot, room)
    panel.room.pause_button.click()
    assert panel.room.pause_button.text() == "Resume" and panel.room.label.text().startswith("Paused")
    qtbot.waitUntil(lambda: room.control is not None and room.control.feed is not None
                    and room.control.feed.in_flight == 0, timeout=30_000)  # fmt: skip
    asked = len(engine.calls)
    qtbot.wait(300)
    assert len(engine.calls) == asked and room.job is not None  # nothing new while paused
    panel.room.pause_button.click()
    wait_done(qtbot, window)
    assert room.result is not None and room.result.reviewed == 4 and len(engine.calls) > asked


def test_stop_keeps_what_is_done_and_the_next_window_offers_to_continue(
    qtbot: Any, make_window: Any, tmp_path: Path
) -> None:
    engine = slow_fake()
    window, ids = room_window(make_window, tmp_path, n=4, engine=engine)
    panel, room = window.review, window.reviews.room
    room.start()
    wait_first_contract(qtbot, room)
    panel.room.stop_button.click()
    wait_done(qtbot, window)
    assert room.result is None and panel.room.notice_kind == "continue"
    assert "was stopped" in panel.room.notice.text()
    record = room.unfinished()
    assert record is not None and sorted(record["doc_ids"]) == sorted(ids)
    window.close()

    again = make_window(engine=engine)  # the same data folder: its window state remembers the review
    again.tabs.setCurrentWidget(again.review)
    bar, room2 = again.review.room, again.reviews.room
    qtbot.waitUntil(lambda: bar.notice_kind == "continue", timeout=30_000)
    assert "left unfinished" in bar.notice.text() and "of 4 contracts done" in bar.notice.text()
    bar.notice_button.click()  # Continue
    assert room2.job is not None
    wait_done(qtbot, again)
    assert room2.result is not None and room2.result.skipped >= 1
    assert room2.result.reviewed + room2.result.skipped == 4 and room2.unfinished() is None


def test_without_a_model_the_message_points_to_settings(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    window = make_window(real_planner=True)
    add_document(window.library, pages(0), title="Contract 0")
    window.reviews.refresh_documents()
    window.reviews.room.confirm = lambda _question: True
    assert window.reviews.room.start() is None
    text = window.messages.history[-1].text
    assert "needs a language model" in text and "Settings (Ctrl+,)" in text and "Remote server URL" in text


@pytest.fixture
def server() -> Iterator[Running]:
    def answer(body: dict[str, Any]) -> str:
        return reply(str(body["messages"][-1]["content"]))

    running = Running(FakeServer(total_slots=2, reply_for=answer, first_delay_s=0.05))
    yield running
    running.stop()


def remote_engine(url: str, **kwargs: Any) -> Any:
    from inference.engines.remote import RemoteEngine
    from inference.engines.remote_http import Backoff

    return RemoteEngine(url, backoff=Backoff(attempts=3, first_s=0.01, most_s=0.05), **kwargs)


def test_a_server_that_goes_away_pauses_with_its_address_and_resume_continues(
    qtbot: Any, make_window: Any, tmp_path: Path, server: Running
) -> None:
    window, _ids = room_window(make_window, tmp_path, n=5, engine=remote_engine(server.url))
    panel, room = window.review, window.reviews.room
    server.state.drop_after = 4  # the 5th request finds the connection closed: the server went away
    room.start()
    qtbot.waitUntil(lambda: panel.room.notice_kind == "resume", timeout=60_000)
    text = panel.room.notice.text()
    assert server.url in text and "stopped answering" in text and "Settings" in text
    assert panel.room.notice_button.text() == "Resume" and panel.room.pause_button.text() == "Resume"
    assert room.job is not None  # waiting, not ended
    server.state.drop_after = None  # the server is back
    panel.room.notice_button.click()
    wait_done(qtbot, window)
    assert room.result is not None and room.result.pauses == 1
    assert room.result.reviewed + room.result.skipped == 5 and not panel.room.notice_row.isVisible()


def test_closing_the_window_while_the_server_is_away_ends_the_job(
    qtbot: Any, make_window: Any, tmp_path: Path, server: Running
) -> None:
    window, _ids = room_window(make_window, tmp_path, n=5, engine=remote_engine(server.url))
    room = window.reviews.room
    server.state.drop_after = 4
    room.start()
    qtbot.waitUntil(lambda: window.review.room.notice_kind == "resume", timeout=60_000)
    assert window.runner.cancel_llm()  # what closing the window does (runner.shutdown)
    wait_done(qtbot, window)
    assert room.result is None and room.unfinished() is not None  # offered again next time


def test_a_refused_key_stops_with_the_command_lines_message(
    qtbot: Any, make_window: Any, tmp_path: Path, server: Running
) -> None:
    from inference.errors import ApiKeyError

    server.state.api_key = "right"
    engine = remote_engine(server.url, api_key="wrong")
    window, _ids = room_window(make_window, tmp_path, n=2, engine=engine)
    room = window.reviews.room
    room.start()
    wait_done(qtbot, window)
    errors = [m for m in window.messages.history if m.level in ("warning", "error")]
    assert errors and "refused the API key" in errors[-1].text
    with pytest.raises(ApiKeyError) as refused:  # what `pagewise review --all --remote` prints
        remote_engine(server.url, api_key="wrong").load()
    assert str(refused.value) in errors[-1].text
    assert room.result is None and window.review.room.notice_kind == "continue"


# --- the Review button with the model: several contracts go through this job ----------------


def press_review(window: Any) -> None:
    window.review.evidence_only.setChecked(False)
    window.review.review_button.click()


def test_the_checked_contracts_are_reviewed_as_a_data_room_and_those_done_before_are_skipped(
    qtbot: Any, make_window: Any, tmp_path: Path
) -> None:
    engine = slow_fake()
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
    engine = slow_fake()
    window, ids = room_window(make_window, tmp_path, n=4, engine=engine)
    panel, reviews, room = window.review, window.reviews, window.reviews.room
    press_review(window)
    assert room.job is not None
    wait_first_contract(qtbot, room)
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
    engine = slow_fake()
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

    engine = slow_fake(piece_delay_s=0.0)
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

    engine = slow_fake(piece_delay_s=0.0)
    engine.load_gate = threading.Event()  # the window's load, begun at its opening, takes its time
    model = tmp_path / "model.gguf"
    model.write_bytes(b"GGUF" + bytes(256))
    window = make_window(engine=engine, settings={"model_path": str(model)})
    qtbot.waitUntil(lambda: window.model_setup.model_loading() is not None and engine.load_started.is_set())
    add_contracts(window, 2)
    open_room(window, tmp_path)
    bar, room = window.review.room, window.reviews.room
    room.start()  # waits in the model's thread behind the window's load
    assert bar.label.text() == "Loading fake-model…" and bar.bar.maximum() == 0  # busy until the loader says more
    engine.load_gate.set()
    wait_done(qtbot, window)
    assert room.result is not None and room.result.reviewed == 2

"""The model's review of a data room: with the scripted engine, readings across contracts, each
contract stored as it finishes, skipped when reviewed before, continued after a stop; through the
remote engine against the fake OpenAI-compatible server on 127.0.0.1 (``openai_fake``), slots from
/props kept busy across contracts, 429s backed off, a server that goes away pauses the job (and it
continues), a refused key stops it at the first request."""

from __future__ import annotations

import csv
import io
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from inference.cancel import Cancelled
from inference.engines.engine import ChatMessage
from inference.engines.fake import FakeEngine
from inference.engines.prompt_feed import PromptFeed
from inference.engines.remote import RemoteEngine
from inference.engines.remote_http import Backoff
from inference.errors import ApiKeyError, EngineError
from summarizer.library.storage.store import Library
from summarizer.review.checklist import Checklist, ChecklistItem
from summarizer.review.evidence import DocumentReview, ItemDone
from summarizer.review.export import to_csv
from summarizer.review.item_answers import stored_review
from summarizer.review.room_review import RoomControl, RoomPaused, RoomStatus, RoomStored, review_room, stored_room
from tests.inference.engines.openai_fake import FakeServer, Running
from tests.summarizer.doc_factory import add_document

ITEMS = (
    ChecklistItem("law", "Governing Law", "Which law governs?", ("governed by the laws of",), "jurisdiction"),
    ChecklistItem("coc", "Change of Control", "Change of control?", ("change of control",), "yes_no"),
)
CHECKLIST = Checklist("two", "v1", ITEMS)
NOT_FOUND = json.dumps({"found": False, "answer": "", "quote": "", "pages": []})
N_CTX = 616  # a reading unit of 256 tokens: each page below is a unit of its own


def pages(n: int) -> list[str]:
    filler = " ".join(f"word{i}" for i in range(150))
    return [
        f"Contract {n} page one. Governing law. This agreement is governed by the laws of New York. {filler}",
        f"Contract {n} page two. Change of control. Upon a change of control either party may end it. {filler}",
    ]


@pytest.fixture
def room(tmp_path: Path) -> Iterator[tuple[Library, list[str]]]:
    with Library.open(tmp_path / "library.sqlite") as lib:
        yield lib, [add_document(lib, pages(n), title=f"Contract {n}", words_per_passage=30) for n in range(3)]


def read(prompt: object) -> tuple[int, int]:
    """(contract, page) of a reading's prompt."""
    assert isinstance(prompt, list) and isinstance(prompt[-1], ChatMessage)
    text = prompt[-1].content
    contract = int(text.split("Contract ", 1)[1][0])
    return contract, 1 if "page one" in text else 2


def test_readings_run_across_contracts_and_each_contract_is_stored(room: tuple[Library, list[str]]) -> None:
    lib, ids = room
    engine = FakeEngine(default_reply=NOT_FOUND, n_ctx=N_CTX)
    reviews: list[DocumentReview] = []
    items: list[ItemDone] = []
    statuses: list[RoomStatus] = []
    result = review_room(
        lib,
        engine,
        ids,
        CHECKLIST,
        model="m1",
        on_review=reviews.append,
        on_item=items.append,
        on_status=statuses.append,
    )
    # batches of four readings (one slot): the next contract's first readings start beside the last
    # one's, and an item not found on page 1 goes on to page 2 ahead of later contracts
    assert [read(p) for p in engine.prompts] == [
        (0, 1), (0, 1), (1, 1), (1, 1), (0, 2), (0, 2), (1, 2), (1, 2), (2, 1), (2, 1), (2, 2), (2, 2)
    ]  # fmt: skip
    assert [r.doc_id for r in reviews] == ids
    assert all(i.status == "not_found" and i.passages_read == 2 for r in reviews for i in r.items)
    assert len(items) == 6
    assert (result.reviewed, result.skipped, result.items_answered, result.readings) == (3, 0, 6, 12)
    assert result.busy_share is not None and 0 < result.busy_share <= 1
    assert statuses[-1].contracts_done == 3 and statuses[-1].items_done == 6 and statuses[-1].eta_s == 0
    stored = stored_review(lib, ids[2], CHECKLIST, "m1")
    assert stored is not None and [i.status for i in stored.items] == ["not_found", "not_found"]
    rows = list(csv.DictReader(io.StringIO(to_csv([stored]))))
    assert [(r["source"], r["verdict"]) for r in rows] == [("model", "not found")] * 2  # read whole, not found
    assert stored_room(lib, ids, CHECKLIST, "m1") == RoomStored(3, 0, 0)
    assert stored_room(lib, ids, CHECKLIST, "m2") == RoomStored(0, 0, 3)

    again = review_room(lib, engine, ids, CHECKLIST, model="m1", on_status=statuses.append)
    assert (again.reviewed, again.skipped, again.readings) == (0, 3, 0)
    assert len(engine.calls) == 12  # nothing read again
    assert statuses[-1].skipped == 3 and statuses[-1].contracts_done == 3
    other = review_room(lib, engine, ids[:1], CHECKLIST, model="m2")  # another model reads it again
    assert (other.reviewed, other.skipped) == (1, 0)


def test_a_stopped_room_continues_with_what_was_not_stored(room: tuple[Library, list[str]]) -> None:
    lib, ids = room
    engine = FakeEngine(default_reply=NOT_FOUND, n_ctx=N_CTX)
    control = RoomControl()

    def stop_after_the_first(review: DocumentReview) -> None:
        control.stop()

    with pytest.raises(Cancelled):
        review_room(lib, engine, ids, CHECKLIST, control=control, model="m1", on_review=stop_after_the_first)
    asked = len(engine.calls)
    assert stored_review(lib, ids[0], CHECKLIST, "m1") is not None
    assert stored_room(lib, ids, CHECKLIST, "m1") == RoomStored(1, 0, 2)  # what the next start offers to continue
    result = review_room(lib, engine, ids, CHECKLIST, model="m1")
    assert result.skipped == 1 and result.reviewed == 2
    # contract 0 is not read again; contract 1's items were in flight (not found on page 1, page 2
    # not read yet): nothing of them was stored, so they are read whole
    assert result.items_answered == 4 and result.readings == 8
    assert {read(p)[0] for p in engine.prompts[asked:]} == {1, 2}
    assert all(stored_review(lib, doc_id, CHECKLIST, "m1") is not None for doc_id in ids)


def test_the_feed_pauses_and_measures_its_slots() -> None:
    feed = PromptFeed(2, running=None)
    feed.put("a", "first")
    feed.pause()
    assert feed.take(wait_s=0.0) is None and feed.paused
    feed.resume()
    taken = feed.take(wait_s=0.0)
    assert taken is not None and taken.tag == "a"
    feed.release()
    feed.settle()
    assert feed.busy_share == 0.5  # one prompt in flight on two slots the whole time
    feed.exhaust()
    assert feed.finished and feed.take() is None


# --- through the remote engine, against the fake OpenAI-compatible server on 127.0.0.1 ---

N_CONTRACTS = 4


def answer(body: dict[str, Any]) -> str:
    """The fake model: finds the governing law, never a change of control clause."""
    question = body["messages"][-1]["content"]
    if "Which law governs?" in question:
        return json.dumps({"found": True, "answer": "New York", "quote": "the laws of New York", "pages": [1]})
    return json.dumps({"found": False, "answer": "", "quote": "", "pages": []})


def contract(n: int) -> list[str]:
    return [f"Contract {n}. This agreement is governed by the laws of New York. The term is five years."]


@pytest.fixture
def remote_room(tmp_path: Path) -> Iterator[tuple[Library, list[str]]]:
    with Library.open(tmp_path / "library.sqlite") as lib:
        ids = [add_document(lib, contract(n), title=f"Contract {n}") for n in range(N_CONTRACTS)]
        yield lib, ids


@pytest.fixture
def server() -> Iterator[Running]:
    running = Running(FakeServer(total_slots=4, reply_for=answer, first_delay_s=0.1))
    yield running
    running.stop()


def engine_for(url: str, **kwargs: Any) -> RemoteEngine:
    engine = RemoteEngine(url, backoff=Backoff(attempts=5, first_s=0.01, most_s=0.05), **kwargs)
    engine.load()
    return engine


def contract_of(text: str) -> int:
    return int(text.split("Contract ", 1)[1][0])


def test_the_servers_slots_are_kept_busy_across_contracts(
    remote_room: tuple[Library, list[str]], server: Running
) -> None:
    lib, ids = remote_room
    engine = engine_for(server.url)
    assert engine.parallel == 4  # /props total_slots wins over the setting's 8
    result = review_room(lib, engine, ids, CHECKLIST, model="remote")
    assert (result.reviewed, result.items_answered, result.readings, result.slots) == (4, 8, 8, 4)
    assert server.state.most_streaming == 4
    log = server.state.log
    first_of_1 = next(n for n, (what, text) in enumerate(log) if what == "start" and contract_of(text) == 1)
    last_of_0 = max(n for n, (what, text) in enumerate(log) if what == "end" and contract_of(text) == 0)
    assert first_of_1 < last_of_0  # contract 1 started while contract 0's readings were still running
    assert result.busy_share is not None and 0 < result.busy_share <= 1
    review = stored_review(lib, ids[3], CHECKLIST, "remote")
    assert review is not None and [i.status for i in review.items] == ["answered", "not_found"]
    assert review.items[0].value == "New York"


def test_an_overloaded_server_is_asked_again(remote_room: tuple[Library, list[str]], server: Running) -> None:
    lib, ids = remote_room
    server.state.overloaded = 3  # "429 Too Many Requests, Retry-After: 0"
    engine = engine_for(server.url)
    result = review_room(lib, engine, ids[:2], CHECKLIST, model="remote")
    assert result.reviewed == 2 and server.state.refused == 3 and engine.overloaded_retries == 3
    server.state.overloaded, server.state.retry_after = 1000, None  # past the 5 tries, no Retry-After
    with pytest.raises(EngineError, match="answered 429"):
        review_room(lib, engine, ids[2:], CHECKLIST, model="remote")


def test_backoff_honours_retry_after_and_is_bounded() -> None:
    backoff = Backoff(attempts=8, first_s=0.5, most_s=30.0)
    assert backoff.delay(0, "3") == 3.0 and backoff.delay(0, "600") == 30.0
    assert 0.25 <= backoff.delay(0, None) <= 0.5 and 2.0 <= backoff.delay(3, None) <= 4.0
    assert 15.0 <= backoff.delay(20, None) <= 30.0
    assert 0.25 <= backoff.delay(0, "Wed, 21 Oct 2026 07:28:00 GMT") <= 0.5  # a date: our own schedule


def test_a_server_that_drops_the_connection_pauses_the_command(
    remote_room: tuple[Library, list[str]], server: Running
) -> None:
    lib, ids = remote_room
    server.state.drop_after = 6  # the 7th request finds the connection closed: at least one reply came before
    engine = engine_for(server.url)
    with pytest.raises(RoomPaused) as paused:
        review_room(lib, engine, ids, CHECKLIST, model="remote")
    message = str(paused.value)
    assert server.url in message and "run the command again" in message and paused.value.exit_code == 75
    stored = sum(stored_review(lib, doc_id, CHECKLIST, "remote") is not None for doc_id in ids)
    assert server.state.dropped >= 1 and stored >= 1
    server.state.drop_after = None
    result = review_room(lib, engine, ids, CHECKLIST, model="remote")
    assert result.reviewed + result.skipped == N_CONTRACTS and result.skipped >= 1
    assert all(stored_review(lib, doc_id, CHECKLIST, "remote") is not None for doc_id in ids)


def test_a_server_that_stops_pauses_the_job_until_continue(
    remote_room: tuple[Library, list[str]], server: Running
) -> None:
    lib, ids = remote_room
    # more readings than the 4 slots can hold when the first contract is done: some come after the stop
    ids = ids + [add_document(lib, contract(n), title=f"Contract {n}") for n in range(N_CONTRACTS, 8)]
    engine = engine_for(server.url)
    control = RoomControl(wait_for_server=True)
    pauses: list[str] = []
    paused = threading.Event()
    running = [server]

    def on_status(status: RoomStatus) -> None:
        if status.contracts_done == 1 and running[0] is server and not pauses:
            server.stop()  # connections refused from now on
        if status.paused:
            pauses.append(status.paused)
            paused.set()

    def start_again_and_continue() -> None:
        paused.wait(30)
        running[0] = server.again()  # the same port
        control.resume()

    helper = threading.Thread(target=start_again_and_continue)
    helper.start()
    try:
        result = review_room(lib, engine, ids, CHECKLIST, control=control, model="remote", on_status=on_status)
    finally:
        helper.join()
        if running[0] is not server:
            running[0].stop()
    assert len(pauses) == 1 and server.url in pauses[0] and "press Resume" in pauses[0]
    assert result.pauses == 1 and result.reviewed == len(ids)
    assert all(stored_review(lib, doc_id, CHECKLIST, "remote") is not None for doc_id in ids)


def test_a_refused_key_stops_the_job_at_its_first_request(
    remote_room: tuple[Library, list[str]], server: Running
) -> None:
    lib, ids = remote_room
    server.state.api_key = "right"
    engine = engine_for(server.url, api_key="right")
    server.state.api_key = "rotated"  # the key was changed on the server
    with pytest.raises(ApiKeyError, match=r"refused the API key it was sent \(HTTP 401\)"):
        review_room(lib, engine, ids, CHECKLIST, model="remote")
    completions = [path for path, _ in server.state.requests if path == "POST /v1/chat/completions"]
    assert len(completions) <= 4  # one per slot at most: the job did not go on
    assert not any(stored_review(lib, doc_id, CHECKLIST, "remote") for doc_id in ids)


def test_pause_holds_new_readings_until_resume(remote_room: tuple[Library, list[str]], server: Running) -> None:
    lib, ids = remote_room
    engine = engine_for(server.url)
    control = RoomControl()
    paused = threading.Event()
    starts_while_paused: list[int] = []

    def pause_after_the_first(status: RoomStatus) -> None:
        if status.contracts_done == 1 and not paused.is_set():
            control.pause()
            paused.set()

    def watch_and_resume() -> None:
        paused.wait(30)
        state, feed = server.state, control.feed
        assert feed is not None
        while feed.in_flight:  # the readings taken before the pause finish
            threading.Event().wait(0.01)
        before = sum(what == "start" for what, _ in state.log)
        threading.Event().wait(0.3)
        starts_while_paused.append(sum(what == "start" for what, _ in state.log) - before)
        control.resume()

    helper = threading.Thread(target=watch_and_resume)
    helper.start()
    try:
        result = review_room(
            lib, engine, ids, CHECKLIST, control=control, model="remote", on_status=pause_after_the_first
        )
    finally:
        helper.join()
    assert starts_while_paused == [0] and result.reviewed == N_CONTRACTS and result.pauses == 0

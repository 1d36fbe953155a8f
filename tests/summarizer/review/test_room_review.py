"""The model's review of a data room: with the scripted engine, readings across contracts, each
contract stored as it finishes, skipped when reviewed before, continued after a stop; through the
remote engine against the fake OpenAI-compatible server on 127.0.0.1 (``openai_fake``), slots from
/props kept busy across contracts, 429s backed off, a server that goes away pauses the job (and it
continues), a refused key stops it at the first request."""

from __future__ import annotations

import csv
import io
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from inference.cancel import Cancelled
from inference.engines.engine import ChatMessage
from inference.engines.fake import FakeEngine
from inference.engines.prompt_feed import PromptFeed
from inference.engines.remote_http import Backoff
from inference.errors import ApiKeyError, EngineError
from summarizer.errors import LibraryError
from summarizer.library.storage.store import Library
from summarizer.review import room_evidence
from summarizer.review.checklist import Checklist, ChecklistItem
from summarizer.review.evidence import DocumentReview, Evidence, ItemDone, scored_evidence
from summarizer.review.export import to_csv
from summarizer.review.item_answers import REPLY_SCHEMA, stored_review
from summarizer.review.room_control import RoomControl
from summarizer.review.room_review import RoomPaused, RoomStatus, RoomStored, review_room, stored_room
from tests.inference.engines.openai_fake import FakeServer, Running
from tests.summarizer.doc_factory import add_document
from tests.summarizer.review.room_contracts import (
    CHECKLIST,
    ITEMS,
    N_CTX,
    NOT_FOUND,
    all_stored,
    answer,
    contract,
    engine_for,
    evidence_thread_alive,
    not_found_engine,
    pages,
)


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
    engine = not_found_engine()
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


def test_the_replies_are_held_to_the_review_schema_unless_told_not(room: tuple[Library, list[str]]) -> None:
    lib, ids = room
    held, free = not_found_engine(), not_found_engine()
    review_room(lib, held, ids[:1], CHECKLIST, model="m1")
    review_room(lib, free, ids[:1], CHECKLIST, model="m2", reply_schema=None)  # a bench's random-weight model
    assert held.calls and all(call.json_schema == REPLY_SCHEMA for call in held.calls)
    assert free.calls and all(call.json_schema is None for call in free.calls)


def test_a_stopped_room_continues_with_what_was_not_stored(room: tuple[Library, list[str]]) -> None:
    lib, ids = room
    engine = not_found_engine()
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
    assert all_stored(lib, ids, "m1")


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
    before = stored_room(lib, ids, CHECKLIST, "remote")
    result = review_room(lib, engine, ids, CHECKLIST, model="remote")
    # each slot reads a contract of its own (contract affinity): the stop may leave them half done;
    # what was stored is not asked again
    assert result.reviewed + result.skipped == N_CONTRACTS and result.skipped == before.complete
    assert result.items_answered < 2 * N_CONTRACTS
    assert all_stored(lib, ids, "remote")


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
    assert all_stored(lib, ids, "remote")


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


# --- the evidence, found in a thread of its own while the slots read ---

Finder = Callable[[Library, str, ChecklistItem], tuple[list[Evidence], int, float | None]]


def slow_evidence(monkeypatch: pytest.MonkeyPatch, hold: Callable[[str], None]) -> Finder:
    """``scored_evidence`` in the evidence thread, after ``hold(doc_id)`` returns (or raises)."""
    real: Finder = scored_evidence

    def held(library: Library, doc_id: str, item: ChecklistItem) -> tuple[list[Evidence], int, float | None]:
        hold(doc_id)
        return real(library, doc_id, item)

    monkeypatch.setattr(room_evidence, "scored_evidence", held)
    return real


class Reading(FakeEngine):
    """Says when its first reading starts."""

    def __init__(self) -> None:
        super().__init__(default_reply=NOT_FOUND, n_ctx=N_CTX)
        self.reading = threading.Event()

    def generate_batch(self, prompts: Any, **kwargs: Any) -> Any:
        self.reading.set()
        return super().generate_batch(prompts, **kwargs)


def test_readings_start_before_the_evidence_and_the_items_are_stored_with_it(
    room: tuple[Library, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    lib, ids = room
    engine = Reading()

    def after_the_first_reading(doc_id: str) -> None:
        if not engine.reading.wait(30):  # the readings waited for the evidence, as before
            raise AssertionError("no reading started while the evidence was being found")

    real = slow_evidence(monkeypatch, after_the_first_reading)
    items: list[ItemDone] = []
    reviews: list[DocumentReview] = []
    result = review_room(lib, engine, ids, CHECKLIST, model="m1", on_item=items.append, on_review=reviews.append)
    assert (result.reviewed, result.items_answered, result.readings) == (3, 6, 12)
    assert [r.doc_id for r in reviews] == ids  # in contract order
    assert [(i.doc_id, i.index) for i in items] == [(d, n) for d in ids for n in (0, 1)]
    for doc_id in ids:
        stored = stored_review(lib, doc_id, CHECKLIST, "m1")
        assert stored is not None
        for item, got in zip(ITEMS, stored.items, strict=True):
            evidence, _, score = real(lib, doc_id, item)
            assert evidence and [e.passage_id for e in got.evidence] == [e.passage_id for e in evidence]
            assert got.clause_score == (None if score is None else pytest.approx(score, abs=1e-3))
    assert all(i.result.evidence for i in items)


def test_a_stop_while_the_evidence_is_found_stops_its_thread(
    room: tuple[Library, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    lib, ids = room
    control = RoomControl()
    searching, first_done = threading.Event(), threading.Event()

    def contract_1_until_stopped(doc_id: str) -> None:
        if doc_id == ids[1]:
            searching.set()
            while not control.cancel.cancelled:  # a slow ranker: the stop comes meanwhile
                control.cancel.wait(0.01)

    def stop_when_both() -> None:
        if searching.wait(30) and first_done.wait(30):
            control.stop()

    slow_evidence(monkeypatch, contract_1_until_stopped)
    helper = threading.Thread(target=stop_when_both)
    helper.start()
    engine = not_found_engine()
    try:
        with pytest.raises(Cancelled):
            review_room(lib, engine, ids, CHECKLIST, control=control, model="m1", on_review=lambda _: first_done.set())
    finally:
        helper.join()
    assert not evidence_thread_alive()
    # contract 0 is stored; contract 1's readings waited for its evidence, which never came
    assert stored_room(lib, ids, CHECKLIST, "m1") == RoomStored(1, 0, 2)
    monkeypatch.undo()
    again = review_room(lib, engine, ids, CHECKLIST, model="m1")
    assert (again.skipped, again.reviewed) == (1, 2)
    assert all(i.evidence for d in ids if (r := stored_review(lib, d, CHECKLIST, "m1")) for i in r.items)


def test_an_error_in_the_evidence_thread_is_the_jobs_error(
    room: tuple[Library, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    lib, ids = room

    def broken(doc_id: str) -> None:
        if doc_id == ids[1]:
            raise LibraryError("The library cannot be read (disk I/O error).")

    slow_evidence(monkeypatch, broken)
    engine = not_found_engine()
    with pytest.raises(LibraryError, match="disk I/O error"):
        review_room(lib, engine, ids, CHECKLIST, model="m1")
    assert not evidence_thread_alive()
    assert stored_review(lib, ids[1], CHECKLIST, "m1") is None


def test_a_paused_room_resumes_while_the_evidence_is_found(
    room: tuple[Library, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    lib, ids = room
    control = RoomControl()
    paused, resumed = threading.Event(), threading.Event()
    seen_paused: list[bool] = []

    def held_until_resumed(doc_id: str) -> None:
        if doc_id != ids[0] and not resumed.wait(30):
            raise AssertionError("not resumed")

    def pause_at_the_first(review: DocumentReview) -> None:
        if not paused.is_set():
            control.pause()
            paused.set()

    def resume_later() -> None:
        paused.wait(30)
        seen_paused.append(control.paused)
        control.resume()
        resumed.set()

    slow_evidence(monkeypatch, held_until_resumed)
    helper = threading.Thread(target=resume_later)
    helper.start()
    engine = not_found_engine()
    try:
        result = review_room(lib, engine, ids, CHECKLIST, control=control, model="m1", on_review=pause_at_the_first)
    finally:
        helper.join()
    assert seen_paused == [True]
    assert (result.reviewed, result.items_answered, result.readings) == (3, 6, 12)
    assert stored_room(lib, ids, CHECKLIST, "m1") == RoomStored(3, 0, 0)
    assert all(i.evidence for d in ids if (r := stored_review(lib, d, CHECKLIST, "m1")) for i in r.items)


MORE = (
    ChecklistItem("term", "Term", "How long?", ("term",), "text"),
    ChecklistItem("pay", "Pay", "Pay?", ("pay",), "text"),
)
FOUR_ITEMS = Checklist("four", "v1", (*ITEMS, *MORE))


def test_each_slot_keeps_to_a_contract_of_its_own(tmp_path: Path, server: Running) -> None:
    """Contract affinity: each client thread sends one contract's readings one after another (the
    server's slot keeps that contract's text cached), a contract of its own for each thread."""
    with Library.open(tmp_path / "library.sqlite") as lib:
        ids = [add_document(lib, contract(n), title=f"Contract {n}") for n in range(8)]
        engine = engine_for(server.url)
        sent: dict[str, list[int]] = {}  # each client thread's requests' contracts, in order
        lock = threading.Lock()
        complete = engine.complete

        def recorded(prompt: Any, **kwargs: Any) -> Any:
            with lock:
                sent.setdefault(threading.current_thread().name, []).append(contract_of(prompt[-1].content))
            return complete(prompt, **kwargs)

        engine.complete = recorded  # type: ignore[method-assign]
        result = review_room(lib, engine, ids, FOUR_ITEMS, model="remote")
        assert (result.reviewed, result.items_answered, result.readings) == (8, 32, 32)
        assert all_stored(lib, ids, "remote", FOUR_ITEMS)
    assert len(sent) == 4
    # the threads start as the contracts are prepared, one more a refill after the low water's
    # (two contracts of four readings here): the fourth thread starts on contract 0 beside the first
    assert len({contracts[0] for contracts in sent.values()}) >= 3  # not all on contract 0
    for contracts in sent.values():  # one run of readings per contract (a thread never goes back)
        runs = [c for n, c in enumerate(contracts) if n == 0 or contracts[n - 1] != c]
        assert len(runs) == len(set(runs)), contracts
    readers = {c: sum(c in contracts for contracts in sent.values()) for c in range(8)}
    assert sum(n == 1 for n in readers.values()) >= 4, sent  # some shared: at the start and the tail

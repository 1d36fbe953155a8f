"""The model's review of a data room with the scripted engine: readings across contracts, each
contract stored as it finishes, skipped when reviewed before, continued after a stop."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from inference.cancel import Cancelled
from inference.engines.engine import ChatMessage
from inference.engines.fake import FakeEngine
from inference.engines.prompt_feed import PromptFeed
from summarizer.library.storage.store import Library
from summarizer.review.checklist import Checklist, ChecklistItem
from summarizer.review.evidence import DocumentReview, ItemDone
from summarizer.review.export import to_csv
from summarizer.review.item_answers import stored_review
from summarizer.review.room_review import RoomControl, RoomStatus, RoomStored, review_room, stored_room
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

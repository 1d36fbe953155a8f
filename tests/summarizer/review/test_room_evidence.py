"""The evidence thread of a data room's review: each item searched once, on its own connection,
in the order asked; its error raised in the job's thread; a cancel stops it."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from inference.cancel import Cancelled, CancelToken
from summarizer.library.storage.store import Library
from summarizer.review import room_evidence
from summarizer.review.evidence import Evidence, ItemResult, scored_evidence
from summarizer.review.room_evidence import RoomEvidence, with_evidence
from tests.summarizer.doc_factory import add_document
from tests.summarizer.review.room_contracts import CHECKLIST, ITEMS, pages


@pytest.fixture
def lib(tmp_path: Path) -> Iterator[tuple[Library, str]]:
    with Library.open(tmp_path / "library.sqlite") as library:
        yield library, add_document(library, pages(0), title="Contract 0", words_per_passage=30)


def until_found(evidence: RoomEvidence, doc_id: str, indexes: list[int]) -> None:
    for _ in range(600):
        if evidence.complete(doc_id, indexes):
            return
        evidence.wait(0.05)
    raise AssertionError("the evidence was not found")


def test_each_item_is_found_once_on_the_threads_own_connection(
    lib: tuple[Library, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    library, doc_id = lib
    connections: list[tuple[int, str]] = []

    def recorded(used: Library, doc: str, item: object) -> tuple[list[Evidence], int, float | None]:
        connections.append((id(used.db.conn), threading.current_thread().name))
        return scored_evidence(used, doc, item)  # type: ignore[arg-type]

    monkeypatch.setattr(room_evidence, "scored_evidence", recorded)
    evidence = RoomEvidence(library.path, CHECKLIST, CancelToken())
    try:
        assert evidence.found(doc_id, 0) is None
        evidence.ask(doc_id, [0, 1])
        evidence.ask(doc_id, [1])  # asked again (a pass started again): not searched again
        until_found(evidence, doc_id, [0, 1])
        found = evidence.found(doc_id, 1)
        assert found is not None and evidence.take(doc_id, 1) == found
        assert evidence.found(doc_id, 1) is None  # taken: stored with its item, forgotten here
        # ...but still complete: a job that waits for the evidence of contracts read before (many at
        # once with a server's contract affinity) must not wait for an item it already stored
        assert evidence.complete(doc_id, [0, 1])
        direct, _, score = scored_evidence(library, doc_id, ITEMS[1])
        assert [e.passage_id for e in found[0]] == [e.passage_id for e in direct] and found[1] == score
    finally:
        evidence.close()
    assert evidence.searched == 2 and len(connections) == 2
    assert all(conn != id(library.db.conn) and name == "pagewise-room-evidence" for conn, name in connections)
    result = ItemResult("coc", "Change of Control", "q", "yes_no", "not_found")
    with_evidence(result, found)
    assert result.evidence == found[0] and result.clause_score == found[1]


def test_parked_items_come_back_in_contract_order_when_their_evidence_is_found(lib: tuple[Library, str]) -> None:
    library, doc_id = lib
    evidence = RoomEvidence(library.path, CHECKLIST, CancelToken())
    try:
        evidence.park(1, doc_id, 1)
        evidence.park(0, doc_id, 0)
        assert evidence.ready() == []  # nothing asked yet
        evidence.ask(doc_id, [0, 1])
        until_found(evidence, doc_id, [0, 1])
        assert evidence.ready() == [(0, 0), (1, 1)] and not evidence.parked
    finally:
        evidence.close()


def test_the_threads_error_is_raised_in_the_jobs_thread(
    lib: tuple[Library, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    library, doc_id = lib

    def broken(*_: object) -> None:
        raise OSError("disk I/O error")

    monkeypatch.setattr(room_evidence, "scored_evidence", broken)
    evidence = RoomEvidence(library.path, CHECKLIST, CancelToken())
    try:
        evidence.ask(doc_id, [0])
        with pytest.raises(OSError, match="disk I/O error"):
            until_found(evidence, doc_id, [0])
        with pytest.raises(OSError):
            evidence.found(doc_id, 0)
    finally:
        evidence.close()


def test_a_cancel_stops_the_thread_after_its_item(lib: tuple[Library, str], monkeypatch: pytest.MonkeyPatch) -> None:
    library, doc_id = lib
    cancel = CancelToken()
    started = threading.Event()

    def slow(used: Library, doc: str, item: object) -> tuple[list[Evidence], int, float | None]:
        started.set()
        cancel.wait(30)
        return [], 0, None

    monkeypatch.setattr(room_evidence, "scored_evidence", slow)
    evidence = RoomEvidence(library.path, CHECKLIST, cancel)
    evidence.ask(doc_id, [0, 1])
    assert started.wait(30)
    cancel.cancel()
    with pytest.raises(Cancelled):
        evidence.wait(0.01)
    evidence.close()
    assert evidence.searched <= 1  # the item it was on, not the next

"""An evidence-only review of many contracts stores each contract as it is done and continues after a stop."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from inference.cancel import Cancelled, CancelToken
from summarizer.library.storage.store import Library
from summarizer.review.checklist import Checklist, ChecklistItem
from summarizer.review.evidence import DocumentReview, ItemDone
from summarizer.review.evidence_batch import review_evidence_stored
from tests.summarizer.doc_factory import add_document

ITEMS = (
    ChecklistItem("law", "Governing Law", "Which law governs?", ("governed by the laws of",), "jurisdiction"),
    ChecklistItem("coc", "Change of Control", "Change of control?", ("change of control",), "yes_no"),
)
CHECKLIST = Checklist("two", "v1", ITEMS)
PAGES = [
    "SUPPLY AGREEMENT between Acme Corp and Beta LLC. The term of this agreement is five years.",
    "Governing law. This agreement shall be governed by the laws of the State of New York.",
    "Change of control. Upon a change of control of either party the other may terminate.",
]


@pytest.fixture
def room(tmp_path: Path) -> Iterator[tuple[Library, list[str]]]:
    with Library.open(tmp_path / "library.sqlite") as lib:
        ids = [add_document(lib, PAGES, title=f"Contract {n}", words_per_passage=12) for n in range(3)]
        yield lib, ids


def test_an_evidence_run_stores_each_contract_and_continues_after_a_stop(room: tuple[Library, list[str]]) -> None:
    lib, ids = room
    token = CancelToken()
    finished: list[str] = []

    def stop_after_the_first(review: DocumentReview) -> None:
        finished.append(review.doc_id)
        token.cancel()

    with pytest.raises(Cancelled):
        review_evidence_stored(lib, ids, CHECKLIST, cancel=token, on_review=stop_after_the_first)
    assert finished == ids[:1]

    found: list[ItemDone] = []
    done: list[int] = []
    reviews = review_evidence_stored(lib, ids, CHECKLIST, lambda p: done.append(p.done), on_item=found.append)
    assert [r.doc_id for r in reviews] == ids
    assert {f.doc_id for f in found} == set(ids[1:])  # the first contract was read back, not searched again
    assert all(item.cached for item in reviews[0].items) and not any(i.cached for i in reviews[1].items)
    assert done[0] == len(ITEMS) and done[-1] == len(ids) * len(ITEMS)  # the stored one counts as done
    assert reviews[1].items[0].evidence[0].page_start == 2

"""A review run reports each item as soon as it is final (``on_item``): every item of every
contract exactly once, with its document id, before the run returns; stored items too."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from inference.cancel import Cancelled, CancelToken
from inference.engines.fake import FakeEngine
from inference.progress import Progress
from summarizer.library.storage.store import Library
from summarizer.review.checklist import Checklist, ChecklistItem
from summarizer.review.evidence import EVIDENCE_ONLY, ItemDone, ItemResult, review_evidence
from summarizer.review.item_answers import review_with_model
from tests.summarizer.doc_factory import add_document

PAGES = [
    "MASTER AGREEMENT. This agreement is made between Acme Corp and Beta LLC. The term of this agreement "
    "is five (5) years from the effective date.",
    "Governing law. This agreement shall be governed by the laws of the State of New York.",
    "Escrow. The licensor shall deposit the source code with an escrow agent within thirty days.",
]
ITEMS = (
    ChecklistItem("law", "Governing Law", "Which law governs?", ("governed by the laws of",), "jurisdiction",
                  "Delaware or New York"),
    ChecklistItem("escrow", "Source Code Escrow", "Is source code in escrow?", ("source code escrow",), "yes_no",
                  "required"),
    ChecklistItem("term", "Expiration Date", "How long is the term?", ("term of this agreement",), "duration"),
)  # fmt: skip
CHECKLIST = Checklist("three", "v1", ITEMS)
ONE_PAGE_UNITS = 620  # n_ctx giving reading units of 256 tokens: one long page each


def reply(found: bool, answer: str = "", pages: list[int] | None = None) -> str:
    return json.dumps({"found": found, "answer": answer, "quote": "", "pages": pages or []})


def long_pages(tag: str) -> list[str]:
    return [page + " " + " ".join(f"{tag}{n}_{i}" for i in range(150)) for n, page in enumerate(PAGES)]


class Recorder:
    """The items reported, each with the number of model calls made when it came."""

    def __init__(self, engine: FakeEngine | None = None) -> None:
        self.engine = engine
        self.seen: list[tuple[ItemDone, int]] = []

    def __call__(self, done: ItemDone) -> None:
        self.seen.append((done, len(self.engine.calls) if self.engine else 0))

    def keys(self) -> list[tuple[str, int, str, int]]:
        return [(d.doc_id, d.index, d.result.status, calls) for d, calls in self.seen]


def same(reported: ItemResult, final: ItemResult) -> bool:
    """The reported result is the final one, less what is added when shown (flag, correction)."""
    fields: list[str] = ["item_id", "status", "answer", "value", "quote", "citations", "passages_read", "cached"]
    return all(getattr(reported, f) == getattr(final, f) for f in fields) and [
        e.passage_id for e in reported.evidence
    ] == [e.passage_id for e in final.evidence]


def test_each_item_is_reported_once_as_its_batch_finishes_it(tmp_path: Path) -> None:
    with Library.open(tmp_path / "library.sqlite") as lib:
        first = add_document(lib, long_pages("a"), title="First", words_per_passage=40)
        second = add_document(lib, long_pages("b"), title="Second", words_per_passage=40)
        engine = FakeEngine([reply(True, "New York", [2])], n_ctx=ONE_PAGE_UNITS, default_reply=reply(False))
        recorder = Recorder(engine)
        reviews = review_with_model(lib, engine, [first, second], CHECKLIST, on_item=recorder)
        assert [len(r.items) for r in reviews] == [3, 3]
        # Three units of one page each; a unit's batch asks the items still open.
        # First: law answered by the first call; escrow and term not found in the last unit (calls 6, 7).
        # Second: nothing found: each item is final at its prompt of the third unit's batch (calls 14-16).
        assert recorder.keys() == [
            (first, 0, "answered", 1),
            (first, 1, "not_found", 6),
            (first, 2, "not_found", 7),
            (second, 0, "not_found", 14),
            (second, 1, "not_found", 15),
            (second, 2, "not_found", 16),
        ]
        assert len(engine.calls) == 16
        final = {(r.doc_id, n): item for r in reviews for n, item in enumerate(r.items)}
        for done, _ in recorder.seen:
            shown = final[(done.doc_id, done.index)]
            assert same(done.result, shown)
            assert done.result is not shown and done.result.flag is None  # a copy, as stored
        assert final[(first, 0)].flag == "match"  # the flags are the shown review's


def test_a_resumed_run_reports_the_stored_items_first(tmp_path: Path) -> None:
    with Library.open(tmp_path / "library.sqlite") as lib:
        doc_id = add_document(lib, PAGES, words_per_passage=12)
        cancel = CancelToken()

        def stop_after_the_first_item(progress: Progress) -> None:
            if progress.done > 0:
                cancel.cancel()

        stopped = FakeEngine([reply(True, "New York", [2]), reply(False), reply(False)], n_ctx=8192)
        before_the_stop = Recorder(stopped)
        with pytest.raises(Cancelled):
            review_with_model(lib, stopped, [doc_id], CHECKLIST, stop_after_the_first_item, cancel,
                              on_item=before_the_stop)  # fmt: skip
        assert before_the_stop.keys() == [(doc_id, 0, "answered", 1)]  # reported before the run ended

        resumed = FakeEngine([reply(False), reply(True, "five (5) years", [1])], n_ctx=8192)
        recorder = Recorder(resumed)
        (review,) = review_with_model(lib, resumed, [doc_id], CHECKLIST, on_item=recorder)
        assert recorder.keys() == [(doc_id, 0, "answered", 0), (doc_id, 1, "not_found", 1), (doc_id, 2, "answered", 2)]
        assert [done.result.cached for done, _ in recorder.seen] == [True, False, False]
        assert all(same(done.result, review.items[done.index]) for done, _ in recorder.seen)

        again = FakeEngine(n_ctx=8192)  # everything stored: no model call, every item still reported
        everything: list[Any] = []
        review_with_model(lib, again, [doc_id], CHECKLIST, on_item=everything.append)
        assert [(d.index, d.result.cached) for d in everything] == [(0, True), (1, True), (2, True)]
        assert again.calls == []


def test_an_evidence_run_reports_each_item(tmp_path: Path) -> None:
    with Library.open(tmp_path / "library.sqlite") as lib:
        doc_id = add_document(lib, PAGES, words_per_passage=12)
        recorder = Recorder()
        (review,) = review_evidence(lib, [doc_id], CHECKLIST, on_item=recorder)
        # Each item reported once, in order; "absent" is the clause ranker's call on these 12-word passages.
        assert [(d.doc_id, d.index) for d, _ in recorder.seen] == [(doc_id, 0), (doc_id, 1), (doc_id, 2)]
        assert all(d.result.status in EVIDENCE_ONLY for d, _ in recorder.seen)
        assert all(same(done.result, review.items[done.index]) for done, _ in recorder.seen)

"""Stored review results: reused without the model, resumed after a stop, keyed to model,
checklist version and passages; the reviewer's corrections kept beside them and exported."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlite_utils

from inference.cancel import Cancelled, CancelToken
from inference.engines.fake import FakeEngine
from inference.errors import EngineError
from inference.progress import Progress
from summarizer.library.storage.migrations.v04_review_results import review_results as _review_results
from summarizer.library.storage.schema import MIGRATIONS, SCHEMA_VERSION, applied_version
from summarizer.library.storage.store import Library
from summarizer.review.checklist import Checklist, ChecklistItem
from summarizer.review.export import to_csv, to_markdown
from summarizer.review.item_answers import review_with_model, stored_review, stored_reviews
from summarizer.review.store import record_correction
from tests.summarizer.doc_factory import add_document

PAGES = [
    "MASTER AGREEMENT. This agreement is made between Acme Corp and Beta LLC. The term of this agreement "
    "is five (5) years from the effective date.",
    "Governing law. This agreement shall be governed by the laws of the State of New York. Each party submits "
    "to the courts of New York.",
    "Escrow. The licensor shall deposit the source code with an escrow agent within thirty days.",
]
ITEMS = (
    ChecklistItem("law", "Governing Law", "Which law governs?", ("governed by the laws of",), "jurisdiction",
                  "Delaware or New York"),
    ChecklistItem("escrow", "Source Code Escrow", "Is source code in escrow?", ("source code escrow",), "yes_no",
                  "required"),
    ChecklistItem("term", "Expiration Date", "How long is the term?", ("term of this agreement",), "duration",
                  "at least 10 years"),
)  # fmt: skip
CHECKLIST = Checklist("three", "v1", ITEMS)
LAW_QUOTE = "shall be governed by the laws of the State of New York"


def reply(found: bool, answer: str = "", quote: str = "", pages: list[int] | None = None) -> str:
    return json.dumps({"found": found, "answer": answer, "quote": quote, "pages": pages or []})


def replies() -> list[str]:
    """The three items' replies, in the checklist's order."""
    return [reply(True, "New York", LAW_QUOTE, [2]), reply(False), reply(True, "five (5) years", "", [1])]


def asked(engine: FakeEngine) -> list[str]:
    """The questions the engine was asked, in order."""
    questions = []
    for call in engine.calls:
        assert not isinstance(call.prompt, str)
        questions.append(call.prompt[-1].content.rsplit("Question: ", 1)[1].split(" (")[0])
    return questions


@pytest.fixture
def library(tmp_path: Path) -> Iterator[tuple[Library, str]]:
    with Library.open(tmp_path / "library.sqlite") as lib:
        yield lib, add_document(lib, PAGES, words_per_passage=12)


def rows(lib: Library, table: str) -> int:
    return int(lib.db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])


def test_a_second_run_reads_the_stored_results_without_the_model(library: tuple[Library, str]) -> None:
    lib, doc_id = library
    first = FakeEngine(replies(), n_ctx=8192)
    seen: list[Progress] = []
    (review,) = review_with_model(lib, first, [doc_id], CHECKLIST, seen.append)
    assert len(first.calls) == 3 and rows(lib, "review_results") == 3
    assert (seen[0].done, seen[-1].done, seen[-1].total) == (0, 3, 3)
    assert seen[-1].rate and seen[-1].eta_seconds() == 0.0
    assert not any(item.cached for item in review.items)

    again = FakeEngine(n_ctx=8192)  # no reply scripted: any call would raise EngineError
    events: list[Progress] = []
    (cached,) = review_with_model(lib, again, [doc_id], CHECKLIST, events.append)
    assert again.calls == []
    assert all(item.cached for item in cached.items)
    assert events[0].done == events[0].total == 3  # stored items count as done at once
    assert [i.to_json() | {"cached": False} for i in cached.items] == [i.to_json() for i in review.items]
    law, escrow, term = cached.items
    assert (law.status, law.value, law.flag, law.quote) == ("answered", "New York", "match", LAW_QUOTE)
    assert (escrow.status, escrow.flag) == ("not_found", "missing")
    assert (term.value, term.flag) == ("1825 days", "deviation")  # flags computed when read, not stored
    assert law.evidence and law.evidence[0].passage_id == review.items[0].evidence[0].passage_id
    assert stored_reviews(lib, [doc_id], CHECKLIST, "FakeEngine:fake-model") is not None


def test_a_cancelled_review_continues_with_the_items_not_stored(library: tuple[Library, str]) -> None:
    lib, doc_id = library
    cancel = CancelToken()

    def stop_after_the_first_item(progress: Progress) -> None:
        if progress.done > 0:
            cancel.cancel()

    engine = FakeEngine(replies(), n_ctx=8192)
    with pytest.raises(Cancelled):
        review_with_model(lib, engine, [doc_id], CHECKLIST, stop_after_the_first_item, cancel)
    assert len(engine.calls) == 2  # the batch stopped at its second prompt
    assert [r[0] for r in lib.db.execute("SELECT item_id FROM review_results")] == ["law"]

    resumed = FakeEngine(replies()[1:], n_ctx=8192)
    (review,) = review_with_model(lib, resumed, [doc_id], CHECKLIST)
    assert asked(resumed) == ["Is source code in escrow?", "How long is the term?"]
    assert [item.cached for item in review.items] == [True, False, False]
    assert [item.status for item in review.items] == ["answered", "not_found", "answered"]


def test_a_crash_in_the_second_unit_keeps_the_items_finished_in_the_first(tmp_path: Path) -> None:
    with Library.open(tmp_path / "library.sqlite") as lib:
        long_pages = [page + " " + " ".join(f"filler{n}_{i}" for i in range(150)) for n, page in enumerate(PAGES)]
        doc_id = add_document(lib, long_pages, words_per_passage=40)
        n_ctx = 620  # a reading unit of 256 tokens: one page each
        engine = FakeEngine(n_ctx=n_ctx)
        # Unit 1: law answered, escrow and term not there; unit 2: the worker dies.
        engine.queue(reply(True, "New York", "", [1]), reply(False), reply(False), EngineError("worker died"))
        with pytest.raises(EngineError):
            review_with_model(lib, engine, [doc_id], CHECKLIST)
        assert len(engine.calls) == 4
        resumed = FakeEngine(n_ctx=n_ctx, default_reply=reply(False))
        (review,) = review_with_model(lib, resumed, [doc_id], CHECKLIST)
        assert "Which law governs?" not in asked(resumed)
        assert len(resumed.calls) == 2 * 3  # escrow and term read in all three units again
        assert [item.status for item in review.items] == ["answered", "not_found", "not_found"]
        assert [item.passages_read for item in review.items] == [1, 3, 3]


def test_another_model_or_checklist_version_asks_again(library: tuple[Library, str]) -> None:
    lib, doc_id = library
    for model, checklist in (("sha-a", CHECKLIST), ("sha-b", CHECKLIST), ("sha-a", Checklist("three", "v2", ITEMS))):
        engine = FakeEngine(replies(), n_ctx=8192)
        review_with_model(lib, engine, [doc_id], checklist, model=model)
        assert len(engine.calls) == 3, (model, checklist.version)
    engine = FakeEngine(n_ctx=8192)
    review_with_model(lib, engine, [doc_id], CHECKLIST, model="sha-a")
    assert engine.calls == []
    fresh = FakeEngine(replies(), n_ctx=8192)
    review_with_model(lib, fresh, [doc_id], CHECKLIST, model="sha-a", fresh=True)
    assert len(fresh.calls) == 3
    assert rows(lib, "review_results") == 9


def test_a_recut_document_is_asked_again(library: tuple[Library, str]) -> None:
    lib, doc_id = library
    review_with_model(lib, FakeEngine(replies(), n_ctx=8192), [doc_id], CHECKLIST)
    last = lib.db.execute("SELECT MAX(passage_id) FROM passages").fetchone()[0]
    lib.db.execute("DELETE FROM passages WHERE passage_id = ?", [last])  # new passages, new ids
    engine = FakeEngine(replies(), n_ctx=8192)
    (review,) = review_with_model(lib, engine, [doc_id], CHECKLIST)
    assert len(engine.calls) == 3 and not any(item.cached for item in review.items)
    assert rows(lib, "review_results") == 3  # the stale rows are gone


def test_corrections_survive_reruns_and_change_the_flags(library: tuple[Library, str]) -> None:
    lib, doc_id = library
    review_with_model(lib, FakeEngine(replies(), n_ctx=8192), [doc_id], CHECKLIST)
    record_correction(lib, doc_id, CHECKLIST, "law", value="California", note="see the side letter")
    record_correction(lib, doc_id, CHECKLIST, "term", accepted=True, model_value="1825 days")
    record_correction(lib, doc_id, CHECKLIST, "escrow", value="yes")
    record_correction(lib, doc_id, CHECKLIST, "escrow", accepted=True)  # the value set before stays

    for fresh in (False, True):
        engine = FakeEngine(replies(), n_ctx=8192)
        (review,) = review_with_model(lib, engine, [doc_id], CHECKLIST, fresh=fresh)
        assert len(engine.calls) == (3 if fresh else 0)
        law, escrow, term = review.items
        assert law.value == "New York" and law.shown_value == "California"
        assert law.correction is not None and law.correction.note == "see the side letter"
        assert law.flag == "deviation"  # judged on the reviewer's value
        assert escrow.shown_value == "yes" and escrow.correction and escrow.correction.accepted
        assert escrow.flag == "match"
        assert term.correction is not None and term.correction.accepted and term.shown_value == "1825 days"
        assert review.to_json()["items"][0]["correction"]["value"] == "California"

    # The model now says something else for the accepted term: the acceptance no longer holds.
    changed = [reply(True, "New York", LAW_QUOTE, [2]), reply(False), reply(True, "ten years", "", [1])]
    (review,) = review_with_model(lib, FakeEngine(changed, n_ctx=8192), [doc_id], CHECKLIST, fresh=True)
    assert review.items[2].correction is not None and not review.items[2].correction.accepted
    record_correction(lib, doc_id, CHECKLIST, "law", value="")  # removed: the model's value shows again
    grid = stored_review(lib, doc_id, CHECKLIST)
    assert grid is not None and grid.items[0].shown_value == "New York" and grid.items[0].flag == "match"


def test_exports_carry_the_corrections(library: tuple[Library, str], tmp_path: Path) -> None:
    import docx

    from summarizer.review.memo_docx import write_docx

    lib, doc_id = library
    review_with_model(lib, FakeEngine(replies(), n_ctx=8192), [doc_id], CHECKLIST)
    record_correction(lib, doc_id, CHECKLIST, "law", value="California", accepted=True, note="side letter")
    reviews = stored_reviews(lib, [doc_id], CHECKLIST, "FakeEngine:fake-model")
    assert reviews is not None

    markdown = to_markdown(reviews)
    law_row = next(line for line in markdown.splitlines() if line.startswith("| Governing Law"))
    assert "California" in law_row and "[corrected, accepted]" in law_row and "New York" not in law_row
    assert "reviewer's value: California (the model's: New York)" in markdown and "note: side letter" in markdown

    law, escrow, _ = csv.DictReader(io.StringIO(to_csv(reviews)))
    assert (law["value"], law["model_value"], law["accepted"], law["note"]) == (
        "California", "New York", "yes", "side letter"
    )  # fmt: skip
    assert (escrow["value"], escrow["model_value"], escrow["accepted"]) == ("", "", "")

    write_docx(reviews, tmp_path / "memo.docx", model="model.gguf")
    memo = docx.Document(str(tmp_path / "memo.docx"))
    cell = memo.tables[0].rows[1].cells[1].text
    assert cell.startswith("California") and "[corrected, accepted]" in cell and "New York" not in cell
    text = "\n".join(p.text for p in memo.paragraphs)
    assert "Reviewer: reviewer's value: California (the model's: New York)" in text and "side letter" in text


def test_the_grid_shows_pending_items_and_nothing_before_a_run(library: tuple[Library, str]) -> None:
    lib, doc_id = library
    assert stored_review(lib, doc_id, CHECKLIST) is None
    engine = FakeEngine([replies()[0], EngineError("worker died")], n_ctx=8192)
    with pytest.raises(EngineError):
        review_with_model(lib, engine, [doc_id], CHECKLIST)
    grid = stored_review(lib, doc_id, CHECKLIST)
    assert grid is not None
    assert [item.status for item in grid.items] == ["answered", "pending", "pending"]
    assert [item.flag for item in grid.items] == ["match", None, None]
    assert stored_reviews(lib, [doc_id], CHECKLIST, "FakeEngine:fake-model") is None


def test_removing_the_document_removes_its_review_rows(library: tuple[Library, str]) -> None:
    lib, doc_id = library
    other = add_document(lib, PAGES, title="Other", words_per_passage=12)
    for doc in (doc_id, other):
        review_with_model(lib, FakeEngine(replies(), n_ctx=8192), [doc], CHECKLIST)
        record_correction(lib, doc, CHECKLIST, "law", note="checked")
    lib.remove(doc_id)
    assert {r[0] for r in lib.db.execute("SELECT doc_id FROM review_results")} == {other}
    assert {r[0] for r in lib.db.execute("SELECT doc_id FROM review_corrections")} == {other}


def test_the_migration_adds_the_review_tables_to_an_existing_library(tmp_path: Path) -> None:
    path = tmp_path / "library.sqlite"
    mine = next(version for version, _, apply in MIGRATIONS if apply is _review_results)
    conn = sqlite3.connect(str(path), isolation_level=None)
    db = sqlite_utils.Database(conn)
    db.execute("CREATE TABLE migrations (version INTEGER PRIMARY KEY, name TEXT, applied_at TEXT)")
    for version, name, apply in MIGRATIONS:
        if version < mine:
            apply(db)
            db.execute("INSERT INTO migrations VALUES (?, ?, '2026-01-01')", [version, name])
    doc_id = add_document(Library(db, path), PAGES, words_per_passage=12)
    assert "review_results" not in db.table_names()
    conn.close()
    with Library.open(path) as lib:
        assert applied_version(lib.db) == SCHEMA_VERSION
        assert {"review_results", "review_corrections"} <= set(lib.db.table_names())
        (review,) = review_with_model(lib, FakeEngine(replies(), n_ctx=8192), [doc_id], CHECKLIST)
        assert review.items[0].value == "New York" and rows(lib, "review_results") == 3

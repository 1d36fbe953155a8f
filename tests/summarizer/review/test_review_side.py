"""Side-dependent playbook flags: whom a clause binds, seen from the party the reviewer represents."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from inference.engines.fake import FakeEngine
from summarizer.library.ingest import IngestOptions, ingest_path
from summarizer.library.storage.store import Library
from summarizer.review.checklist import Checklist, ChecklistItem, load_checklist
from summarizer.review.evidence import DocumentReview, ItemResult
from summarizer.review.export import to_csv, to_markdown
from summarizer.review.item_answers import review_with_model, stored_review
from summarizer.review.party_side import Bound, who_acts
from summarizer.review.playbook import flag_for
from tests.pdf_factory import make_pdf

NON_COMPETE = "During the Term, Distributor shall not sell any product that competes with the Products."
ITEMS = (
    ChecklistItem("nc", "Non-Compete", "Is a party restricted from competing?", ("shall not compete",), "yes_no",
                  "not acceptable binding us"),
    ChecklistItem("tfc", "Termination for Convenience", "Can a party terminate without cause?",
                  ("terminate for convenience",), "yes_no", "not acceptable for the other party"),
)  # fmt: skip
CHECKLIST = Checklist("side", "v1", ITEMS)


def result(quote: str, status: str = "answered", value: str = "yes") -> ItemResult:
    return ItemResult("x", "X", "Q", "yes_no", status, answer=value, value=value, quote=quote)


def test_who_a_clause_binds() -> None:
    assert who_acts(NON_COMPETE, "Distributor") is Bound.US
    assert who_acts(NON_COMPETE, "Company") is Bound.THEM
    assert who_acts(NON_COMPETE, "Acme Corp / Distributor") is Bound.US  # several names for one side
    assert who_acts("Neither party shall solicit the employees of the other.", "Company") is Bound.BOTH
    assert who_acts("The Products are described in Exhibit A.", "Company") is Bound.UNKNOWN
    right = "Company may terminate this Agreement at any time upon thirty days' notice."
    assert who_acts(right, "Company", right=True) is Bound.US
    assert who_acts(right, "Distributor", right=True) is Bound.THEM


def test_side_dependent_positions() -> None:
    non_compete, convenience = ITEMS
    assert flag_for(non_compete, result(NON_COMPETE), "Distributor") == ("deviation", "it binds Distributor")
    assert flag_for(non_compete, result(NON_COMPETE), "Company")[0] == "match"
    assert flag_for(non_compete, result("", "not_found", ""), "Company") == ("match", "absent, as wanted")
    flag, reason = flag_for(non_compete, result(NON_COMPETE), "")
    assert flag is None and "--side" in reason
    unknown = flag_for(non_compete, result("Competing products are listed below."), "Company")
    assert unknown[0] == "deviation" and "check it" in unknown[1]
    either = result("Either party may terminate this Agreement for convenience on 30 days' notice.")
    assert flag_for(convenience, either, "Company")[0] == "deviation"
    ours = result("Company may terminate this Agreement for convenience on 30 days' notice.")
    assert flag_for(convenience, ours, "Company") == ("match", "only Company has this right")


def test_the_cuad_checklist_has_side_dependent_positions() -> None:
    expected = {item.id: item.expected for item in load_checklist("cuad").items}
    assert expected["non-compete"] == "not acceptable binding us"
    assert expected["exclusivity"] == "not acceptable binding us"
    assert expected["termination-for-convenience"] == "not acceptable for the other party"


@pytest.fixture
def contract(tmp_path: Path) -> Iterator[tuple[Library, str]]:
    pdf = make_pdf(tmp_path / "supply.pdf", [
        ["SUPPLY AGREEMENT between Company and Distributor."],
        [NON_COMPETE],
        ["Company may terminate this Agreement for convenience on thirty days' notice."],
    ])  # fmt: skip
    with Library.open(tmp_path / "library.sqlite") as library:
        yield library, ingest_path(library, pdf, IngestOptions(embed=False)).doc_id


def test_changing_the_side_reflags_stored_results_without_the_model(
    contract: tuple[Library, str], tmp_path: Path
) -> None:
    import docx

    from summarizer.review.memo_docx import write_docx

    library, doc_id = contract
    engine = FakeEngine(n_ctx=8192)
    engine.queue(
        json.dumps({"found": True, "answer": "yes", "quote": NON_COMPETE, "pages": [2]}),
        json.dumps({"found": True, "answer": "yes", "quote": "Company may terminate this Agreement", "pages": [3]}),
    )
    (review,) = review_with_model(library, engine, [doc_id], CHECKLIST, model="m", side="Distributor")
    assert review.side == "Distributor" and review.to_json()["side"] == "Distributor"
    assert [i.flag for i in review.items] == ["deviation", "deviation"]
    calls = len(engine.calls)
    company = stored_review(library, doc_id, CHECKLIST, "m", side="Company")
    assert company is not None and [i.flag for i in company.items] == ["match", "match"]
    assert "it binds the other party, not Company" in company.items[0].reason
    unsided = stored_review(library, doc_id, CHECKLIST, "m")
    assert unsided is not None and [i.flag for i in unsided.items] == [None, None]
    assert len(engine.calls) == calls  # no model call: flags are computed when read
    assert "- reviewed for: Company" in to_markdown([company])
    assert "reviewed for" not in to_markdown([unsided])
    write_docx([company], tmp_path / "memo.docx")
    assert "Reviewed for: Company." in docx.Document(str(tmp_path / "memo.docx")).paragraphs[1].text


def test_the_csv_says_which_side_the_review_was_for() -> None:
    items = (result(NON_COMPETE),)
    for_us = DocumentReview("d1", "Supply", "sha1", "side", "v1", items, "supply.pdf", "Distributor")
    no_side = DocumentReview("d2", "Lease", "sha2", "side", "v1", items, "lease.pdf")
    header, *rows = csv.reader(io.StringIO(to_csv([for_us, no_side])))
    assert header[:4] == ["doc_id", "title", "side", "item_id"]
    assert [row[:3] for row in rows] == [["d1", "Supply", "Distributor"], ["d2", "Lease", ""]]
    by_doc = {row["doc_id"]: row for row in csv.DictReader(io.StringIO(to_csv([for_us, no_side])))}
    assert (by_doc["d1"]["side"], by_doc["d2"]["side"]) == ("Distributor", "")
    assert by_doc["d1"]["value"] == "yes"  # the columns after it are where they were named

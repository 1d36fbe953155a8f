"""Review answers with a scripted engine: whole-contract reading, not_found, errors, values, flags."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from inference.engines.fake import FakeEngine, InvalidOutput
from summarizer.library.ingest import ingest_path
from summarizer.library.storage.store import Library
from summarizer.review.checklist import Checklist, ChecklistItem, load_checklist
from summarizer.review.evidence import ItemResult
from summarizer.review.item_answers import REPLY_SCHEMA, reading_units, review_with_model
from summarizer.review.playbook import flag_for
from summarizer.review.values import duration_days, normalize_amount, normalize_date, normalize_value
from tests.conftest import CONTRACTS

ITEMS = (
    ChecklistItem("law", "Governing Law", "Which law governs?", ("governed by the laws of",), "jurisdiction",
                  "Delaware or New York"),
    ChecklistItem("escrow", "Source Code Escrow", "Is source code in escrow?", ("source code escrow",), "yes_no",
                  "required"),
    ChecklistItem("term", "Expiration Date", "How long is the term?", ("term of this agreement",), "duration",
                  "at least 5 years"),
)  # fmt: skip
CHECKLIST = Checklist("three", "abc", ITEMS)


def reply(found: bool, answer: str = "", quote: str = "", pages: list[int] | None = None) -> str:
    return json.dumps({"found": found, "answer": answer, "quote": quote, "pages": pages or []})


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Library, str]]:
    with Library.open(tmp_path_factory.mktemp("lib") / "library.sqlite") as lib:
        yield lib, ingest_path(lib, CONTRACTS / "license-17p.pdf").doc_id


def test_values_are_normalized() -> None:
    assert normalize_date("made as of March 5, 2019") == "2019-03-05"
    assert normalize_date("the 12th day of November, 2019") == "2019-11-12"
    assert normalize_date("3/5/2019") == "2019-03-05"
    assert duration_days("ten (10) years") == 3650
    assert duration_days("90 days") == 90
    assert normalize_amount("a fee of $1,500,000.00") == "USD 1500000.00"
    assert normalize_amount("RMB 50,000") == "CNY 50000"
    assert normalize_value("yes_no", "Yes, section 9") == "yes"
    assert normalize_value("duration", "five years") == "1825 days"
    assert normalize_value("date", "sometime") is None


def test_every_unit_is_read_until_an_item_is_found(library: tuple[Library, str]) -> None:
    lib, doc_id = library
    engine = FakeEngine(n_ctx=4096)
    units = reading_units({1: "a " * 50, 2: "b " * 50, 3: "c " * 5000}, engine, 200)
    assert [u.pages for u in units] == [(1, 2), (3,)]  # a page longer than the budget is cut, not dropped
    page14 = lib.page_text(doc_id, 14)
    quote = " ".join(page14.split()[:12])
    n_units = len(reading_units({p: lib.page_text(doc_id, p) for p in range(1, 18)}, engine, 4096 - 360))
    assert n_units >= 2
    # Unit 1: law found (quote from page 14 is not in unit 1: flagged), escrow not found, term garbage.
    engine.queue(reply(True, "the PRC", quote, [14]), reply(False), "not json")
    # Later units: escrow never found.
    for _ in range(n_units - 1):
        engine.queue(reply(False))
    (review,) = review_with_model(lib, engine, [doc_id], CHECKLIST, fresh=True)
    law, escrow, term = review.items
    assert all(call.json_schema == REPLY_SCHEMA and call.batch for call in engine.calls)
    assert law.status == "answered" and law.value == "the PRC" and law.passages_read == 1
    assert law.flag == "deviation" and "not one of" in law.reason
    assert escrow.status == "not_found" and escrow.passages_read == n_units  # read the whole contract
    assert escrow.flag == "missing"
    assert term.status == "error" and "not follow the JSON schema" in term.reason and term.flag is None
    assert all(item.evidence for item in review.items)
    assert len(engine.calls) == 3 + (n_units - 1)  # one batch per unit, only the open items


def test_quotes_and_citations_are_checked_against_the_text_read(library: tuple[Library, str]) -> None:
    lib, doc_id = library
    engine = FakeEngine(n_ctx=32768)  # the whole contract fits: one unit
    page14 = lib.page_text(doc_id, 14)
    quote = " ".join(page14.split()[5:20])
    engine.queue(reply(True, "New York law", quote, [14, 99]), reply(True, "yes", "made-up words", [3]),
                 reply(True, "ten (10) years", "", []))  # fmt: skip
    (review,) = review_with_model(lib, engine, [doc_id], CHECKLIST, fresh=True)
    law, escrow, term = review.items
    assert law.quote == quote and law.flag == "match"
    assert law.citations == [{"page": 14, "passage_id": None, "valid": True},
                             {"page": 99, "passage_id": None, "valid": False}]  # fmt: skip
    assert escrow.quote == "" and "not in the contract text" in escrow.reason
    assert not any(c["valid"] for c in escrow.citations)
    assert term.value == "3650 days" and term.flag == "match"


def test_playbook_positions() -> None:
    def result(status: str, answer: str | None = None, value: str | None = None) -> ItemResult:
        return ItemResult("x", "X", "Q", "excerpt", status, answer=answer, value=value)

    required = ChecklistItem("a", "Cap", "Q", ("q",), "excerpt", "required")
    banned = ChecklistItem("b", "Non-Compete", "Q", ("q",), "yes_no", "not acceptable")
    notice = ChecklistItem("c", "Notice", "Q", ("q",), "duration", "at least 60 days")
    assert flag_for(required, result("answered", "cap of fees paid"))[0] == "match"
    assert flag_for(required, result("not_found"))[0] == "missing"
    assert flag_for(banned, result("answered", "yes", "yes"))[0] == "deviation"
    assert flag_for(banned, result("answered", "no", "no"))[0] == "match"
    assert flag_for(notice, result("answered", "thirty (30) days"))[0] == "deviation"
    assert flag_for(notice, result("answered", "90 days"))[0] == "match"
    assert flag_for(ChecklistItem("d", "D", "Q", ("q",), "excerpt"), result("answered", "x")) == (None, "")


def test_the_cuad_checklist_runs_end_to_end_on_the_fake(library: tuple[Library, str], tmp_path: Path) -> None:
    lib, doc_id = library
    engine = FakeEngine(n_ctx=65536, default_reply=reply(False))
    (review,) = review_with_model(lib, engine, [doc_id], load_checklist("cuad"), fresh=True)
    assert len(review.items) == 41 and {i.status for i in review.items} == {"not_found"}
    assert len(engine.calls) == 41  # one unit, one batch of 41


def test_flags_are_highlighted_in_the_docx_memo(library: tuple[Library, str], tmp_path: Path) -> None:
    import docx

    from summarizer.review.memo_docx import FLAG_COLOURS, write_docx

    lib, doc_id = library
    engine = FakeEngine(n_ctx=32768)
    quote = " ".join(lib.page_text(doc_id, 14).split()[5:20])  # in the text: the values are verified
    engine.queue(reply(True, "New York law", quote, [14]), reply(False), reply(True, "one year", quote, [14]))
    reviews = review_with_model(lib, engine, [doc_id], CHECKLIST, fresh=True)
    write_docx(reviews, tmp_path / "memo.docx", model="model.gguf")
    grid = docx.Document(str(tmp_path / "memo.docx")).tables[0]
    cells = [row.cells[1] for row in grid.rows[1:]]
    assert [c.text.split(" [")[-1] for c in cells] == ["match]", "missing]", "deviation]"]
    fills = [c._tc.xpath("./w:tcPr/w:shd/@w:fill") for c in cells]
    assert fills == [[FLAG_COLOURS["match"]], [FLAG_COLOURS["missing"]], [FLAG_COLOURS["deviation"]]]


def test_a_reply_cut_by_nan_scores_is_an_error_for_its_item_only(library: tuple[Library, str]) -> None:
    lib, doc_id = library
    engine = FakeEngine(n_ctx=32768)  # one unit
    page14 = lib.page_text(doc_id, 14)
    quote = " ".join(page14.split()[5:20])
    engine.queue(reply(True, "New York law", quote, [14]), InvalidOutput('{"found": tr'), reply(False))
    (review,) = review_with_model(lib, engine, [doc_id], CHECKLIST, fresh=True)
    law, escrow, term = review.items
    assert law.status == "answered"
    assert escrow.status == "error" and "not numbers (NaN)" in escrow.reason and "pagewise doctor" in escrow.reason
    assert term.status == "not_found"


def test_an_unverified_value_is_marked_in_every_export_instead_of_its_flag(
    library: tuple[Library, str], tmp_path: Path
) -> None:
    """Issue 24: a value whose quote is not in the contract looked verified (a green "match")."""
    import csv
    import io

    import docx

    from summarizer.review.export import to_csv, to_markdown
    from summarizer.review.memo_docx import FLAG_COLOURS, write_docx

    lib, doc_id = library
    engine = FakeEngine(n_ctx=32768)
    invented = "the parties agree on the laws of New York in every respect whatsoever"
    engine.queue(reply(True, "New York law", invented, [14]), reply(False), InvalidOutput('{"found": tr'))
    reviews = review_with_model(lib, engine, [doc_id], CHECKLIST, fresh=True)
    law, escrow, term = reviews[0].items
    assert law.unverified and law.flag == "match"  # the playbook would say match: not shown as such
    assert not escrow.unverified and not term.unverified and term.status == "error"
    assert reviews[0].to_json()["items"][0]["unverified"] is True

    markdown = to_markdown(reviews)
    grid = {line.split(" | ")[0].strip("| "): line for line in markdown.splitlines() if line.startswith("| ")}
    assert "**unverified**" in grid["Governing Law"] and "match" not in grid["Governing Law"]
    assert "**missing**" in grid["Source Code Escrow"] and "not_found" not in markdown
    assert "1 unverified" in markdown and "error: " in markdown  # the error's reason in the details

    rows = {row["item_id"]: row for row in csv.DictReader(io.StringIO(to_csv(reviews)))}
    assert rows["law"]["unverified"] == "yes" and rows["escrow"]["unverified"] == ""
    assert rows["term"]["reason"]  # why it is an error

    write_docx(reviews, tmp_path / "memo.docx", model="model.gguf")
    memo = docx.Document(str(tmp_path / "memo.docx"))
    table = memo.tables[0]
    cell = table.rows[1].cells[1]
    assert cell.text.endswith("[unverified]")
    assert cell._tc.xpath("./w:tcPr/w:shd/@w:fill") == [FLAG_COLOURS["unverified"]]
    assert table.rows[0]._tr.xpath("./w:trPr/w:tblHeader")  # the header row repeats on every page
    text = "\n".join(p.text for p in memo.paragraphs)
    assert "1 unverified" in text and "Governing Law" in text
    assert not re.search(r"\d{4}-\d\d-\d\dT\d\d:\d\d", text)  # a date a reader reads, not ISO 8601


def test_the_progress_counts_the_grid_cells_beside_the_readings(library: tuple[Library, str]) -> None:
    """Issue 24: "Reviewing 3/18" for a 9-cell grid: the readings' total is not the cells'."""
    from inference.progress import Progress

    lib, doc_id = library
    engine = FakeEngine(n_ctx=32768)
    engine.queue(reply(False), reply(False), reply(False))
    seen: list[Progress] = []
    review_with_model(lib, engine, [doc_id], CHECKLIST, seen.append, fresh=True)
    assert "3/3 cells done" in seen[-1].message


def test_the_docx_grid_keeps_rows_and_item_names_whole(library: tuple[Library, str], tmp_path: Path) -> None:
    """Walk 2026-12-05, finding 25: the DOCX grid split rows across pages ("Competitive
    Restriction" / "Exception") and broke words in a narrow item column ("Disparageme-nt")."""
    import docx
    from docx.shared import Pt

    from summarizer.review.memo_docx import GRID_FONT_PT, write_docx

    lib, doc_id = library
    cuad = {item.category: item for item in load_checklist("cuad").items}
    names = ("Non-Disparagement", "Competitive Restriction Exception", "Unlimited/All-You-Can-Eat-License")
    checklist = Checklist("three", "abc", tuple(cuad[name] for name in names))
    engine = FakeEngine(n_ctx=65536, default_reply=reply(False))
    reviews = review_with_model(lib, engine, [doc_id], checklist, fresh=True)
    write_docx(reviews, tmp_path / "memo.docx", model="model.gguf")
    grid = docx.Document(str(tmp_path / "memo.docx")).tables[0]
    assert len(grid.rows) == 4
    assert all(row._tr.xpath("./w:trPr/w:cantSplit") for row in grid.rows)
    # the longest stretch Word cannot break: words, with lines allowed after a hyphen or a slash
    longest = max((word for item in load_checklist("cuad").items for word in re.split(r"[\s/-]+", item.category)),
                  key=len)  # fmt: skip
    # Calibri's letters average about half an em; 0.6 em leaves room, with the cell's 2 x 0.08" margins
    needed = Pt(len(longest) * 0.6 * GRID_FONT_PT + 2 * 0.08 * 72)
    assert all(row.cells[0].width is not None and row.cells[0].width >= needed for row in grid.rows)


def test_not_found_beside_a_passage_that_reads_like_the_clause_names_the_page_to_check(
    library: tuple[Library, str], tmp_path: Path
) -> None:
    """Walk 2026-12-05, finding 9: the model said "not found" for Governing Law while the memo
    quoted the clause ("…GOVERNED BY … THE LAWS OF THE STATE OF TEXAS"), and the grid, the panel
    and the memo said only "missing: not found"."""
    import csv
    import io

    import docx

    from summarizer.review.export import missed_candidate, to_csv, to_markdown
    from summarizer.review.memo_docx import write_docx

    lib, doc_id = library
    engine = FakeEngine(n_ctx=32768, default_reply=reply(False))
    reviews = review_with_model(lib, engine, [doc_id], CHECKLIST, fresh=True)
    law, escrow, _term = reviews[0].items
    assert law.status == "not_found" and escrow.status == "not_found"
    check = "the model found no answer, but the passage on p.\u00a014 reads like this clause: check it"
    assert law.clause_score is not None and missed_candidate(law) == check  # license-17p's §15.1 on p. 14
    assert missed_candidate(escrow) == ""  # no passage reads like a source code escrow: plain "not found"

    markdown = to_markdown(reviews)
    grid = {line.split(" | ")[0].strip("| "): line for line in markdown.splitlines() if line.startswith("| ")}
    assert "not found — check p.\u00a014 **missing**" in grid["Governing Law"]
    assert "check" not in grid["Source Code Escrow"]
    assert f"  - {check} (playbook: missing: not found (expected Delaware or New York))" in markdown
    rows = {row["item_id"]: row for row in csv.DictReader(io.StringIO(to_csv(reviews)))}
    assert rows["law"]["reason"].startswith(check) and rows["escrow"]["reason"] == "required but not found"
    write_docx(reviews, tmp_path / "memo.docx", model="model.gguf")
    memo = docx.Document(str(tmp_path / "memo.docx"))
    assert memo.tables[0].rows[1].cells[1].text == "not found — check p.\u00a014 [missing]"
    assert check in "\n".join(p.text for p in memo.paragraphs)


def test_the_exports_mark_an_unverified_value_in_the_csv_flag_and_cut_quotes_between_words(
    library: tuple[Library, str], tmp_path: Path
) -> None:
    """Walk 2026-12-05, finding 10: the CSV's ``flag`` said "match" for an unverified "90 days",
    and the memo cut its quote mid-word ("…successive five (5) year periods u")."""
    import csv
    import io

    from summarizer.review.export import quote_snippet, to_csv

    lib, doc_id = library
    engine = FakeEngine(n_ctx=32768)
    invented = "the parties agree on the laws of New York in every respect whatsoever"
    engine.queue(reply(True, "New York law", invented, [14]), reply(False), reply(False))
    reviews = review_with_model(lib, engine, [doc_id], CHECKLIST, fresh=True)
    assert reviews[0].items[0].unverified and reviews[0].items[0].flag == "match"
    rows = {row["item_id"]: row for row in csv.DictReader(io.StringIO(to_csv(reviews)))}
    assert rows["law"]["flag"] == "unverified" and "(playbook: match)" in rows["law"]["reason"]
    assert rows["escrow"]["flag"] == "missing"

    clause = "renew for successive five (5) year periods unless either party gives at least one hundred twenty"
    cut = quote_snippet(clause, 48)
    assert cut == "renew for successive five (5) year periods…" and len(cut) <= 48
    assert quote_snippet(clause) == clause  # a clause of usual length is quoted whole

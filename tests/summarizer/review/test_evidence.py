"""Checklists (CSV/YAML, bad files) and the evidence half of a contract review."""

from __future__ import annotations

import csv
import dataclasses
import io
from collections.abc import Iterator
from pathlib import Path

import pytest

from summarizer.errors import DocumentNotFound, LibraryError
from summarizer.library.ingest import ingest_path
from summarizer.library.storage.store import Library
from summarizer.review.absence import MODEL_FILE, AbsenceModel, absence_model
from summarizer.review.checklist import ANSWER_TYPES, ChecklistError, ChecklistItem, load_checklist
from summarizer.review.evidence import DocumentReview, Evidence, headed_by, item_evidence, review_evidence
from summarizer.review.export import to_csv, to_markdown
from tests.conftest import CONTRACTS

ROOT = Path(__file__).resolve().parents[3]
HEADER = "id,category,question,queries,type,expected\n"


def test_the_bundled_cuad_checklist_has_the_41_categories() -> None:
    checklist = load_checklist("cuad")
    assert len(checklist.items) == 41
    with (ROOT / "tests" / "fixtures" / "cuad_categories.csv").open(encoding="utf-8-sig", newline="") as f:
        names = [row[0].removeprefix("Category: ") for row in list(csv.reader(f))[1:] if row]
    assert [item.category for item in checklist.items] == names
    assert all(item.queries and item.type in ANSWER_TYPES for item in checklist.items)
    assert len({item.id for item in checklist.items}) == 41
    assert len(checklist.version) == 12


def test_the_documented_example_loads() -> None:
    checklist = load_checklist(ROOT / "docs" / "examples" / "my-checklist.csv")
    assert checklist.item("law").expected == "Delaware or New York"
    assert checklist.item("cap").queries == ("in no event shall liability exceed", "limitation of liability")


def test_yaml_checklist(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(
        "items:\n  - id: law\n    category: Governing Law\n    question: Which law?\n"
        "    queries: [governed by the laws of, governing law]\n    type: jurisdiction\n"
    )
    (item,) = load_checklist(path).items
    assert item.queries == ("governed by the laws of", "governing law")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("id,category,question,type\nx,X,Q?,yes_no\n", "line 1: the header lacks the column queries"),
        (HEADER + "a,A,Q?,q,yes_no,\na,B,Q?,q,date,\n", "line 3: the id 'a' is used twice (first on line 2)"),
        (HEADER + "a,A,Q?,q,colour,\n", "line 2: unknown answer type 'colour'"),
        (HEADER + "a,A,,q,yes_no,\n", "line 2: the 'question' field is empty"),
        (HEADER, "the checklist has no items"),
    ],
)
def test_bad_checklists_name_the_file_and_line(tmp_path: Path, text: str, expected: str) -> None:
    path = tmp_path / "bad.csv"
    path.write_text(text)
    with pytest.raises(ChecklistError) as caught:
        load_checklist(path)
    assert str(path) in str(caught.value)
    assert expected in str(caught.value)


def test_a_missing_checklist_file(tmp_path: Path) -> None:
    with pytest.raises(ChecklistError, match="cannot read the checklist"):
        load_checklist(tmp_path / "nope.csv")


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Library, str]]:
    with Library.open(tmp_path_factory.mktemp("lib") / "library.sqlite") as lib:
        yield lib, ingest_path(lib, CONTRACTS / "license-17p.pdf").doc_id


def test_evidence_finds_the_governing_law_clause(library: tuple[Library, str], tmp_path: Path) -> None:
    lib, doc_id = library
    path = tmp_path / "three.csv"
    path.write_text(
        HEADER
        + "law,Governing Law,Which law governs?,governed by the laws of | governing law,jurisdiction,\n"
        + "assign,Anti-Assignment,Can it be assigned?,assign this agreement | prior written consent,yes_no,\n"
        + "escrow,Source Code Escrow,Is source code in escrow?,source code escrow,yes_no,\n"
    )
    seen: list[int] = []
    (review,) = review_evidence(lib, [doc_id], load_checklist(path), progress=lambda p: seen.append(p.done))
    assert seen == [1, 2, 3]
    law = review.items[0]
    assert law.status == "evidence" and 1 <= len(law.evidence) <= 10
    assert "Governing Law" in " ".join(law.evidence[0].text.split())
    assert "Republic of China" in " ".join(law.evidence[0].text.split())
    assert law.passages_read >= len(law.evidence)
    # Evidence is real passage text on the pages it names.
    page_text = lib.page_text(doc_id, law.evidence[0].page_start)
    assert law.evidence[0].text.split("\n")[0][:40] in page_text
    data = review.to_json()
    assert set(data["items"][0]) >= {"item_id", "category", "status", "evidence", "passages_read", "flag", "citations"}
    rows = list(csv.DictReader(io.StringIO(to_csv([review]))))
    assert [r["item_id"] for r in rows] == ["law", "assign", "escrow"]
    markdown = to_markdown([review])
    assert "CONFIDENTIAL" in markdown and "Machine-generated" in markdown and "| Governing Law |" in markdown


def test_unknown_or_unfinished_documents_are_refused(library: tuple[Library, str]) -> None:
    lib, doc_id = library
    with pytest.raises(DocumentNotFound):
        review_evidence(lib, ["nope"], load_checklist("cuad"))
    lib.db.execute("UPDATE documents SET state = 'embedding' WHERE doc_id = ?", [doc_id])
    try:
        with pytest.raises(LibraryError, match="still being added"):
            review_evidence(lib, [doc_id], load_checklist("cuad"))
    finally:
        lib.db.execute("UPDATE documents SET state = 'ready' WHERE doc_id = ?", [doc_id])


def test_headed_by_needs_every_word_of_the_category_in_the_heading(library: tuple[Library, str]) -> None:
    lib, doc_id = library
    ids = [int(r[0]) for r in lib.db.execute("SELECT passage_id FROM passages WHERE doc_id = ?", [doc_id])]
    heading = dict(lib.db.execute("SELECT passage_id, heading FROM passages WHERE doc_id = ?", [doc_id]).fetchall())
    (law,) = headed_by(lib, "Governing Law", ids)
    assert heading[law].endswith("10.11 Governing Law")
    # "Grant of Licenses" holds both words of "License Grant", stemmed.
    grant = headed_by(lib, "License Grant", ids)
    assert len(grant) >= 2 and all(heading[p].startswith("ARTICLE II GRANT OF LICENSE") for p in grant)
    assert headed_by(lib, "Anti-Assignment", ids) == []  # "anti" is in no heading
    assert headed_by(lib, "Rofr/Rofo/Rofn", ids) == []
    assert headed_by(lib, "Governing Law", [p for p in ids if p != law]) == []


def test_a_passage_headed_by_the_category_ranks_higher(
    library: tuple[Library, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import summarizer.review.evidence as evidence

    monkeypatch.setattr(evidence, "RERANK_TOP", 0)  # the boost acts on the fused order, before the ranker
    lib, doc_id = library
    query = "notices"  # the question, searched once more: the same ranking
    plain, _ = item_evidence(lib, doc_id, ChecklistItem("x", "Other Matters", query, (query,), "excerpt"))
    named, _ = item_evidence(lib, doc_id, ChecklistItem("x", "Governing Law", query, (query,), "excerpt"))
    assert plain[0].heading.endswith("Notices") and named[0].heading.endswith("Notices")
    assert not any(e.heading.endswith("Governing Law") for e in plain[:3])
    assert any(e.heading.endswith("Governing Law") for e in named[:3])
    assert {e.passage_id for e in named} == {e.passage_id for e in plain}  # reordered, nothing new


def test_a_clause_the_ranker_finds_nowhere_is_probably_absent(library: tuple[Library, str], tmp_path: Path) -> None:
    lib, doc_id = library
    rows = (ROOT / "summarizer" / "review" / "checklists" / "cuad.csv").read_text().splitlines()
    wanted = [r for r in rows[1:] if r.split(",")[1] in ("Governing Law", "Source Code Escrow")]
    path = tmp_path / "two.csv"
    path.write_text("\n".join([rows[0], *wanted]) + "\n")
    (review,) = review_evidence(lib, [doc_id], load_checklist(path))
    law, escrow = review.items
    model = absence_model()
    assert law.status == "evidence" and law.clause_score is not None
    assert not model.is_absent(law.clause_score, law.category)
    # license-17p has no escrow clause (lab/eval/labels): said so, with the best candidate still there.
    assert escrow.status == "absent" and escrow.clause_score is not None
    assert model.is_absent(escrow.clause_score, escrow.category)
    assert escrow.reason.startswith("probably absent: ") and "%" not in escrow.reason
    assert escrow.evidence and escrow.to_json()["status"] == "absent"
    assert "probably absent — closest: p" in to_markdown([review])
    cells = {r["item_id"]: r for r in csv.DictReader(io.StringIO(to_csv([review])))}
    assert cells[escrow.item_id]["status"] == "absent" and "probably absent" in cells[escrow.item_id]["reason"]
    assert cells[escrow.item_id]["pages"]  # the best candidate, one click away in the window


def test_how_common_a_clause_is_moves_the_absent_call() -> None:
    """The same best score says "absent" for a rare clause and "evidence" for a common one; a
    category CUAD lacks is judged by the score alone."""
    model = absence_model()
    assert model.presence["governing law"] > 0.8 and model.presence["most favored nation"] < 0.1
    assert model.score_weight < 0 and model.share_weight < 0  # a higher score, a commoner clause: less absent
    rare = model.probability(-1.0, "Most Favored Nation")
    common = model.probability(-1.0, "Governing Law")
    assert rare is not None and common is not None and rare > model.threshold > common
    assert model.is_absent(-1.0, " most favored NATION ") and not model.is_absent(-1.0, "Governing Law")
    assert model.probability(0.0, "Data Protection") is None
    assert model.is_absent(model.score_only_below - 0.1, "Data Protection")
    assert not model.is_absent(model.score_only_below + 0.1, "Data Protection")
    assert not model.is_absent(None, "Most Favored Nation")  # no ranker: nothing said
    # a category without a share says why by the passages alone; one with a share says it weighed it
    assert "how often" not in model.reason(model.score_only_below - 1, "Data Protection")
    assert "how often contracts have one" in model.reason(-1.0, "Most Favored Nation")


def test_the_shipped_absence_model_covers_every_bundled_category() -> None:
    checklist = load_checklist("cuad")
    model = absence_model()
    assert MODEL_FILE.is_file()
    assert all(0.0 < model.presence[item.category.lower()] < 1.0 for item in checklist.items)
    assert 0.5 < model.threshold < 1.0
    assert isinstance(model, AbsenceModel)


def test_evidence_leaves_out_the_running_footers_and_page_numbers_inside_a_passage(
    library: tuple[Library, str],
) -> None:
    """Walk 2026-12-05, finding 10: the exports quoted "Products shall be 5 Source: WATER NOW, INC.,
    10-Q, 11/20/2019 delivered…": a contract's passages keep the page furniture they run across."""
    from summarizer.library.storage.queries import passages_by_id
    from summarizer.review.checklist import Checklist

    lib, doc_id = library
    items = tuple(load_checklist("cuad").items[:12])
    (review,) = review_evidence(lib, [doc_id], Checklist("twelve", "v", items))
    evidence = [e for item in review.items for e in item.evidence]
    stored = passages_by_id(lib, [e.passage_id for e in evidence])
    with_footer = [e for e in evidence if "Source: LEJU" in stored[e.passage_id].text]
    assert with_footer  # passages the review quotes that run across a page's footer
    for e in evidence:
        flat, whole = " ".join(e.text.split()), " ".join(stored[e.passage_id].text.split())
        assert "Source: LEJU" not in flat
        assert flat and set(flat.split()) <= set(whole.split())  # the passage's own words, nothing added


def test_the_evidence_review_reports_a_rate_so_its_progress_has_a_time_left(library: tuple[Library, str]) -> None:
    """Walk 2026-12-05, finding 11: "Finding the clauses 95/164 … 5 min 28 s so far", never a time
    left: the evidence review's progress carried no rate."""
    from inference.progress import Progress
    from summarizer.review.checklist import Checklist

    lib, doc_id = library
    items = tuple(load_checklist("cuad").items[:10])
    seen: list[Progress] = []
    review_evidence(lib, [doc_id], Checklist("ten", "v", items), progress=seen.append)
    assert [p.done for p in seen] == list(range(1, 11)) and {p.total for p in seen} == {10}
    assert all(p.rate is not None and p.rate > 0 for p in seen)
    assert seen[4].eta_seconds() is not None  # half done: the line says how long the rest takes


def test_evidence_in_a_word_document_names_its_clause_and_the_export_shows_it(tmp_path: Path) -> None:
    from summarizer.library.ingest import IngestOptions
    from summarizer.review.evidence import ItemResult
    from tests.docx_factory import para, write_heading_clauses_docx

    body = para("General", style="Heading1")
    body += para("Notices. Notices are given in writing to the addresses on the cover page.", num=(1, 1))
    body += para("Governing Law. This Agreement is governed by the laws of the State of New York.", num=(1, 1))
    path = write_heading_clauses_docx(tmp_path / "terms.docx", body)
    with Library.open() as lib:
        doc_id = ingest_path(lib, path, IngestOptions(max_tokens=40)).doc_id
        query = "governed by the laws of the State"
        found, _ = item_evidence(lib, doc_id, ChecklistItem("x", "Governing Law", query, (query,), "excerpt"))
    law = next(e for e in found if "New York" in e.text)
    assert law.locator.startswith("§ 1.") and "¶" in law.locator
    assert law.to_json()["locator"] == law.locator
    item = ItemResult("x", "Governing Law", query, "excerpt", "evidence", [law], 1)
    from summarizer.review.export import page_label

    assert page_label(item) == law.locator


def test_word_evidence_names_highlights_and_quotes_the_clause_that_matched_not_the_first(tmp_path: Path) -> None:
    # Issue 56, item 1: a passage holding 1.1 to 1.3 was named "§ 1.1 Notices" for Governing Law.
    from summarizer.library.ingest import IngestOptions
    from summarizer.review.evidence import ItemResult
    from summarizer.review.export import page_label
    from tests.docx_factory import para, write_heading_clauses_docx

    body = para("General", style="Heading1")
    body += para("Notices. Notices are given in writing to the addresses on the cover page.", num=(1, 1))
    body += para("Governing Law. This Agreement is governed by the laws of the State of New York.", num=(1, 1))
    body += para("Counterparts. This Agreement may be signed in counterparts.", num=(1, 1))
    path = write_heading_clauses_docx(tmp_path / "terms.docx", body)
    with Library.open() as lib:
        doc_id = ingest_path(lib, path, IngestOptions(max_tokens=400)).doc_id
        query = "Which state's laws govern the agreement?"
        found, _ = item_evidence(lib, doc_id, ChecklistItem("x", "Governing Law", query, ("governing law",), "excerpt"))
        review = DocumentReview.of(lib.document(doc_id), load_checklist("cuad"), [])
    best = found[0]
    assert best.page_start < best.match_first == best.match_last == 3 <= best.page_end  # one passage, three clauses
    assert best.locator == "§ 1.2 Governing Law, ¶ 3"
    assert best.quote == "1.2 Governing Law. This Agreement is governed by the laws of the State of New York."
    item = ItemResult("x", "Governing Law", query, "excerpt", "evidence", [best], 1)
    assert page_label(item) == "§ 1.2 Governing Law, ¶ 3"
    markdown = to_markdown([dataclasses.replace(review, items=(item,))])
    assert "New York" in markdown and "Notices are given" not in markdown
    assert Evidence(**best.to_json()) == best  # stored and read back whole

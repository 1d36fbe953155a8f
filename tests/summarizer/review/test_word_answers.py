"""A Word contract reviewed with a model: its paragraphs are read each after its own label, and
the answer is named by the clause of the paragraph that holds its quote, not by the best search
evidence's paragraphs or the passage's first clause (issue 56, item 1). A PDF's prompt is today's
byte for byte, and its stored results stay; a Word contract's stored under the old prompt are asked
again."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

import docx
import openpyxl
import pytest

from inference.engines.engine import render_plain
from inference.engines.fake import FakeEngine
from summarizer.library.ingest import IngestOptions, ingest_path
from summarizer.library.storage.document_text import read_pages
from summarizer.library.storage.store import Library
from summarizer.library.word_parts import file_types
from summarizer.review.checklist import Checklist, ChecklistItem, load_checklist
from summarizer.review.evidence import Evidence, ItemResult, review_evidence
from summarizer.review.export import page_label, to_csv, to_markdown
from summarizer.review.export_xlsx import write_xlsx
from summarizer.review.item_answers import (
    PDF_PROMPT_VERSION,
    PROMPT_MARGIN,
    PROMPT_VERSION,
    REPLY_TOKENS,
    WORD_SYSTEM,
    prepare_run,
    reading_messages,
    reading_units,
    review_with_model,
    shown_review,
    stored_review,
)
from summarizer.review.memo_docx import write_docx as write_memo
from summarizer.review.room_review import RoomStored, stored_room
from summarizer.review.store import record_correction, review_key, store_result
from summarizer.review.word_answers import name_by_quote, quoted_paragraphs
from tests.conftest import CONTRACTS
from tests.docx_factory import para, write_heading_clauses_docx

LAW = ChecklistItem("law", "Governing Law", "Which law governs the agreement?", ("governed by the laws of",),
                    "jurisdiction", "Delaware")  # fmt: skip
CHECKLIST = Checklist("law-only", "1", (LAW,))
GOVERNING = "This Agreement is governed by the laws of the State of Delaware."


@pytest.fixture
def library() -> Iterator[Library]:
    with Library.open() as lib:
        yield lib


def services_docx(tmp_path: Path) -> Path:
    """Article 1 (¶ 1) with three short clauses, 1.1 to 1.3 (¶ 2–4), one passage. The item's
    query words are spread over 1.1 ("law") and 1.3 ("governed", "laws": its heading does not say
    "law"), so its best search evidence is named by the range 1.1–1.3; the answer's words are 1.3's."""
    body = (
        para("General", style="Heading1")
        + para("Compliance. Each party complies with applicable law in its performance.", num=(1, 1))
        + para("Notices. Notices are given in writing to the addresses above.", num=(1, 1))
        + para(f"Jurisdiction. {GOVERNING}", num=(1, 1))
    )
    return write_heading_clauses_docx(tmp_path / "services.docx", body)


def services_agreement(library: Library, tmp_path: Path) -> str:
    return ingest_path(library, services_docx(tmp_path), IngestOptions(embed=False)).doc_id


def labelled_reader(prompt: str) -> str:
    """A model reading the labelled paragraphs: it quotes the sentence that says which law governs
    and cites the label of the paragraph it read it in."""
    for number, text in re.findall(r"^\[¶ (\d+)\] (.*)$", prompt, re.M):
        if "governed by the laws" in text:
            return json.dumps({"found": True, "answer": "Delaware", "quote": GOVERNING, "pages": [int(number)]})
    return json.dumps({"found": False, "answer": "", "quote": "", "pages": []})


class LabelledReader(FakeEngine):
    """The fake engine, each reply made by ``labelled_reader`` from the prompt it was given."""

    def _next_reply(self) -> str:
        return labelled_reader(render_plain(self.calls[-1].prompt))


def test_a_word_contract_is_read_with_each_paragraph_after_its_label(library: Library, tmp_path: Path) -> None:
    doc_id = services_agreement(library, tmp_path)
    (unit,) = reading_units(read_pages(library, doc_id), FakeEngine(), 2000, word=True)
    assert unit.pages == (1, 2, 3, 4)
    assert unit.text.startswith("[¶ 1] 1. General\n[¶ 2] 1.1 Compliance. Each party complies")
    assert f"\n[¶ 4] 1.3 Jurisdiction. {GOVERNING}" in unit.text and "[Page" not in unit.text
    system, user = reading_messages(unit, LAW)
    assert system.content == WORD_SYSTEM and "paragraphs [¶ N]" in system.content
    assert user.content.startswith("[¶ 1] 1. General") and user.content.endswith(
        "\nQuestion: " + LAW.question + " (answer with the state or country)"
    )


def test_a_pdf_contract_is_read_with_todays_prompt_byte_for_byte(library: Library) -> None:
    """The digest of every reading prompt of license-17p for three CUAD items, taken with the
    prompt before the Word labels (commit 90e51ad)."""
    doc_id = ingest_path(library, CONTRACTS / "license-17p.pdf", IngestOptions(embed=False)).doc_id
    engine = FakeEngine(n_ctx=4096)
    units = reading_units(read_pages(library, doc_id), engine, 4096 - REPLY_TOKENS - PROMPT_MARGIN)
    messages = [[m.to_json() for m in reading_messages(u, i)] for u in units for i in load_checklist("cuad").items[:3]]
    assert len(units) == 3 and PDF_PROMPT_VERSION == 1
    digest = hashlib.sha256(json.dumps(messages).encode()).hexdigest()
    assert digest == "ec50a40706a61745b44fe7d99665ef999de02f033d5852a05d49ff4895dbaa0e"


def test_the_answer_is_named_by_the_clause_of_its_quote(library: Library, tmp_path: Path) -> None:
    doc_id = services_agreement(library, tmp_path)
    (searched,) = review_evidence(library, [doc_id], CHECKLIST)
    assert searched.items[0].evidence[0].locator.startswith("§§ 1.1–1.3")  # the query's words, spread
    engine = LabelledReader()
    (review,) = review_with_model(library, engine, [doc_id], CHECKLIST, model="m")
    (law,) = review.items
    assert law.status == "answered" and law.quote == GOVERNING and law.citations[0]["page"] == 4
    best = law.evidence[0]
    assert best.locator == "§ 1.3 Jurisdiction, ¶ 4" and (best.match_first, best.match_last) == (4, 4)
    assert page_label(law) == "§ 1.3 Jurisdiction, ¶ 4"
    assert "Delaware (§ 1.3 Jurisdiction, ¶ 4)" in to_markdown([review])
    assert "§ 1.3 Jurisdiction, ¶ 4" in to_csv([review])
    write_xlsx([review], tmp_path / "review.xlsx", model="m")
    cells = [c.value for sheet in openpyxl.load_workbook(tmp_path / "review.xlsx") for row in sheet for c in row]
    assert any(isinstance(v, str) and "§ 1.3 Jurisdiction, ¶ 4" in v for v in cells)
    write_memo([review], tmp_path / "review.docx", model="m")
    memo = "\n".join(p.text for p in docx.Document(str(tmp_path / "review.docx")).paragraphs)
    assert f"“{GOVERNING}” (§ 1.3 Jurisdiction, ¶ 4)" in memo
    again = stored_review(library, doc_id, CHECKLIST)  # as the window and the exports read it back
    assert again is not None and again.items[0].cached
    assert again.items[0].evidence[0].locator == "§ 1.3 Jurisdiction, ¶ 4"
    assert len({e.passage_id for e in again.items[0].evidence}) == len(again.items[0].evidence)


def test_the_paragraphs_of_a_quote() -> None:
    pages = {
        1: "1. General",
        2: "Notice is given in writing.",
        3: "Payment is due in thirty days.",
        4: "Notice is given in writing.",
    }
    assert quoted_paragraphs(pages, "payment is DUE in  thirty days") == (3, 3)
    assert quoted_paragraphs(pages, "Notice is given in writing.") == (2, 2)  # the first place
    assert quoted_paragraphs(pages, "Notice is given in writing.", cited=[4]) == (4, 4)  # the place cited
    assert quoted_paragraphs(pages, "in writing. [¶ 3] Payment is due") == (2, 3)  # as read, across a label
    assert quoted_paragraphs(pages, "in writing. Payment") is None
    assert quoted_paragraphs(pages, " ") is None


def test_results_stored_under_the_old_prompt_are_asked_again_for_word_and_kept_for_pdf(
    library: Library, tmp_path: Path
) -> None:
    """A library reviewed before the Word labels (prompt version 1): the Word contract's results are
    not shown as the new prompt's, its items are asked again and the reviewer's correction stays; the
    PDF's results are read back without a model call."""
    word_id = services_agreement(library, tmp_path)
    pdf_id = ingest_path(library, CONTRACTS / "license-17p.pdf", IngestOptions(embed=False)).doc_id
    assert PROMPT_VERSION == 2
    (old_word, old_pdf) = review_evidence(library, [word_id, pdf_id], CHECKLIST)
    for doc_id, review in ((word_id, old_word), (pdf_id, old_pdf)):
        old = review.items[0]
        old.status, old.answer, old.value, old.quote = "answered", "Delaware", "Delaware", GOVERNING
        store_result(library, review_key(library, doc_id, CHECKLIST, "m", 1), old)
    record_correction(library, word_id, CHECKLIST, "law", note="checked")
    assert stored_review(library, word_id, CHECKLIST) is None  # not the new prompt's
    assert shown_review(library, word_id, CHECKLIST) is None  # nothing else stored: the grid says "not reviewed"
    pdf = stored_review(library, pdf_id, CHECKLIST)
    assert pdf is not None and pdf.items[0].cached and pdf.items[0].value == "Delaware"
    assert stored_room(library, [word_id, pdf_id], CHECKLIST, "m") == RoomStored(1, 0, 1)  # the Word: untouched

    engine = LabelledReader()
    word, pdf_again = review_with_model(library, engine, [word_id, pdf_id], CHECKLIST, model="m")
    assert len(engine.calls) == 1  # the Word contract's one unit; the PDF's stored answer is reused
    assert not word.items[0].cached and word.items[0].evidence[0].locator == "§ 1.3 Jurisdiction, ¶ 4"
    assert word.items[0].correction is not None and word.items[0].correction.note == "checked"
    assert pdf_again.items[0].cached
    assert stored_room(library, [word_id, pdf_id], CHECKLIST, "m") == RoomStored(2, 0, 0)


def test_a_run_asks_the_library_a_documents_file_type_once(
    library: Library, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``prepare_run`` needs the file type twice (the prompt version of the stored results' key and
    the reading units' labels): one library query gives both."""
    word_id = services_agreement(library, tmp_path)
    pdf_id = ingest_path(library, CONTRACTS / "license-17p.pdf", IngestOptions(embed=False)).doc_id
    asked: list[list[str]] = []

    def counted_file_types(lib: Library, doc_ids: Iterable[str]) -> dict[str, str]:
        asked.append(list(doc_ids))
        return file_types(lib, doc_ids)

    monkeypatch.setattr("summarizer.review.item_answers.file_types", counted_file_types)
    for doc_id, version, word in ((word_id, PROMPT_VERSION, True), (pdf_id, PDF_PROMPT_VERSION, False)):
        asked.clear()
        run = prepare_run(library, FakeEngine(n_ctx=4096), doc_id, CHECKLIST, "m", 2000, fresh=False)
        assert asked == [[doc_id]]
        assert run.key.prompt_version == version and run.units and all(u.word == word for u in run.units)


def test_a_quote_outside_the_search_evidence_brings_its_passage_first(library: Library, tmp_path: Path) -> None:
    doc_id = services_agreement(library, tmp_path)
    elsewhere = Evidence(10_000, 1, 1, "General")  # the search kept another passage only
    result = ItemResult("law", "Governing Law", LAW.question, "jurisdiction", "answered", [elsewhere])
    result.quote, result.citations = GOVERNING, [{"page": 4, "passage_id": None, "valid": True}]
    name_by_quote(library, doc_id, result, read_pages(library, doc_id))
    (best,) = result.evidence  # as many as the search kept
    assert best.passage_id != elsewhere.passage_id and best.locator == "§ 1.3 Jurisdiction, ¶ 4"
    result.quote = ""  # unverified: the search evidence stays
    result.evidence = [elsewhere]
    name_by_quote(library, doc_id, result, read_pages(library, doc_id))
    assert result.evidence == [elsewhere]

"""A Word passage given to the model for an answer shows each paragraph with its label, so the
model can cite the paragraph that holds a fact, and that citation is named, linked and highlighted
as that paragraph, not as the passage's first clause (issue 56, item 1)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.services import answering
from inference.engines.engine import ChatMessage
from inference.engines.fake import FakeEngine
from summarizer.answers.answer import AnswerOptions, answer_question
from summarizer.library.ingest import IngestOptions, ingest_path
from summarizer.library.storage.store import Library
from tests.docx_factory import para, write_heading_clauses_docx
from tests.summarizer.doc_factory import add_document

PASSAGES = AnswerOptions(whole_document=False, use_vectors=False, answer_tokens=200)
QUESTION = "When can a breach be cured?"


@pytest.fixture
def library() -> Iterator[Library]:
    with Library.open() as lib:
        yield lib


def _services_agreement(library: Library, tmp_path: Path) -> str:
    """Article 1 (¶ 1) with three short clauses, 1.1 to 1.3 (¶ 2–4): one passage."""
    body = (
        para("Payment", style="Heading1")
        + para("Invoices. Provider invoices Customer monthly.", num=(1, 1))
        + para("Taxes. Customer pays all sales taxes.", num=(1, 1))
        + para("Cure. A party may cure a breach within thirty days of notice.", num=(1, 1))
    )
    path = write_heading_clauses_docx(tmp_path / "services.docx", body)
    return ingest_path(library, path, IngestOptions(embed=False)).doc_id


def _user_message(engine: FakeEngine) -> str:
    prompt = engine.prompts[-1]
    assert not isinstance(prompt, str)
    last: ChatMessage = list(prompt)[-1]
    return last.content


def test_each_paragraph_of_a_word_passage_is_labelled_in_the_prompt(library: Library, tmp_path: Path) -> None:
    doc_id = _services_agreement(library, tmp_path)
    engine = FakeEngine(default_reply="Thirty days [¶ 4].")
    stream = answer_question(library, engine, QUESTION, model_sha256="m", doc_ids=[doc_id], options=PASSAGES)
    stream.run()
    assert stream.passages and (stream.passages[0].page_start, stream.passages[0].page_end) == (1, 4)
    user = _user_message(engine)
    assert "[¶ 1] 1. Payment\n[¶ 2] 1.1 Invoices." in user
    assert "\n[¶ 3] 1.2 Taxes. Customer pays all sales taxes.\n[¶ 4] 1.3 Cure. A party may cure" in user


@pytest.mark.parametrize("cited", ["[¶ 4]", "[§ 1.1, ¶ 4]", "[§ 1.3]"])
def test_a_paragraph_cited_inside_a_passage_is_named_and_highlighted_as_that_paragraph(
    library: Library, tmp_path: Path, cited: str
) -> None:
    """Whether the model writes the paragraph's label alone, with the clause of the passage's header
    or as the paragraph's clause, the citation names § 1.3 and ¶ 4, and its words are ¶ 4's."""
    doc_id = _services_agreement(library, tmp_path)
    engine = FakeEngine(default_reply=f"Thirty days {cited}.")
    stream = answer_question(library, engine, QUESTION, model_sha256="m", doc_ids=[doc_id], options=PASSAGES)
    turn = answering.streamed_answer(library, doc_id, QUESTION, stream)
    (citation,) = turn.citations
    assert citation.valid and citation.page == 4 and citation.label == "§ 1.3, ¶ 4"
    start, end = next((s, e) for page, s, e in citation.spans if page == 4)
    assert library.page_text(doc_id, 4)[start:end].startswith("1.3 Cure. A party may cure a breach")
    assert "- [1] § 1.3, ¶ 4: " in answering.to_markdown("Services", [turn], word=True)


def test_a_pdf_passage_is_given_as_before(library: Library) -> None:
    doc_id = add_document(library, ["Payment. Provider invoices monthly. A party may cure a breach in thirty days."])
    engine = FakeEngine(default_reply="Thirty days [p. 1].")
    answer_question(library, engine, QUESTION, model_sha256="m", doc_ids=[doc_id], options=PASSAGES).run()
    user = _user_message(engine)
    assert "Passage 1 (p. 1):\nPayment. Provider invoices monthly." in user and "¶" not in user

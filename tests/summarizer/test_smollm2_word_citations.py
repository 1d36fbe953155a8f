"""SmolLM2-135M on the CPU asked about a Word contract: the prompt asks for paragraph citations
("[¶ 12]"), and whatever the small model writes (¶, §, or pages) is parsed and checked against
the paragraphs given. Invariants only, as in test_smollm2_end_to_end.py: a 135M model rarely
cites well."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from summarizer.answers.answer import AnswerOptions, answer_question
from summarizer.library.ingest import IngestOptions, ingest_path
from summarizer.library.storage.store import Library
from summarizer.llm.local_model import open_local_model
from tests.docx_factory import para, write_heading_clauses_docx

pytestmark = pytest.mark.slow

MARKER = re.compile(r"[\[(]\s*(?:[\w-]+\s+)?(?:pp?\.?|pages?|¶¶?|paras?\.?|paragraphs?|§§?|sections?)\s*\d", re.I)


def test_smollm2_word_citations_are_checked_against_the_paragraphs_given(tmp_path: Path, smollm2_path: Path) -> None:
    body = para("Fees", style="Heading1")
    body += para("Invoices. The Customer pays each invoice within thirty days of receipt.", num=(1, 1))
    body += para("Late Payment. Unpaid amounts bear interest of one percent per month.", num=(1, 1))
    body += para("Term", style="Heading1")
    body += para("Renewal. This Agreement renews each year unless either party gives notice.", num=(1, 1))
    path = write_heading_clauses_docx(tmp_path / "supply.docx", body)
    with Library.open(tmp_path / "library.sqlite") as library:
        doc_id = ingest_path(library, path, IngestOptions(embed=False)).doc_id
        # One thread: on a shared 2-core machine, two llama.cpp threads spin on each other.
        with open_local_model(library, smollm2_path, n_ctx=2048, n_threads=1) as model:
            stream = answer_question(
                library,
                model.engine,
                "When must the Customer pay an invoice?",
                model_sha256=model.sha256,
                doc_ids=[doc_id],
                options=AnswerOptions(use_vectors=False, answer_tokens=48),
            )
            list(stream)
            answer = stream.answer
    assert answer.mode == "whole-document" and answer.text
    assert len({c.answer_start for c in answer.citations}) == len(MARKER.findall(answer.text))
    for citation in answer.citations:  # every paragraph with text was given: valid exactly when it exists
        assert citation.valid == (1 <= citation.page <= 5), citation

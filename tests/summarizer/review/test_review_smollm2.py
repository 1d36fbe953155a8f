"""A contract review with SmolLM2-135M on the CPU: the invariants, not the quality.

Three items over a real 8-page contract, read in context-sized units: every item ends answered,
not found, or as an isolated error; every value parses; no citation marked valid lies outside
the pages read; the JSON of every reply follows the schema (constrained decoding).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from summarizer.library.ingest import ingest_path
from summarizer.library.storage.store import Library
from summarizer.llm.local_model import open_local_model
from summarizer.review.checklist import load_checklist
from summarizer.review.item_answers import review_with_model
from tests.conftest import CONTRACTS

pytestmark = pytest.mark.slow

CHECKLIST = (
    "id,category,question,queries,type,expected\n"
    "law,Governing Law,Which law governs the agreement?,governed by the laws of,jurisdiction,California\n"
    "term,Expiration Date,When does the agreement end?,term of this agreement,date,\n"
    "assign,Anti-Assignment,Can the agreement be assigned without consent?,assign this agreement,yes_no,required\n"
)


def test_review_with_smollm2(tmp_path: Path, smollm2_path: Path) -> None:
    checklist_file = tmp_path / "three.csv"
    checklist_file.write_text(CHECKLIST)
    with Library.open(tmp_path / "library.sqlite") as library:
        doc = ingest_path(library, CONTRACTS / "endorsement-8p.pdf")
        with open_local_model(library, smollm2_path, n_ctx=2048, n_threads=2, max_parallel=3) as model:
            (review,) = review_with_model(library, model.engine, [doc.doc_id], load_checklist(checklist_file))
    assert [i.item_id for i in review.items] == ["law", "term", "assign"]
    for item in review.items:
        assert item.status in ("answered", "not_found", "error")
        assert item.evidence  # retrieval evidence is there whatever the model said
        assert item.passages_read >= 1
        for citation in item.citations:
            if citation["valid"]:
                assert 1 <= citation["page"] <= doc.pages
        if item.status == "not_found":
            assert item.passages_read >= 2  # the whole contract was read (8 pages do not fit 2K tokens)
        if item.status == "error":
            assert item.reason  # an isolated error says why (a 135M model sometimes loops in a quote
            # until max_tokens cuts its JSON; which item does depends on float rounding, which
            # depends on how the prompts shared the batch: measured 1 or 2 of these 3)
    assert sum(i.status == "error" for i in review.items) < len(review.items)

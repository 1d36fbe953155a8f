"""A library-wide question for the window: the contracts found with their best passage, and the
model's answer whose citations name their contract."""

from __future__ import annotations

from pathlib import Path

from app.services.library_question import answer_across, find_contracts
from inference.engines.fake import FakeEngine
from summarizer.library.storage.store import Library
from tests.summarizer.doc_factory import add_document

COC = "Change of control. Upon a change of control of the Supplier the Customer may terminate this Agreement."
FILLER = "Notices. All notices shall be in writing and delivered to the addresses above by courier."


def test_the_contracts_found_and_an_answer_naming_them(tmp_path: Path) -> None:
    with Library.open(tmp_path / "library.sqlite") as lib:
        acme = add_document(lib, [FILLER, COC], title="Acme Supply")
        beta = add_document(lib, [COC, FILLER], title="Beta License")
        add_document(lib, [FILLER, "Payment. Invoices are due in thirty days."], title="Gamma Lease")
        contracts = find_contracts(lib, "change of control")
        assert {hit.title for hit in contracts[:2]} == {"Acme Supply", "Beta License"}
        acme_hit = next(hit for hit in contracts if hit.doc_id == acme)
        assert (acme_hit.best.page, acme_hit.best.valid, acme_hit.best.where) == (2, True, "p.\u00a02")
        assert acme_hit.best.spans  # opens at the passage, highlighted

        engine = FakeEngine(default_reply=f"Both: Acme [{acme} p. 2] and Beta [{beta} p. 1].", n_ctx=8192)
        answer = answer_across(engine, lib, "Which contracts have a change-of-control clause?", contracts)
    assert [(c.doc_id, c.page, c.valid) for c in answer.citations] == [(acme, 2, True), (beta, 1, True)]
    assert [c.label for c in answer.citations] == ["Acme Supply, p. 2", "Beta License, p. 1"]
    assert {s.label.split(",")[0] for s in answer.sources} <= {"Acme Supply", "Beta License", "Gamma Lease"}

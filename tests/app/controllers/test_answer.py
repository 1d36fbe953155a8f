"""One question across the library from the window (issue 46): the scope box asks every document;
the contracts found are listed with their best passage, the answer names its contracts, and a
contract's page opens it at that passage."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tests.app.conftest import wait_for_document
from tests.pdf_factory import make_pdf, text_pages

COC = "Upon a change of control of the Supplier, the Customer may terminate this Agreement at once."


def contract(folder: Path, name: str, clause_page: int | None) -> Path:
    filler = text_pages(6, 300, tag=name)  # enough passages that the clause's words are rare ones
    pages = [[name.upper(), *filler[n]] for n in range(6)]
    if clause_page is not None:
        pages[clause_page - 1].insert(1, f"9. CHANGE OF CONTROL. {COC}")
    return make_pdf(folder / f"{name}.pdf", pages)  # type: ignore[arg-type]


def cite_the_passages_given(prompt: str) -> str:
    """The model's reply: each document given, cited at the first page of its passage."""
    cited = re.findall(r"DOC_ID (\w+)[^\n]*?p(?:p)?\. (\d+)", prompt)
    return " ".join(f"It has one [{doc_id} p. {page}]." for doc_id, page in dict(cited).items()) or "None."


def test_a_question_across_the_library_lists_each_contract_with_its_best_passage(
    qtbot: Any, make_window: Any, fake_engine: Any, tmp_path: Path
) -> None:
    window = make_window()
    names = [("acme-supply", 2), ("beta-licence", 3), ("gamma-lease", None)]
    window.add_paths([contract(tmp_path, name, page) for name, page in names])
    wait_for_document(qtbot, window)
    qtbot.waitUntil(lambda: len(window.library.documents()) == 3 and not window.runner.ingests, timeout=90_000)
    window.select_document(None)
    conversation = window.conversation
    conversation.set_scope(library=True)
    assert conversation.question.isEnabled()  # no document selected: the library can still be asked
    fake_engine.queue(cite_the_passages_given)
    job = window.ask("Which contracts have a change-of-control clause?")
    assert job is not None
    qtbot.waitUntil(lambda: window.answers.job is None, timeout=60_000)

    (turn,) = conversation.library_turns
    assert {hit.title for hit in turn.contracts[:2]} == {"acme-supply", "beta-licence"}
    pages = {hit.title: hit.best.page for hit in turn.contracts}
    assert (pages["acme-supply"], pages["beta-licence"]) == (2, 3)
    text = conversation.browser.toPlainText()
    assert "contracts with a matching passage" in text and "acme-supply" in text and "beta-licence" in text
    assert turn.answer is not None and {c.label.split(",")[0] for c in turn.answer.citations if c.valid} == {
        "acme-supply",
        "beta-licence",
    }

    beta = next(n for n, hit in enumerate(turn.contracts, start=1) if hit.title == "beta-licence")
    from PySide6.QtCore import QUrl

    conversation._anchor(QUrl(f"hit:0/{beta}"))  # the link of beta's page in the list
    qtbot.waitUntil(lambda: window.viewer.current_page() == 3)
    assert window.doc_id == turn.contracts[beta - 1].doc_id

    conversation.set_scope(library=False)  # the document's own conversation again, without the library's
    assert "contracts with a matching passage" not in conversation.browser.toPlainText()

    # Export conversation (Ctrl+E) keeps the library-wide question and its contracts (walk
    # 2026-12-06, finding 14), the window's own links made plain text
    window.export.choose_path = lambda suggested: str(tmp_path / suggested)
    window.export.export_conversation()
    (exported,) = tmp_path.glob("*.md")
    text = exported.read_text()
    assert "Which contracts have a change-of-control clause?" in text and "beta-licence" in text
    assert "hit:" not in text and "lcite:" not in text

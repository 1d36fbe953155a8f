from __future__ import annotations

from collections.abc import Iterator

import pytest

from inference.engines.fake import FakeEngine
from summarizer.answers.answer import AnswerOptions, ask
from summarizer.answers.conversations import append_turn, clear_conversation, history, list_turns
from summarizer.errors import DocumentNotFound
from summarizer.library.storage.store import Library
from tests.summarizer.doc_factory import add_document


@pytest.fixture
def library() -> Iterator[Library]:
    with Library.open() as lib:
        yield lib


def test_turns_are_kept_per_document_in_order(library: Library) -> None:
    doc = add_document(library, ["The Buyer pays 10 dollars."], title="A")
    other = add_document(library, ["Other text."], title="B")
    engine = FakeEngine(["Ten dollars [p. 1]."])
    answer = ask(library, engine, "How much?", doc_ids=[doc], options=AnswerOptions(use_vectors=False)).run()
    append_turn(library, doc, "How much?", answer)
    append_turn(library, doc, "When?", {"answer": "Not said.", "mode": "whole-document", "citations": []})
    append_turn(library, other, "Other?", {"answer": "x"})
    turns = list_turns(library, doc)
    assert [(t.question, t.answer) for t in turns] == [("How much?", "Ten dollars [p. 1]."), ("When?", "Not said.")]
    assert turns[0].answer_json["citations"][0]["valid"] is True
    assert [(h.question, h.answer) for h in history(turns)] == [
        ("How much?", "Ten dollars [p. 1]."),
        ("When?", "Not said."),
    ]
    assert clear_conversation(library, doc) == 2
    assert list_turns(library, doc) == [] and len(list_turns(library, other)) == 1
    library.remove(other)
    assert list_turns(library, other) == []


def test_unknown_document_is_refused(library: Library) -> None:
    with pytest.raises(DocumentNotFound):
        append_turn(library, "nope", "q", {"answer": "a"})

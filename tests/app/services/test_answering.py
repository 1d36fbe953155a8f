"""The window's adapter onto summaries: the stored summary shown for the loaded model."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from app.services import answering
from inference.engines.fake import FakeEngine
from summarizer.library.storage.store import Library
from tests.summarizer.doc_factory import add_document, numbered_pages


@pytest.fixture
def library() -> Iterator[Library]:
    with Library.open() as lib:
        yield lib


def test_the_stored_summary_is_shown_after_the_context_grows(library: Library) -> None:
    """Issue 25, finding 9: a larger context found no stored summary and made it again."""
    doc_id = add_document(library, numbered_pages(12, words_per_page=1700), title="Long Lease")
    made = answering.summarize(FakeEngine(default_reply="made at 8K", n_ctx=8192), library, doc_id)
    larger = FakeEngine(n_ctx=16384)  # the same model (FakeEngine:fake-model), loaded with more context
    shown = answering.cached_summary(library, doc_id, larger)
    assert shown is not None and shown == made
    assert answering.summarize(larger, library, doc_id) == made and larger.calls == []
    assert answering.cached_summary(library, doc_id, FakeEngine(n_ctx=4096)) is None  # the 8K segments do not fit

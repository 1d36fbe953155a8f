from __future__ import annotations

import itertools
from collections.abc import Iterator

import pytest

from inference.engines.fake import FakeEngine
from summarizer.errors import DocumentError
from summarizer.library.storage.document_text import passage_pieces, read_pages, read_passages
from summarizer.library.storage.store import Library
from summarizer.summaries.segments import build_segments, group_pieces
from tests.summarizer.doc_factory import add_document, numbered_pages


@pytest.fixture
def library() -> Iterator[Library]:
    with Library.open() as lib:
        yield lib


def test_pieces_drop_the_overlap_and_join_into_the_document(library: Library) -> None:
    pages = numbered_pages(4)
    doc_id = add_document(library, pages, words_per_passage=17, overlap_chars=30)
    passages = read_passages(library, doc_id)
    assert any(len(p.text) > 30 and p.text[:25] in passages[i - 1].text for i, p in enumerate(passages) if i)
    pieces = passage_pieces(passages, read_pages(library, doc_id))
    assert "".join(piece.text for piece in pieces) == "\n".join(pages)


def test_segments_cover_the_document_in_order_within_the_size(library: Library) -> None:
    pages = numbered_pages(6)
    doc_id = add_document(library, pages, words_per_passage=20, overlap_chars=12)
    engine = FakeEngine()
    segments = build_segments(
        library, doc_id, count_tokens=engine.count_tokens, tokenizer_id="fake", segment_tokens=150
    )
    assert len(segments) > 3
    assert [s.seq for s in segments] == list(range(len(segments)))
    assert segments[0].first_passage_seq == 0
    for before, after in itertools.pairwise(segments):
        assert after.first_passage_seq == before.last_passage_seq + 1
        assert after.page_start >= before.page_end
    assert segments[-1].last_passage_seq == len(read_passages(library, doc_id)) - 1
    for segment in segments:
        assert segment.n_tokens == engine.count_tokens(segment.text) <= 150
        assert f"w{segment.page_start}_" in segment.text and f"w{segment.page_end}_" in segment.text
    assert " ".join(s.text for s in segments).split() == "\n".join(pages).split()


def test_segments_are_cached_by_document_size_and_tokenizer(library: Library) -> None:
    doc_id = add_document(library, numbered_pages(5), words_per_passage=25)
    calls: list[str] = []

    def count(text: str) -> int:
        calls.append(text)
        return FakeEngine().count_tokens(text)

    first = build_segments(library, doc_id, count_tokens=count, tokenizer_id="tok-a", segment_tokens=200)
    assert calls
    calls.clear()
    again = build_segments(library, doc_id, count_tokens=count, tokenizer_id="tok-a", segment_tokens=200)
    assert calls == [] and again == first
    # Without a tokenizer, the cache alone answers.
    assert build_segments(library, doc_id, count_tokens=None, tokenizer_id="tok-a", segment_tokens=200) == first
    build_segments(library, doc_id, count_tokens=count, tokenizer_id="tok-a", segment_tokens=120)
    assert calls, "another segment size is counted again"
    calls.clear()
    build_segments(library, doc_id, count_tokens=count, tokenizer_id="tok-b", segment_tokens=200)
    assert calls, "another tokenizer is counted again"
    with pytest.raises(DocumentError):
        build_segments(library, doc_id, count_tokens=None, tokenizer_id="tok-c", segment_tokens=200)


def test_reindexed_document_is_segmented_again(library: Library) -> None:
    doc_id = add_document(library, numbered_pages(3), words_per_passage=25)
    engine = FakeEngine()
    build_segments(library, doc_id, count_tokens=engine.count_tokens, tokenizer_id="t", segment_tokens=100)
    library.db.execute("DELETE FROM passages WHERE doc_id = ? AND seq > 2", [doc_id])
    with pytest.raises(DocumentError):
        build_segments(library, doc_id, count_tokens=None, tokenizer_id="t", segment_tokens=100)
    shorter = build_segments(library, doc_id, count_tokens=engine.count_tokens, tokenizer_id="t", segment_tokens=100)
    assert shorter[-1].last_passage_seq == 2


def test_group_pieces_keeps_an_oversized_piece_alone() -> None:
    from summarizer.library.storage.document_text import PassagePiece

    pieces = [PassagePiece(i, "x", 1, 1) for i in range(5)]
    assert group_pieces(pieces, [3, 3, 10, 2, 2], 6) == [[0, 1], [2], [3, 4]]


def test_document_without_text_says_so(library: Library) -> None:
    doc_id = add_document(library, ["", ""])
    with pytest.raises(DocumentError, match="no text to summarize"):
        build_segments(library, doc_id, count_tokens=len, tokenizer_id="t", segment_tokens=100)

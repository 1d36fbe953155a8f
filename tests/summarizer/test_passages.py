from __future__ import annotations

from pathlib import Path

import pytest

from summarizer.chunk_tokenizer import chunk_tokenizer
from summarizer.passages import PAGE_JOIN, split_passages
from summarizer.pdf_extract import PdfPages
from tests.conftest import CONTRACTS

# all-MiniLM-L6-v2 reads at most 256 word pieces, [CLS] and [SEP] included.
EMBEDDER_LIMIT = 256 - 2


def _pages(pdf: Path) -> list[tuple[int, str]]:
    return [(p.number, p.text) for p in PdfPages(pdf).pages()]


def _check_passages(pages: list[tuple[int, str]], max_tokens: int = 200) -> int:
    tokenizer = chunk_tokenizer()
    raw = dict(pages)
    passages = list(split_passages(pages, tokenizer, max_tokens=max_tokens, overlap_tokens=24))
    assert passages
    for n, passage in enumerate(passages):
        assert passage.seq == n
        joined = PAGE_JOIN.join(raw[s.page][s.start : s.end] for s in passage.spans)
        assert joined == passage.text, f"passage {n} does not round-trip through its spans"
        pages_seen = [s.page for s in passage.spans]
        assert pages_seen == sorted(set(pages_seen)), "one span per page, in page order"
        assert tokenizer.count(passage.search_text) <= EMBEDDER_LIMIT
        assert passage.n_tokens <= max_tokens
        assert passage.search_text.strip()
    return sum(len(p.spans) > 1 for p in passages)


@pytest.mark.parametrize("name", ["license-17p.pdf", "endorsement-8p.pdf", "supply-16p.pdf"])
def test_every_passage_round_trips_through_its_page_spans(name: str) -> None:
    crossing = _check_passages(_pages(CONTRACTS / name))
    assert crossing > 0, "some passages should cross a page break"


def test_long_document_round_trips_with_small_passages() -> None:
    pages = _pages(CONTRACTS / "franchise-115p.pdf")[:40]
    _check_passages(pages, max_tokens=64)


def test_all_text_is_covered_in_order() -> None:
    pages = _pages(CONTRACTS / "endorsement-8p.pdf")
    passages = list(split_passages(pages, chunk_tokenizer(), overlap_tokens=0))
    # Without overlap, consecutive passages tile the text: each starts at or after the previous end.
    last = (0, 0)
    for passage in passages:
        first = passage.spans[0]
        assert (first.page, first.start) >= last
        last = (passage.spans[-1].page, passage.spans[-1].end)


def test_a_sentence_longer_than_a_passage_is_cut_at_token_boundaries() -> None:
    sentence = " ".join(f"word{i}" for i in range(900))  # no punctuation at all
    pages = [(1, sentence), (2, "Short closing sentence. And another one.")]
    _check_passages(pages, max_tokens=100)


def test_paragraph_boundaries_are_preferred() -> None:
    para = "This sentence has exactly enough words to matter here. " * 6
    raw = "\n \n".join([para, para, para, para])
    # One paragraph is 60 tokens: a passage already 60% full closes at the paragraph end
    # instead of taking most of the next paragraph.
    passages = list(split_passages([(1, raw)], chunk_tokenizer(), max_tokens=100, overlap_tokens=0))
    assert [p.search_text for p in passages] == [para.strip()] * 4


def test_overlap_must_be_small() -> None:
    with pytest.raises(ValueError):
        list(split_passages([(1, "text")], chunk_tokenizer(), max_tokens=100, overlap_tokens=60))

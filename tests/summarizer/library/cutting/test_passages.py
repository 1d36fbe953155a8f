from __future__ import annotations

from pathlib import Path

import pytest

from summarizer.library.cutting.passages import DEFAULT_MAX_CHARS, PAGE_JOIN, split_passages, text_by_page
from summarizer.library.reading.pdf_extract import PdfPages
from summarizer.library.vectors.chunk_tokenizer import chunk_tokenizer
from tests.conftest import CONTRACTS


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
        # Longer than the embedding model's window is fine: it is embedded in windows.
        assert passage.n_tokens <= max_tokens
        assert len(passage.text) <= DEFAULT_MAX_CHARS
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


CONTRACT = """MASTER SUPPLY AGREEMENT
This Agreement is made on 1 May 2020 by and between Acme Ltd and Beta Inc.
ARTICLE I
DEFINITIONS
1.1 Products. "Products" means the goods listed in Exhibit A, as updated by the parties in writing.
1.2 Territory. "Territory" means the countries listed in Exhibit B.
ARTICLE II
SUPPLY
2.1 Orders. The Customer shall order Products by written purchase orders. {filler}
2.2 Delivery. The Supplier shall deliver the Products within thirty days of each order. {filler}
2.3 Exclusivity. The Customer shall purchase the Products exclusively from the Supplier. {filler}
ARTICLE III
GENERAL
3.1 Governing Law. This Agreement is governed by the laws of the State of New York.
3.2 Notices. Notices shall be given in writing to the addresses above.
"""
FILLER = "Each such obligation applies during the whole term and in every part of the Territory. " * 4


def _clause_texts() -> list[str]:
    lines = CONTRACT.format(filler=FILLER).splitlines()
    return [" ".join(line.split()) for line in lines if line[:1].isdigit()]


def test_short_clauses_are_never_split() -> None:
    raw = CONTRACT.format(filler=FILLER)
    passages = list(split_passages([(1, raw)], chunk_tokenizer(), max_tokens=120, overlap_tokens=0))
    assert len(passages) > 2
    for clause in _clause_texts():
        holding = [p for p in passages if clause in " ".join(p.text.split())]
        assert len(holding) == 1, f"clause cut across passages: {clause[:40]}"
    # Passages start where clauses (or the document) start.
    for passage in passages[1:]:
        assert passage.text.lstrip()[:3] in {"ART", "1.1", "1.2", "2.1", "2.2", "2.3", "3.1", "3.2"}, passage.text[:20]


def test_heading_path_is_its_own_field_and_spans_stay_exact() -> None:
    raw = CONTRACT.format(filler=FILLER)
    passages = list(split_passages([(1, raw)], chunk_tokenizer(), max_tokens=120, overlap_tokens=0))
    by_start = {p.text.split()[0]: p for p in passages}
    assert passages[0].heading == "Preamble > MASTER SUPPLY AGREEMENT"
    assert by_start["2.3"].heading == "ARTICLE II SUPPLY > 2.3 Exclusivity"
    for passage in passages:
        (span,) = passage.spans
        assert raw[span.start : span.end] == passage.text
        assert not passage.text.startswith(passage.heading)


def test_a_clause_longer_than_a_passage_is_cut_inside_with_its_heading_kept() -> None:
    raw = "ARTICLE IX\nINDEMNITY\n9.1 Indemnification. " + "The Supplier shall indemnify the Customer. " * 60
    passages = list(split_passages([(1, raw)], chunk_tokenizer(), max_tokens=100, overlap_tokens=16))
    assert len(passages) > 2
    assert all(p.heading == "ARTICLE IX INDEMNITY > 9.1 Indemnification" for p in passages[1:])


def test_a_passages_text_is_cut_back_into_its_pages_parts() -> None:
    """What a Word passage's paragraph labels in the answer prompt are put before (issue 56, item 1)."""
    text = PAGE_JOIN.join(["1.1 Invoices.", "a line\nwith a break", ""])
    spans = [(2, 4, 17), (3, 0, 19), (4, 0, 0)]
    assert text_by_page(text, spans) == [(2, "1.1 Invoices."), (3, "a line\nwith a break"), (4, "")]
    assert text_by_page(text + "more", spans) == []  # not what its spans say: left unlabelled
    assert text_by_page("", []) == []

from __future__ import annotations

import pytest

from summarizer.answers.citations import MAX_RANGE, CitableSource, find_citations

DOC = "a062c0d4fdaa"
OTHER = "77be01c2aa90"
SOURCES = [
    CitableSource(DOC, 3, 4, passage_id=11, spans=((3, 120, 480), (4, 0, 95))),
    CitableSource(DOC, 12, 12, passage_id=15, spans=((12, 40, 700),)),
]


def pages_of(answer: str, sources: list[CitableSource] = SOURCES) -> list[tuple[int, bool]]:
    return [(c.page, c.valid) for c in find_citations(answer, sources)]


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Notice is due [p. 12].", [(12, True)]),
        ("Notice is due [p.12].", [(12, True)]),
        ("Notice is due (p. 12).", [(12, True)]),
        ("Both parties [pp. 3-4].", [(3, True), (4, True)]),
        ("Both parties [pp. 3–4].", [(3, True), (4, True)]),
        ("See [p. 12, 14].", [(12, True), (14, False)]),
        ("See [pp. 3-4, 7].", [(3, True), (4, True), (7, False)]),
        ("See [p. 3; p. 12].", [(3, True), (12, True)]),
        ("See [Page 12] and [pages 3 and 4].", [(12, True), (3, True), (4, True)]),
        ("Invented [p. 99].", [(99, False)]),
        ("No citation here, only [1] and (2).", []),
    ],
)
def test_forms_are_parsed_and_checked(answer: str, expected: list[tuple[int, bool]]) -> None:
    assert pages_of(answer) == expected


def test_valid_citation_links_passage_and_character_offsets() -> None:
    (c3, c4, c12) = find_citations("Term [pp. 3-4]; fees [p. 12].", SOURCES)
    assert (c3.doc_id, c3.passage_id, c3.char_start, c3.char_end) == (DOC, 11, 120, 480)
    assert (c4.passage_id, c4.char_start, c4.char_end) == (11, 0, 95)
    assert (c12.passage_id, c12.char_start, c12.char_end, c12.text) == (15, 40, 700, "[p. 12]")
    answer = "Term [pp. 3-4]; fees [p. 12]."
    assert answer[c12.answer_start : c12.answer_end] == "[p. 12]"


def test_invalid_citations_are_flagged_not_dropped() -> None:
    citations = find_citations("Made up [p. 8] and right [p. 3].", SOURCES)
    assert [(c.page, c.valid, c.passage_id) for c in citations] == [(8, False, None), (3, True, 11)]
    assert citations[0].reason and citations[0].doc_id == DOC
    assert citations[0].to_json()["valid"] is False


def test_whole_document_mode_accepts_any_page_of_the_document() -> None:
    whole = [CitableSource(DOC, 1, 17)]
    citations = find_citations("[p. 1] [p. 17] [p. 18] [p. 0]", whole)
    assert [(c.page, c.valid) for c in citations] == [(1, True), (17, True), (18, False), (0, False)]
    assert all(c.passage_id is None and c.char_start is None for c in citations)


def test_several_documents_cite_by_document_id() -> None:
    sources = [*SOURCES, CitableSource(OTHER, 3, 3, passage_id=40, spans=((3, 5, 60),))]
    named = find_citations(f"[{OTHER} p. 3] [{DOC} p. 3] [{OTHER} p. 12]", sources)
    assert [(c.doc_id, c.passage_id, c.valid) for c in named] == [
        (OTHER, 40, True),
        (DOC, 11, True),
        (OTHER, None, False),
    ]
    # A page alone links to the first passage that holds it.
    (plain,) = find_citations("[p. 3]", sources)
    assert (plain.doc_id, plain.passage_id) == (DOC, 11)
    # An id that is no document given: invalid, never guessed.
    (unknown,) = find_citations("[ffff0000aaaa p. 3]", sources)
    assert not unknown.valid and unknown.doc_id is None and "unknown document" in unknown.reason
    # A plain word before the page is not taken for a document.
    (word,) = find_citations("[see p. 3]", sources)
    assert word.valid


def test_reversed_or_huge_ranges_are_invalid() -> None:
    reversed_range = find_citations("[pp. 9-2]", SOURCES)
    huge = find_citations(f"[pp. 1-{MAX_RANGE + 5}]", SOURCES)
    assert [(c.page, c.valid) for c in reversed_range] == [(9, False)]
    assert [(c.page, c.valid) for c in huge] == [(1, False)]


WORD_DOC = "5b0c7e11d2aa"
WORD_SOURCES = [
    CitableSource(
        WORD_DOC,
        90,
        92,
        passage_id=21,
        spans=((91, 0, 80),),
        word=True,
        clauses=(("7.2", 90), ("7.2(a)", 91), ("7.2(b)", 92)),
    ),
    CitableSource(DOC, 3, 4, passage_id=11),
]


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Capped [¶ 91].", [(WORD_DOC, 91, True)]),
        ("Capped [¶¶ 90-91].", [(WORD_DOC, 90, True), (WORD_DOC, 91, True)]),
        ("Capped [para. 92].", [(WORD_DOC, 92, True)]),
        ("Capped [§ 7.2(a)].", [(WORD_DOC, 91, True)]),
        ("Capped (§ 7.2(a)).", [(WORD_DOC, 91, True)]),
        ("Capped [Section 7.2 (b)].", [(WORD_DOC, 92, True)]),
        ("Capped [§ 7].", [(WORD_DOC, 90, True)]),  # the article holding the clauses given
        ("Capped [§ 7.2(a), ¶ 91].", [(WORD_DOC, 91, True)]),
        (f"Capped [{WORD_DOC} ¶ 91].", [(WORD_DOC, 91, True)]),
        ("Capped [§ 7.3].", [(None, 0, False)]),  # a clause not given
        ("Capped [§ 7.21].", [(None, 0, False)]),  # 7.2 is no sub-clause of 7.21 (nor the reverse)
        ("Capped [¶ 95].", [(None, 95, False)]),
        (f"Term [{DOC} ¶ 3].", [(DOC, 3, False)]),  # a PDF has no paragraph numbers
        ("Term [p. 3].", [(DOC, 3, True)]),  # pages still checked as before
    ],
)
def test_word_paragraph_and_clause_citations(answer: str, expected: list[tuple[str | None, int, bool]]) -> None:
    assert [(c.doc_id, c.page, c.valid) for c in find_citations(answer, WORD_SOURCES)] == expected


def test_word_citation_links_the_clause_paragraph_offsets() -> None:
    (citation,) = find_citations("Capped [§ 7.2(a)].", WORD_SOURCES)
    assert (citation.passage_id, citation.char_start, citation.char_end) == (21, 0, 80)
    (wrong,) = find_citations("Capped [§ 7.3].", WORD_SOURCES)
    assert wrong.reason == "clause not in the text given"
    (pdf,) = find_citations(f"Term [{DOC} ¶ 3].", WORD_SOURCES)
    assert "not in the text given" in pdf.reason


def test_a_page_citation_of_a_word_document_not_given_names_a_paragraph() -> None:
    """A Word document's "pages" are its paragraphs: "[p. 95]" of one is a paragraph not given;
    a PDF's page not given stays a page."""
    (word,) = find_citations(f"Capped [{WORD_DOC} p. 95].", WORD_SOURCES)
    assert (word.doc_id, word.valid, word.reason) == (WORD_DOC, False, "paragraph not in the text given")
    (pdf,) = find_citations(f"Term [{DOC} p. 9].", WORD_SOURCES)
    assert (pdf.doc_id, pdf.valid, pdf.reason) == (DOC, False, "page not in the text given")
    (given,) = find_citations(f"Capped [{WORD_DOC} p. 91].", WORD_SOURCES)
    assert given.valid

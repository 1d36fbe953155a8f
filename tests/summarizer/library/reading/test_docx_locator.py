"""Locators of Word passages: clause number with its parents, heading, paragraphs, pages."""

from __future__ import annotations

from summarizer.library.reading.docx_document import DocxParagraph
from summarizer.library.reading.docx_locator import locate


def _p(
    index: int, text: str, number: str | None = None, level: int | None = None, page: int | None = None
) -> DocxParagraph:
    return DocxParagraph(index, text, number, page=page, list_level=level)


DOCUMENT = [
    _p(1, "Master Agreement", page=1),
    _p(2, "Liability", "ARTICLE VII", 0, page=3),
    _p(3, "Caps. Each party's liability is capped at the fees paid.", "7.1", 1, page=3),
    _p(4, "Neither party is liable for lost profits.", "a.", 2, page=3),
    _p(5, "nor for punitive damages,", "(i)", 3, page=4),
    _p(6, "Exceptions. The caps do not apply to fraud.", "7.2", 1, page=4),
]


def test_a_sub_clause_is_cited_with_its_parents_numbers() -> None:
    assert str(locate(DOCUMENT, 5, 5)) == "§ 7.1(a)(i) Caps, ¶ 5, p. 4"
    assert str(locate(DOCUMENT, 4, 5)) == "§ 7.1(a) Caps, ¶ 4–5, pp. 3–4"
    assert str(locate(DOCUMENT, 6, 6)) == "§ 7.2 Exceptions, ¶ 6, p. 4"


def test_an_article_and_text_before_any_clause() -> None:
    assert str(locate(DOCUMENT, 2, 2)) == "ARTICLE VII Liability, ¶ 2, p. 3"
    assert str(locate(DOCUMENT, 1, 1)) == "¶ 1, p. 1"


def test_no_page_when_the_file_records_none() -> None:
    plain = [_p(1, "Terms", "1.", 0), _p(2, "The buyer pays.", "1.1", 1)]
    assert str(locate(plain, 2, 2)) == "§ 1.1 Terms, ¶ 2"


def test_paragraphs_running_into_other_clauses_are_named_by_the_range_of_clauses() -> None:
    # Issue 56, item 1: "§ 7.1(a)(i) Caps, ¶ 5–6" named a clause that does not hold ¶ 6 (7.2).
    assert str(locate(DOCUMENT, 5, 6)) == "§§ 7.1(a)(i)–7.2, ¶ 5–6, p. 4"
    assert locate(DOCUMENT, 3, 6).short == "§§ 7.1–7.2, ¶ 3–6"
    assert str(locate(DOCUMENT, 2, 6)) == "ARTICLE VII Liability, ¶ 2–6, pp. 3–4"  # the article holds them all

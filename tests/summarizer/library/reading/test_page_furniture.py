from __future__ import annotations

import pytest

from summarizer.library.reading.page_furniture import body_range, body_span, is_page_number


def page(n: int, body: str) -> str:
    """A page as pypdf extracts it: running header, body, running footer and page number."""
    return f"Acme Corp. Supply Agreement\n{body}\n\xa0\nAcme Corp. - Confidential\nPage {n} of 40"


WORDS = ["first", "second", "third", "fourth", "fifth"]
PAGES = [page(n, f"The {w} page starts here.\nIts {w} body line ends it.") for n, w in enumerate(WORDS, start=1)]


@pytest.mark.parametrize("line", ["12", " - 12 - ", "Page 12 of 40", "page 3", "12/40", "— 7 —", "xii", "p. 4"])
def test_bare_page_numbers_are_recognised(line: str) -> None:
    assert is_page_number(line)


@pytest.mark.parametrize("line", ["12 months", "Section 12", "(a)", "ARTICLE II", "II", "1.", "Page marker"])
def test_text_with_a_number_is_not_a_page_number(line: str) -> None:
    assert not is_page_number(line)


def test_a_span_across_a_page_break_loses_the_footer_and_the_next_header() -> None:
    first, second = PAGES[1], PAGES[2]
    neighbours = {1: [PAGES[0], *PAGES[2:4]], 2: [*PAGES[0:2], *PAGES[3:5]]}
    # The passage runs from the last body line of page 2 to the first body line of page 3.
    start = first.index("Its second")
    span = body_span(first, start, len(first), neighbours[1])
    assert span is not None and first[span[0] : span[1]] == "Its second body line ends it."
    end = second.index("starts here.") + len("starts here.")
    span = body_span(second, 0, end, neighbours[2])
    assert span is not None and second[span[0] : span[1]] == "The third page starts here."


def test_a_span_of_furniture_only_is_dropped_and_a_body_span_is_kept() -> None:
    text = PAGES[2]
    footer = text.index("Acme Corp. - Confidential")
    assert body_span(text, footer, len(text), PAGES[:2]) is None
    middle = (text.index("The third"), text.index("Its third") - 1)
    assert body_span(text, *middle, PAGES[:2]) == middle


def test_a_page_without_neighbours_still_loses_its_page_number() -> None:
    text = "The only page of the memo.\n\xa0\n- 1 -"
    assert text[slice(*body_range(text, []))] == "The only page of the memo.\n\xa0\n"


def test_body_lines_are_kept_even_when_they_look_like_furniture_further_in() -> None:
    # "12" inside the body (a table cell) stays: furniture only runs inward from the page's edge.
    pages = [f"Title\nRates, {w} table:\n12\nTotal due, {w} page.\nFooter {n}" for n, w in enumerate(WORDS)]
    start, end = body_range(pages[1], [pages[0], pages[2]])
    assert pages[1][start:end].strip() == "Rates, second table:\n12\nTotal due, second page."


def test_without_furniture_blanks_running_lines_and_keeps_offsets() -> None:
    from summarizer.library.reading.page_furniture import without_furniture

    bodies = ["Revenue rose in fiscal 2019.", "Costs fell sharply.", "Cash flow was strong.", "Debt was repaid."]
    pages = [(n, f"ACME 10-K\n{body}\n{n}") for n, body in enumerate(bodies, start=1)]
    blanked = without_furniture(pages)
    for (page, raw), (same, text), body in zip(pages, blanked, bodies, strict=True):
        assert page == same and len(text) == len(raw)
        assert text.strip() == body
        assert text.index(body) == raw.index(body)


def test_a_row_of_redaction_marks_at_a_page_edge_is_kept() -> None:
    """Found on the layouts benchmark's development pairs (collaboration-154p): a redacted
    schedule's rows of "[***]" repeat at the edges of its pages and were blanked as a running line,
    so a re-rendered version that put them elsewhere read as "[***] … deleted"."""
    pages = [f"Schedule 1\nTask {w}: [***]\n[***] [***] [***]\n{n}" for n, w in enumerate(WORDS, start=1)]
    start, end = body_range(pages[1], [pages[0], *pages[2:4]])
    assert pages[1][start:end].strip() == "Task second: [***]\n[***] [***] [***]"


def test_a_table_row_numbered_apart_from_the_page_at_a_page_edge_is_kept() -> None:
    """Found on the layouts benchmark's development pairs (collaboration-154p, same layout, seed 2):
    a table's rows "146 Mb 146 Miscanthus [***] none" look alike once their digits are ignored, and
    one that a reflow put at the bottom of two nearby pages was blanked as a running footer. A
    running line's numbers are the same on each page or go up with the pages; a row's do not."""
    rows = [(146, 10), (170, 11), (249, 12)]
    pages = [f"Schedule 1\nLines\n{n - 1} Mb {n - 1} [***]\n{n} Mb {n} Miscanthus [***] none" for n, _ in rows]
    start, end = body_range(pages[1], [pages[0], pages[2]])
    assert pages[1][start:end].endswith("170 Mb 170 Miscanthus [***] none")
    footers = [f"The {w} clause.\nAcme - Confidential - Page {p} of 40" for p, w in zip((3, 4, 5), WORDS, strict=False)]
    start, end = body_range(footers[1], [footers[0], footers[2]])
    assert footers[1][start:end].strip() == f"The {WORDS[1]} clause."

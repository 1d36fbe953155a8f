from __future__ import annotations

from summarizer.library.cutting.clauses import (
    LEVEL_ARTICLE,
    LEVEL_LETTER,
    PREAMBLE,
    HeadingTracker,
    clause_starts,
    line_starts,
)
from summarizer.library.cutting.normalize import normalize

PAGE = """ARTICLE VI
TERM AND TERMINATION

6.1.  Term. The initial term of this Agreement shall commence on the Effective Date and shall continue for
ten (10) years thereafter.
6.3.  Termination for Breach.
(a) By Licensor. Licensor may terminate this Agreement if the Licensee is in material breach for thirty
(30) days after receipt of written notice thereof; and
(b) By Licensee. Licensee may terminate this Agreement if the Licensor is in material breach.
Article 4 and on USE AND COMMERCIALIZATION RIGHTS in Article 5 are not affected.
"""


def _starts(raw: str) -> list[tuple[int, str, str, str]]:
    norm = normalize(raw)
    return [(c.level, c.label, c.title, norm.text[c.start : c.start + 12]) for c in clause_starts(norm, raw)]


def test_line_starts_follow_the_raw_lines() -> None:
    raw = "first line\nsecond line\n\nthird para"
    norm = normalize(raw)
    assert [norm.text[i : i + 5] for i in line_starts(norm, raw)] == ["first", "secon", "third"]


def test_numbered_clauses_articles_and_sub_clauses_are_found_with_their_titles() -> None:
    starts = _starts(PAGE)
    assert [(level, label, title) for level, label, title, _ in starts] == [
        (LEVEL_ARTICLE, "ARTICLE VI", "TERM AND TERMINATION"),
        (2, "6.1", "Term"),
        (2, "6.3", "Termination for Breach"),
        (LEVEL_LETTER, "(a)", "By Licensor"),
        (LEVEL_LETTER, "(b)", "By Licensee"),
    ]
    # "(30) days" at the start of a line is a number written twice, and "Article 4 and on …"
    # a cross-reference: neither starts a clause.
    assert all(not text.startswith(("(30)", "Article 4")) for *_, text in starts)


def test_a_table_of_contents_page_starts_no_clause() -> None:
    toc = "\n".join(f"{n}. SECTION TITLE NUMBER {n}      {n + 2}" for n in range(1, 9))
    assert _starts("TABLE OF CONTENTS\n" + toc) == []


def test_numbers_inside_a_sentence_are_not_clauses() -> None:
    raw = "The Distributor shall pay within\n30 Business Days of the invoice, and\n2019 Annual Fees are due."
    assert _starts(raw) == []


def test_a_reference_number_that_a_line_break_parted_from_its_word_starts_no_clause() -> None:
    """Found on the layouts benchmark's development pairs (collaboration-154p): one layout broke
    "… the breaching Party, Article 14.1." after "Article", and "14.1." at the next line's start
    was cut as a clause (an empty "14.1" and a changed 15.3.2)."""
    raw = (
        "15.3.2 Either Party may terminate this Agreement on notice to the breaching Party, Article\n"
        "14.1. The other Party shall be notified in writing, as set out in Section\n"
        "(b) of the Schedule.\n15.4 Survival. Articles 6 and 7 survive."
    )
    assert [label for _, label, _, _ in _starts(raw)] == ["15.3.2", "15.4"]


def test_heading_path_follows_the_outline() -> None:
    tracker = HeadingTracker()
    norm = normalize(PAGE)
    starts = clause_starts(norm, PAGE)
    paths = [tracker.enter(c, page=7) for c in starts]
    assert paths[1] == ("ARTICLE VI TERM AND TERMINATION", "6.1 Term")
    assert paths[3] == ("ARTICLE VI TERM AND TERMINATION", "6.3 Termination for Breach", "(a) By Licensor")
    assert paths[4][-1] == "(b) By Licensee", "a sibling replaces its sibling"
    raw = "ARTICLE VII\nREPRESENTATIONS\n7.1 Authority. Each Party represents that it is duly organized."
    article, section = clause_starts(normalize(raw), raw)
    assert tracker.enter(article, page=8) == ("ARTICLE VII REPRESENTATIONS",)
    assert tracker.enter(section, page=8) == ("ARTICLE VII REPRESENTATIONS", "7.1 Authority")


def test_text_before_the_first_numbered_clause_is_the_preamble() -> None:
    tracker = HeadingTracker()
    assert tracker.path(1) == (PREAMBLE,)
    raw = "1. Definitions. Terms have the meanings below."
    (first,) = clause_starts(normalize(raw), raw)
    assert tracker.enter(first, page=2) == ("1 Definitions",)
    assert tracker.path(2) == ("1 Definitions",)

"""The paragraphs of a Word passage that hold the words it was found by (issue 56, item 1)."""

from __future__ import annotations

from summarizer.library.reading.docx_document import DocxParagraph
from summarizer.library.reading.docx_locator import locate
from summarizer.search.word_matches import matched_paragraphs, matching

PASSAGE = [
    DocxParagraph(
        116, "Governing Law and Chosen Courts. The Governing Law will govern this Agreement.", "12.3", list_level=1
    ),
    DocxParagraph(117, "Notices. Notices must be in writing.", "12.4", list_level=1),
    DocxParagraph(118, "Force Majeure. Neither party is liable for delays beyond its control.", "12.5", list_level=1),
    DocxParagraph(
        119,
        "Assignment. Neither party may assign this Agreement without the other's prior written consent.",
        "12.6",
        list_level=1,
    ),
]


def test_the_clause_holding_the_query_words_is_named_not_the_first() -> None:
    first, last = matched_paragraphs(PASSAGE, 116, 119, "Can either party assign the agreement without consent?")
    assert (first, last) == (119, 119)
    assert str(locate(PASSAGE, first, last)) == "§ 12.6 Assignment, ¶ 119"


def test_a_passage_no_paragraph_of_which_holds_the_words_is_kept_whole_and_named_by_its_range() -> None:
    narrow = matching("indemnification of intellectual property claims")
    assert narrow(PASSAGE, 116, 119) == (116, 119)
    assert str(locate(PASSAGE, 116, 119)) == "§§ 12.3–12.6, ¶ 116–119"


def test_paragraphs_tied_for_the_most_words_are_kept_as_a_range() -> None:
    first, last = matched_paragraphs(PASSAGE, 116, 119, "writing, delays")
    assert (first, last) == (117, 118)  # "writing" in 12.4, "delays" in 12.5: one word each
    assert str(locate(PASSAGE, first, last)) == "§§ 12.4–12.5, ¶ 117–118"


def test_a_clause_holding_only_some_of_the_words_is_not_named_alone() -> None:
    """12.6 holds "assign" and "consent", 12.5 "delays": the label names the two clauses that hold
    them all, not 12.6 alone (a review item's long query matched words all over its passage)."""
    first, last = matched_paragraphs(PASSAGE, 116, 119, "assign, consent, delays")
    assert (first, last) == (118, 119)
    assert str(locate(PASSAGE, first, last)) == "§§ 12.5–12.6, ¶ 118–119"


FEES = [
    DocxParagraph(1, "Late Fees. Fees paid late bear interest.", "1", list_level=0),
    DocxParagraph(2, "Taxes. Customer pays all taxes.", "2", list_level=0),
    DocxParagraph(3, "Audit. Provider may audit the invoices.", "3", list_level=0),
    DocxParagraph(4, "Notices. A late notice is given when received.", "4", list_level=0),
]


def test_the_fewest_paragraphs_holding_every_word_are_named_not_all_those_tied() -> None:
    """“late” is in 1 and 4, “taxes” in 2: 1–2 hold both; before, the paragraphs tied at one word
    each were kept from the first to the last of them, 1–4."""
    assert matched_paragraphs(FEES, 1, 4, "late taxes") == (1, 2)
    assert matched_paragraphs(FEES, 1, 4, "audit") == (3, 3)
    assert matched_paragraphs(FEES, 2, 4, "late taxes") == (2, 4)  # within the passage given

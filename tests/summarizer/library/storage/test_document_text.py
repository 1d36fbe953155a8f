from __future__ import annotations

from summarizer.library.storage.document_text import llm_text
from summarizer.summaries.repetition import trim_repetition


def test_llm_text_folds_no_break_spaces_and_blank_lines() -> None:
    raw = "TALENT\xa0ENDORSEMENT\xa0\xa0AGREEMENT \n\xa0\n\n\n\nTHIS\tAGREEMENT  is made"
    assert llm_text(raw) == "TALENT ENDORSEMENT AGREEMENT\n\nTHIS AGREEMENT is made"
    assert llm_text("  a\nb  ") == "a\nb"


def test_trim_repetition_cuts_a_loop_after_its_first_occurrence() -> None:
    loop = (
        "The contract is a partnership agreement that is a partnership agreement that is a partnership agreement that"
    )
    assert trim_repetition(loop) == "The contract is a partnership agreement that …"
    normal = "The Seller pays 100 dollars by 1 March. The Buyer pays 50 dollars by 1 April."
    assert trim_repetition(normal) == normal
    # Twice is not a loop.
    twice = "pay on time and in full, pay on time and in full, then stop"
    assert trim_repetition(twice) == twice

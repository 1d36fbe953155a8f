from __future__ import annotations

from app.text_match import fold, locate


def test_fold_keeps_letters_and_digits_with_their_positions() -> None:
    folded = fold("Ab\u00a0c-\r\nd ﬁ")
    assert folded.text == "abcdfi"
    assert folded.index == [0, 1, 3, 7, 9, 9]


def test_locate_tolerates_line_breaks_no_break_spaces_and_hyphenation() -> None:
    pypdf = "The Licensee shall pay the fees within thirty (30) days of the in-\nvoice date."
    qtpdf = (
        "Header\r\nThe\u00a0Licensee\u00a0shall\u00a0pay\u00a0the\u00a0fees\u00a0within\r\n"
        "thirty\u00a0(30)\u00a0days of the invoice date.\r\nNext"
    )
    match = locate(pypdf, qtpdf)
    assert match is not None and match.exact
    assert qtpdf[match.start : match.end].startswith("The\u00a0Licensee")
    assert qtpdf[match.start : match.end].endswith("date")


def test_locate_prefers_the_occurrence_near_the_hint() -> None:
    text = "clause one applies. " * 3 + "middle " * 50 + "clause one applies."
    first = locate("clause one applies", text, hint=0.0)
    last = locate("clause one applies", text, hint=1.0)
    assert first is not None and last is not None
    assert first.start == 0
    assert last.start > first.start + 100


def test_locate_falls_back_to_head_and_tail_when_a_word_differs() -> None:
    needle = "Confidential information means all information disclosed by a party " * 2 + "in writing."
    hay = "xx " + needle.replace("disclosed by a party in", "disclosed by one party in") + " yy"
    match = locate(needle, hay)
    assert match is not None and not match.exact
    assert hay[match.start : match.end].startswith("Confidential")


def test_locate_returns_none_when_absent() -> None:
    assert locate("nothing like this here at all, not even close", "a completely different page text") is None

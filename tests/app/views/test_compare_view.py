"""The Compare tab's words: article groups, the word diff made readable and coloured."""

from __future__ import annotations

from app.views.compare_view import article_of, diff_html, readable
from summarizer.compare.differences import CHANGED, Change, WordEdit
from summarizer.library.cutting.clause_units import ClauseUnit


def clause(label: str, path: tuple[str, ...], text: str) -> ClauseUnit:
    return ClauseUnit(0, label, tuple(label.split(".")), "", path, 1, 0, 1, len(text), text)


def test_a_change_is_grouped_under_its_article_or_its_section_number() -> None:
    def group(path: tuple[str, ...]) -> str:
        return article_of(Change(CHANGED, None, clause("5.5", path, "5.5 Survival. Text.")))

    assert group(("ARTICLE II PAYMENT", "2.1 Fees")) == "ARTICLE II PAYMENT"
    assert group(("13 Definitions", "13.8")) == "13 Definitions"
    assert group(("5", "5.5 Survival")) == "§ 5", "a Word section's bare number"
    assert group(("5.5 Survival",)) == "§ 5", "a sub-clause at the top of the path is listed under its section"
    assert group(()) == "Preamble"


def test_the_word_diff_reads_as_written_with_deletions_and_insertions_marked() -> None:
    assert readable("days ; ( b ) breaches Section 2 . 1 ( Restrictions ) ; Customer ’ s") == (
        "days; (b) breaches Section 2.1 (Restrictions); Customer’s"
    )
    old = clause("2.2", ("2",), "2.2 Suspension. more than 30 days; (b) breaches")
    new = clause("2.2", ("2",), "2.2 Suspension. more than 15 days; (b) breaches")
    edits = (
        WordEdit("equal", "Suspension . more than", "Suspension . more than"),
        WordEdit("replace", "30 days", "15 days"),
        WordEdit("equal", "; ( b ) breaches", "; ( b ) breaches"),
    )
    change = Change(CHANGED, old, new, True, ("a period changed",), edits)
    shown = diff_html(change)
    assert ">30 days</s>" in shown and ">15 days</u>" in shown
    assert "</u>; (b) breaches" in shown, "no space between the change and the text after it"
    assert "a period changed" in shown and "a fixed rule, no model" in shown

"""The judge of lab.eval.docx_citations: does a Word label name a clause that holds the words its
passage was found by (issue 56, item 1)."""

from __future__ import annotations

from lab.eval.docx_citations import judge, named_count, summarize

TEXTS = {
    116: "12.3 Governing Law. The laws of Delaware govern this Agreement.",
    117: "12.4 Notices. Notices must be in writing.",
    118: "12.5 Assignment. Neither party may assign this Agreement without consent.",
}
KEYS = {116: "12.3", 117: "12.4", 118: "12.5"}


def test_a_label_holds_all_any_or_none_of_the_matched_words() -> None:
    query = "assign consent writing"
    assert judge("§§ 12.4–12.5, ¶ 117–118", query, (116, 118), TEXTS, KEYS) == "all"
    assert judge("§ 12.5 Assignment, ¶ 118, p. 9", query, (116, 118), TEXTS, KEYS) == "any"
    assert judge("§ 12.3 Governing Law, ¶ 116", query, (116, 118), TEXTS, KEYS) == "none"
    assert judge("¶ 116–118", query, (116, 118), TEXTS, KEYS) == "none"  # names no clause
    assert judge("§ 12.3, ¶ 116", "indemnity", (116, 118), TEXTS, KEYS) == "unmatched"


def test_the_summary_says_how_many_paragraphs_a_label_names() -> None:
    assert (named_count("§§ 12.4–12.5, ¶ 117–118"), named_count("§ 12.5, ¶ 118, p. 9"), named_count("p. 3")) == (
        2,
        1,
        0,
    )
    rows = [
        {"held_apart": False, "kind": "review", "label": "§§ 12.4–12.5, ¶ 117–118", "verdict": "all"},
        {"held_apart": False, "kind": "review", "label": "§ 12.5, ¶ 118", "verdict": "any"},
        {"held_apart": False, "kind": "review", "label": "¶ 1–9", "verdict": "unmatched"},
    ]
    review = summarize(rows)["development"]["review"]
    assert review == {
        "labels": 3,
        "judged": 2,
        "holds_all": 0.5,
        "holds_any": 1.0,
        "ranges": 1,
        "paragraphs_named": 1.5,
    }

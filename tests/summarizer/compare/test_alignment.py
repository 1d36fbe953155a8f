"""Aligning two versions' clauses: look-alike punctuation and copies of a clause (issue 56, item 2)."""

from __future__ import annotations

from summarizer.compare.alignment import formatting_key
from summarizer.compare.comparison import IDENTICAL, compare_pages
from summarizer.compare.differences import ADDED, CHANGED, FORMATTING
from tests.summarizer.compare.contract_text import contract_pages, edited

GREEK_QUESTION_MARK = "\u037e"  # an SEC filing's text layer gives it for ";"


def test_look_alike_punctuation_is_one_form() -> None:
    assert formatting_key(f"paid in full{GREEK_QUESTION_MARK} and") == formatting_key("paid in full; and")
    assert formatting_key("non\u2011exclusive \ufb01les") == formatting_key("non-exclusive files")


def test_a_semicolon_drawn_as_another_code_point_is_formatting_only() -> None:
    old = contract_pages(
        edited({"until they are paid in full.": f"until paid{GREEK_QUESTION_MARK} Seller waives none."})
    )
    new = contract_pages(edited({"until they are paid in full.": "until paid; Seller waives none."}))
    comparison = compare_pages(old, new)
    assert comparison.verdict == IDENTICAL
    assert [c.kind for c in comparison.changes] == [FORMATTING]


def test_a_changed_clause_with_a_look_alike_shows_only_the_real_edit() -> None:
    old = contract_pages(
        edited({"until they are paid in full.": f"until paid{GREEK_QUESTION_MARK} Seller waives none."})
    )
    new = contract_pages(edited({"until they are paid in full.": "until paid; Seller waives all.", "1.5%": "2%"}))
    (change,) = [c for c in compare_pages(old, new).changes if not c.hidden]
    assert change.kind == CHANGED
    assert [(e.old, e.new) for e in change.edits if e.op != "equal"] == [("1 . 5", "2"), ("none", "all")]
    assert "a party name or defined term changed" not in change.reasons


def test_a_clause_copied_to_another_place_is_added_there_and_not_moved() -> None:
    # Issue 56: the copy was paired with the old clause (moved) and the clause in its place was added.
    articles = edited({})
    law = articles[2][2][2]
    articles[1][2].append(("2.4", law[1], law[2]))  # 3.3 Governing Law, copied before itself as 2.4
    changes = [c for c in compare_pages(contract_pages(), contract_pages(articles)).changes if not c.hidden]
    assert [(c.kind, c.new.display_label) for c in changes] == [(ADDED, "2.4 Governing Law")]  # type: ignore[union-attr]


def test_a_word_hyphenated_at_a_line_end_in_one_layout_is_formatting_only() -> None:
    # The reader joins "non-" and "exclusive" across a line break: "nonexclusive".
    old = contract_pages(edited({"Each party shall bear": "Each party shall bear, on a non-exclusive basis,"}))
    new = [(1, old[0][1].replace("non-exclusive", "non-\nexclusive"))]
    comparison = compare_pages(old, new)
    assert comparison.verdict == IDENTICAL and [c.kind for c in comparison.changes] == [FORMATTING]


def test_a_hyphenated_word_broken_before_a_capital_is_formatting_only() -> None:
    # "Mid-\nContinent": the reader keeps the hyphen before a capital, and the line break is a space.
    old = contract_pages(edited({"Each party shall bear": "Each Mid-Continent party shall bear"}))
    new = [(1, old[0][1].replace("Mid-Continent", "Mid-\nContinent"))]
    comparison = compare_pages(old, new)
    assert comparison.verdict == IDENTICAL and [c.kind for c in comparison.changes] == [FORMATTING]


def test_a_list_bullet_drawn_as_another_glyph_is_formatting_only() -> None:
    """Found on the layouts benchmark's development pairs (collaboration-154p): the original's
    "•" items read "*" in the redraft (a latin-1 core font), and each list's clause was reported
    changed, two "with a sentence added". Word's Symbol bullet comes out of a PDF as U+F0B7."""
    items = "until they are paid in full."
    for old_mark, new_mark in (("\u2022", "*"), ("\uf0b7", "\u2022"), ("\u25cf", "\u25aa")):
        old = contract_pages(edited({items: f"until {old_mark} they are paid; {old_mark} Seller waives none."}))
        new = contract_pages(edited({items: f"until {new_mark} they are paid; {new_mark} Seller waives none."}))
        comparison = compare_pages(old, new)
        assert comparison.verdict == IDENTICAL, (old_mark, new_mark)
        assert [c.kind for c in comparison.changes] == [FORMATTING]


def test_table_cell_separators_of_a_word_file_are_formatting_only() -> None:
    """Walk finding: the Word reader joins a cover-page table's cells with " | ", a PDF's text
    layer has nothing between them, and the Word file against its PDF read as changed."""
    row = "Seller | Acme Corp. | Buyer | Beta Ltd."
    assert formatting_key(row) == formatting_key(row.replace(" |", ""))
    cover = "This agreement is made between the parties named below."
    word = contract_pages(edited({}))[0][1].replace(cover, f"{cover}\nSeller | Acme Corp. | Buyer | Beta Ltd.")
    pdf = contract_pages(edited({}))[0][1].replace(cover, f"{cover}\nSeller Acme Corp. Buyer Beta Ltd.")
    comparison = compare_pages([(1, word)], [(1, pdf)])
    assert comparison.verdict == IDENTICAL and [c.kind for c in comparison.changes] == [FORMATTING]


def test_a_real_edit_in_a_table_row_is_changed_without_its_cell_separators() -> None:
    cover = "This agreement is made between the parties named below."
    word = contract_pages(edited({}))[0][1].replace(cover, f"{cover}\nFee | $10,000 | Term | 12 months")
    pdf = contract_pages(edited({}))[0][1].replace(cover, f"{cover}\nFee $20,000 Term 12 months")
    (change,) = [c for c in compare_pages([(1, word)], [(1, pdf)]).changes if not c.hidden]
    assert change.kind == CHANGED and change.reasons == ("an amount changed",)

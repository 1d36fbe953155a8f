"""Aligning two versions by clause, classifying their differences and marking material ones."""

from __future__ import annotations

import pytest

from inference.cancel import Cancelled, CancelToken
from inference.progress import Progress, Stage
from summarizer.compare.comparison import DIFFERENT_DOCUMENTS, IDENTICAL, VERSIONS, compare_pages
from summarizer.compare.differences import (
    ADDED,
    CHANGED,
    FORMATTING,
    MERGED,
    MOVED,
    REMOVED,
    RENUMBERED,
    SPLIT,
)
from summarizer.library.cutting.clause_units import document_clauses
from tests.summarizer.compare.contract_text import ARTICLES, contract_pages, edited


def _shown(old, new):  # type: ignore[no-untyped-def]
    comparison = compare_pages(old, new)
    return comparison, [c for c in comparison.changes if not c.hidden]


def test_clause_units_keep_number_heading_and_span() -> None:
    clauses = document_clauses(contract_pages())
    by_label = {c.display_label: c for c in clauses}
    fees = by_label["2.1 Fees"]
    assert fees.number == ("2", "1")
    assert fees.path == ("ARTICLE II PAYMENT", "2.1 Fees")
    assert fees.body.startswith("Fees. Buyer shall pay")
    page = contract_pages()[0][1]
    assert page[fees.start : fees.end].startswith("2.1 Fees.")


def test_the_same_text_twice_is_identical() -> None:
    comparison = compare_pages(contract_pages(), contract_pages())
    assert comparison.verdict == IDENTICAL
    assert comparison.changes == ()


def test_unrelated_documents_are_said_to_be_different() -> None:
    other = [
        (
            1,
            "\n".join(
                f"{n}. Heading{n}. Completely unrelated words about gardening number {n}.\n" for n in range(1, 9)
            ),
        )
    ]
    comparison = compare_pages(contract_pages(), other)
    assert comparison.verdict == DIFFERENT_DOCUMENTS
    assert "different documents" in comparison.message


def test_a_changed_period_is_changed_and_material_with_its_reason() -> None:
    _, changes = _shown(contract_pages(), contract_pages(edited({"thirty (30)": "sixty (60)"})))
    assert [(c.kind, c.new.display_label) for c in changes if c.new] == [(CHANGED, "2.1 Fees")]
    assert changes[0].material
    assert "a period changed" in changes[0].reasons
    assert [(e.old, e.new) for e in changes[0].edits if e.op != "equal"] == [("thirty", "sixty"), ("30", "60")]


@pytest.mark.parametrize(
    ("old", "new", "reason"),
    [
        ("$10,000", "$25,000", "an amount changed"),
        ("1.5%", "2%", "a percentage changed"),
        ("Buyer shall pay", "Buyer may pay", "an obligation's strength changed (shall / may / efforts)"),
        ("shall not exceed", "shall exceed", 'a "not" or "no" added or removed'),
        ("except for", "including", "an exclusion or exception changed"),
        ("State of New York", "State of Delaware", "governing law or venue changed"),
        ("Acme Corp.", "Gamma Inc.", "a party name or defined term changed"),
    ],
)
def test_material_marks_say_why(old: str, new: str, reason: str) -> None:
    _, changes = _shown(contract_pages(), contract_pages(edited({old: new})))
    assert len(changes) == 1 and changes[0].kind == CHANGED
    assert changes[0].material and reason in changes[0].reasons


def test_a_filled_placeholder_is_material() -> None:
    old = contract_pages(edited({"Acme Corp.": "{party_name}"}))
    _, changes = _shown(old, contract_pages())
    assert changes[0].material and "a placeholder filled in" in changes[0].reasons


def test_a_small_wording_change_is_not_material() -> None:
    _, changes = _shown(contract_pages(), contract_pages(edited({"arising out of or in connection with": "under"})))
    assert [c.kind for c in changes] == [CHANGED]
    assert not changes[0].material


def test_reflowed_text_is_not_a_change_and_quote_style_is_formatting_only() -> None:
    reflowed = [(1, contract_pages()[0][1].replace(" shall ", "\nshall "))]
    assert compare_pages(contract_pages(), reflowed).verdict == IDENTICAL
    curly = contract_pages(edited({'"Agreement"': "“Agreement”"}))
    comparison, shown = _shown(contract_pages(), curly)
    assert shown == [] and [c.kind for c in comparison.changes] == [FORMATTING]


def test_an_added_and_a_removed_clause() -> None:
    articles = edited({})
    articles[1][2].insert(
        3, ("2.4", "Audit", "Buyer may audit the records of Seller once a year on notice of ten days.")
    )
    del articles[2][2][1]
    _, changes = _shown(contract_pages(), contract_pages(articles))
    kinds = {(c.kind, (c.new or c.old).display_label) for c in changes}  # type: ignore[union-attr]
    assert (ADDED, "2.4 Audit") in kinds and (REMOVED, "3.2 Exclusions") in kinds
    assert all(c.material for c in changes if c.kind in {ADDED, REMOVED})


def test_a_renumbered_article_is_renumbered_only() -> None:
    articles = [("ARTICLE I", "DEFINITIONS", ARTICLES[0][2])]
    articles.append(
        ("ARTICLE II", "INTERIM", [("2.1", "Interim", "Nothing in this article changes the other articles of it.")])
    )
    for label, title, sections in ARTICLES[1:]:
        number = {"ARTICLE II": "III", "ARTICLE III": "IV"}[label]
        renumbered = [(str(int(n[0]) + 1) + n[1:], h, t) for n, h, t in sections]
        articles.append((f"ARTICLE {number}", title, renumbered))
    _, changes = _shown(contract_pages(), contract_pages(articles))
    assert {c.kind for c in changes} == {ADDED, RENUMBERED}
    assert sum(1 for c in changes if c.kind == ADDED) == 2  # the new article and its clause
    assert not any(c.material for c in changes if c.kind == RENUMBERED)


def test_a_moved_clause_is_moved() -> None:
    articles = edited({})
    taxes = articles[1][2].pop(2)
    articles[2][2].append(("3.4", taxes[1], taxes[2]))
    _, changes = _shown(contract_pages(), contract_pages(articles))
    assert [(c.kind, c.old.display_label, c.new.display_label) for c in changes] == [  # type: ignore[union-attr]
        (MOVED, "2.3 Taxes", "3.4 Taxes")
    ]


def test_a_split_clause_is_said_so() -> None:
    articles = edited({})
    number, heading, _ = articles[2][2][0]
    articles[2][2][0] = (number, heading, "The liability of each party shall not exceed the fees paid.")
    articles[2][2].append(("3.4", "Period", "Fees paid in the twelve months before the claim count."))
    _, changes = _shown(contract_pages(), contract_pages(articles))
    assert [(c.kind, c.note) for c in changes if c.kind in {SPLIT, ADDED}] == [(SPLIT, "split from 3.1 Cap")]
    assert any(c.kind == CHANGED and c.old and c.old.display_label == "3.1 Cap" for c in changes)
    assert MERGED not in {c.kind for c in changes}


def test_an_added_clause_repeating_a_kept_one_is_added_not_split() -> None:
    # As the SLA addendum's "SLA Standard Terms" definition repeats the agreement's "Standard Terms"
    # one (docs/compare.md, real variants): the words are in both versions' 3.3, so nothing split.
    articles = edited({})
    law = articles[2][2][2][2]
    articles[2][2].append(("3.4", "Addendum Law", law.replace("This Agreement", "This Addendum")))
    _, changes = _shown(contract_pages(), contract_pages(articles))
    assert [(c.kind, c.new.display_label, c.material) for c in changes] == [  # type: ignore[union-attr]
        (ADDED, "3.4 Addendum Law", True)
    ]


def test_progress_is_typed_and_cancel_stops_the_comparison() -> None:
    events: list[Progress] = []
    compare_pages(contract_pages(), contract_pages(edited({"$10,000": "$20,000"})), progress=events.append)
    assert events and {e.stage for e in events} == {Stage.COMPARE_CLAUSES}
    assert events[-1].done == events[-1].total
    token = CancelToken()
    token.cancel()
    with pytest.raises(Cancelled):
        compare_pages(contract_pages(), contract_pages(), cancel=token)


def test_versions_verdict_counts_material_changes() -> None:
    comparison = compare_pages(contract_pages(), contract_pages(edited({"$10,000": "$20,000"})))
    assert comparison.verdict == VERSIONS
    assert comparison.message == "1 changes, 1 marked material."


def test_a_clause_start_made_by_a_line_break_in_one_version_only_is_not_a_change() -> None:
    text = contract_pages()[0][1]
    # A cross-reference brought to the start of a line by a reflow reads as a clause start.
    old = [(1, text.replace("before the claim.", "before the claim under\nSection 2.1 of this Agreement."))]
    new = [(1, text.replace("before the claim.", "before the claim under Section 2.1 of this Agreement."))]
    assert compare_pages(old, new).verdict == IDENTICAL


# --- odd pairs: an amendment against the full agreement -----------------------------------

AMENDMENT = """FIRST AMENDMENT TO SUPPLY AGREEMENT
This First Amendment amends the Supply Agreement between Acme Corp. and Beta Ltd.

1. Amendment of Section 2.1. Section 2.1 of the Agreement is deleted and replaced with the following: "Buyer
shall pay the fees of $12,500 per month within sixty (60) days of each invoice."

2. Amendment of Section 3.1. Section 3.1 of the Agreement is amended by replacing "twelve months" with
"twenty-four months".

3. Effect. Except as amended by this First Amendment, the Agreement remains in full force and effect.
"""

# An amendment that restates the clauses it changes, under their numbers: most of its clauses pair
# with the agreement's, so the share of paired clauses alone would call the two versions.
RESTATING_AMENDMENT = """AMENDMENT NO. 2
The Supply Agreement is hereby amended as follows. Sections 2.1, 2.2 and 3.1 are deleted in their entirety
and replaced with the following:

2.1 Fees. Buyer shall pay the fees of $12,500 per month within sixty (60) days of each invoice.

2.2 Late Payment. Late amounts bear interest at 1% per month until they are paid in full.

3.1 Cap. The liability of each party shall not exceed the fees paid in the twenty-four months before the claim.
"""


@pytest.mark.parametrize(
    ("amendment", "sections"),
    [(AMENDMENT, ("2.1", "3.1")), (RESTATING_AMENDMENT, ("2.1", "2.2", "3.1"))],
    ids=["short", "restating"],
)
def test_an_amendment_against_the_full_agreement_is_said_to_be_one(amendment: str, sections: tuple[str, ...]) -> None:
    comparison = compare_pages(contract_pages(), [(1, amendment)])
    assert comparison.verdict == DIFFERENT_DOCUMENTS and comparison.changes == ()
    assert comparison.amendment == "new"
    assert comparison.amended_sections == sections
    assert "looks like an amendment to the old one" in comparison.message
    backwards = compare_pages([(1, amendment)], contract_pages())
    assert backwards.amendment == "old" and "amendment to the new one" in backwards.message


def test_a_version_that_lost_clauses_without_amending_words_is_still_a_version() -> None:
    articles = edited({})
    shortened = [(articles[0][0], articles[0][1], articles[0][2]), (articles[1][0], articles[1][1], articles[1][2])]
    comparison = compare_pages(contract_pages(), contract_pages(shortened))
    assert comparison.verdict == VERSIONS and comparison.amendment == ""


def test_the_markdown_word_diff_joins_words_as_written() -> None:
    """The walk of 2026-12-06, finding 22: "Meetings . Contractor ~~shall~~ **may**",
    "Sections 5 . 02", "( ~~5~~ **15** )" in the Markdown, where the window showed them right."""
    from summarizer.compare.differences import CHANGED, Change, word_edits
    from summarizer.compare.report import markdown_word_diff

    old = "Meetings. Contractor shall meet under Sections 5.02 within (5) days."
    new = "Meetings. Contractor may meet under Sections 5.02 within (15) days."
    edits, _, _ = word_edits(old, new)
    diff = markdown_word_diff(Change(CHANGED, None, None, edits=tuple(edits)))
    assert diff == "Meetings. Contractor ~~shall~~ **may** meet under Sections 5.02 within (~~5~~ **15**) days."


def test_a_changed_item_is_named_with_the_numbers_it_sits_under() -> None:
    """The walk of 2026-12-06, finding 5: the list, the detail, the Markdown and the redline named
    5.2(a) as "(a)" ("Changed: (a) (¶ 77–78) → (a) (¶ 76–77)")."""
    from summarizer.compare.report import comparison_markdown

    text = (
        "5. PAYMENT\n\n5.2 Fees. The Customer shall pay the fees as follows:\n\n"
        "(a) Monthly. The monthly fee is due on the first day of each month.\n\n"
        "(b) Yearly. The yearly fee is due in January.\n"
    )
    comparison, shown = _shown([(1, text)], [(1, text.replace("first day", "fifth day"))])
    assert [(c.kind, c.old.display_label, c.new.display_label) for c in shown] == [  # type: ignore[union-attr]
        (CHANGED, "5.2(a) Monthly", "5.2(a) Monthly")
    ]
    markdown = comparison_markdown(comparison, "v1", "v2")
    assert "**Changed**: 5.2(a) Monthly (" in markdown and "→ 5.2(a) Monthly (" in markdown


def test_the_comparison_markdown_writes_the_word_diff_as_the_words_are_written() -> None:
    """The walk of 2026-12-06, finding 22: the Markdown read "Meetings . Contractor ~~shall~~
    **may**", "Sections 5 . 02", "( ~~5~~ **15** )", where the window showed them right."""
    from summarizer.compare.report import comparison_markdown

    text = "4. MEETINGS\n\n4.1 Meetings. Contractor shall meet under Sections 5.02 within (5) days.\n"
    comparison, _shown_changes = _shown([(1, text)], [(1, text.replace("shall", "may").replace("(5)", "(15)"))])
    markdown = comparison_markdown(comparison, "v1", "v2")
    assert "Meetings. Contractor ~~shall~~ **may** meet under Sections 5.02 within (~~5~~ **15**) days." in markdown

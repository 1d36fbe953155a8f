"""Items of a list run into a sentence that a line break cut as clauses (issue 56, item 2)."""

from __future__ import annotations

from summarizer.compare.comparison import compare_pages
from summarizer.compare.differences import REMOVED
from summarizer.compare.inline_lists import neighbours

BEFORE = "8.1. Indemnification by Licensor. Licensor shall defend Licensee against any Action.\n"
AFTER = "8.3. Procedure. Licensor shall give notice of any Action within ten (10) days.\n"
# One layout: "(i)" inside a line, "(ii)" at the start of the next (after "… and").
WRAPPED = (
    "8.2. Indemnification by Licensee. Licensee shall not be liable in cases where (i) the basis of\n"
    "the offense has not previously been identified as offensive or inappropriate and\n"
    "(ii) Licensee has not also received notice from the Governmental Authority.\n"
)
# A list set out item by item: "(a)" and "(b)" each begin a line.
SET_OUT = (
    "8.2. Indemnification by Licensee. Licensee shall indemnify Licensor against:\n"
    "(a) any breach by Licensee of this Agreement; and\n"
    "(b) any Content that Licensee posts on the websites.\n"
)


def test_a_removed_clause_cut_at_a_wrapped_list_item_is_one_clause_removed() -> None:
    """Found on the layouts benchmark's development pairs (license-17p, seed 1): 8.2 says "in
    cases where (i) … and (ii) …"; the old version's layout put "(ii)" at a line's start, the
    finder cut it as 8.2(ii), and deleting 8.2 read as two clauses removed."""
    changes = compare_pages([(1, BEFORE + WRAPPED + AFTER)], [(1, BEFORE + AFTER.replace("8.3", "8.2"))]).changes
    removed = [c for c in changes if c.kind == REMOVED]
    assert len(removed) == 1
    assert removed[0].old is not None and removed[0].old.label == "8.2"
    assert "(ii) Licensee has not also received notice" in removed[0].old.text
    # The first item at a line's start, the second run into its line: the same.
    first_wrapped = WRAPPED.replace("where (i) the basis of\n", "where\n(i) the basis of ")
    first_wrapped = first_wrapped.replace("and\n(ii)", "and (ii)")
    changes = compare_pages([(1, BEFORE + first_wrapped + AFTER)], [(1, BEFORE + AFTER.replace("8.3", "8.2"))]).changes
    assert [c.old.label for c in changes if c.kind == REMOVED and c.old] == ["8.2"]


def test_items_of_a_list_set_out_stay_clauses_removed() -> None:
    changes = compare_pages([(1, BEFORE + SET_OUT + AFTER)], [(1, BEFORE + AFTER.replace("8.3", "8.2"))]).changes
    assert [c.old.label for c in changes if c.kind == REMOVED and c.old] == ["8.2", "(a)", "(b)"]


def test_neighbours_of_a_marker_in_its_list() -> None:
    assert neighbours("(ii)", -1) == {"(i)"}
    assert neighbours("(i)", 1) == {"(j)", "(ii)"}
    assert neighbours("(b)", -1) == {"(a)"}
    assert neighbours("(1)", -1) == set()

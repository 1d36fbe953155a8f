"""One cut for both versions: clause starts one version's line breaks made (issue 56, item 2)."""

from __future__ import annotations

import pytest

from summarizer.compare.comparison import compare_clauses
from summarizer.compare.differences import CHANGED, RENUMBERED
from summarizer.library.cutting.clause_units import ClauseUnit


def unit(index: int, label: str, text: str) -> ClauseUnit:
    return ClauseUnit(index, label, (label,) if label else (), "", (label or "Schedule",), 1, 0, 1, len(text), text)


MAINTENANCE = "IGER Plant maintenance. We prototyped a large set up including containers, improving the"
TRIALS = "IGER Carry out the field trials of the selected lines and send the samples to Ceres."


@pytest.mark.parametrize("label", ["38", ""])
def test_a_renumbered_clause_joined_to_the_one_before_in_one_version_is_renumbered(label: str) -> None:
    """Found on the layouts benchmark's development pairs (collaboration-154p): the rows of a
    numbered work plan start clauses in the original's layout and not all in the redraft's, so a
    row renumbered 38 → 39 was joined to row 37 (now 38) and read "a number changed". A row cut
    as a heading has no label ("")."""
    old = [unit(0, "37", f"37 {MAINTENANCE}"), unit(1, label, f"38 {TRIALS}")]
    new = [unit(0, "38", f"38 {MAINTENANCE} 39 {TRIALS}")]
    changes = compare_clauses(old, new).changes
    assert [c.kind for c in changes] == [RENUMBERED]


def test_a_number_changed_beside_a_joined_renumbered_clause_is_still_changed() -> None:
    old = [unit(0, "37", f"37 {MAINTENANCE}"), unit(1, "38", f"38 {TRIALS}")]
    new = [unit(0, "38", f"38 {MAINTENANCE} 39 {TRIALS.replace('send the samples', 'send 12 samples')}")]
    (change,) = compare_clauses(old, new).changes
    assert change.kind == CHANGED
    assert [(e.old, e.new) for e in change.edits if e.op != "equal"] == [("38", "39"), ("the", "12")]


WITNESS = "IN WITNESS WHEREOF the Parties have caused this Agreement to be duly executed as indicated below."
SIGNATURES = "INSTITUTE OF GRASSLAND AND ENVIRONMENTAL RESEARCH CERES, INC. By: Name: Title: Date:"


def test_a_start_whose_words_repeat_is_joined_only_where_the_other_version_joins_them() -> None:
    """Found on the layouts benchmark's development pairs (collaboration-154p): the agreement and a
    schedule form each end "… as indicated below." before a signature block; the redraft joined
    the agreement's signature block to its last clause, and the schedule's was joined to its last
    clause too (18.7), which then read "a number changed; a party name changed"."""
    old = [
        unit(0, "1.1", "1.1 Each party shall keep the research results confidential for five years."),
        unit(1, "1.2", f"1.2 The Parties agree to the terms above. {WITNESS}"),
        unit(2, "", SIGNATURES),
        unit(3, "2.1", "2.1 The schedule covers the field trials of the selected Miscanthus lines."),
        unit(4, "2.2", f"2.2 The schedule ends with the trials of the third year. {WITNESS}"),
        unit(5, "", SIGNATURES),
    ]
    new = [
        old[0],
        unit(1, "1.2", f"1.2 The Parties agree to the terms above. {WITNESS} {SIGNATURES}"),
        unit(2, "2.1", old[3].text),
        unit(3, "2.2", old[4].text),
        unit(4, "2.3", f"2.3 Each party shall keep records of the trials for audit. {SIGNATURES}"),
    ]
    changes = [c for c in compare_clauses(old, new).changes if not c.hidden]
    assert [c.new.display_label for c in changes if c.new is not None] == ["2.3"]


def test_joined_rows_renumbered_beside_their_own_numbers_are_renumbered() -> None:
    """Found on the layouts benchmark's development pairs (collaboration-154p): a table's rows
    "124 Mb 124 Miscanthus …", renumbered "125 Mb 124 …" and joined to the rows before; in a
    long clause a word diff paired an old row number with the "124" that stays, so the
    renumbering read as words inserted and deleted ("a number changed")."""
    row = "Miscanthus [***] [***] [***] under MTA [***] [***]"
    starts = range(100, 200, 10)  # the rows cut as clauses: renumbered
    old = [unit(k, str(n), " ".join(f"{m} Mb {m} {row}" for m in range(n, n + 10))) for k, n in enumerate(starts)]
    rows = " ".join(f"{n + 1 if n in starts else n} Mb {n} {row}" for n in range(100, 200))
    changes = compare_clauses(old, [unit(0, "101", rows)]).changes
    assert [c.kind for c in changes] == [RENUMBERED]


def test_a_start_one_version_has_beside_a_sentence_inserted_there_is_joined() -> None:
    """Found on the layouts benchmark's development pairs (distributor-17p, SEC original): the
    redraft inserts a sentence at the end of the last clause, before the signature block, which
    its layout does not start on a line of its own; the words around the original's start were
    then parted by the new sentence, the start was kept and read "merged" into the last clause."""
    last = "11.17 Interpretation. This Agreement is in English. IN WITNESS WHEREOF, the Parties have signed it"
    last += " as of the date above."
    block = "WATER NOW: WATER NOW, INC. By: Name: David King Title: Chief Executive Officer HYDRASPIN: HYDRASPIN"
    block += " USA, INC. By: Name: David King Title: Chief Executive Officer WATER NOW: WATER NOW, INC. By: Name:"
    distributor = "DISTRIBUTOR: BESTEV MANAGEMENT, LLC By: Name: Title:"
    old = [unit(0, "11.17", last), unit(1, "", block), unit(2, "", distributor)]
    inserted = "The parties shall meet once each quarter to review the performance of this Agreement in good faith."
    new = [unit(0, "12.17", f"{last.replace('11.17', '12.17')} {inserted} {block} {distributor}")]
    assert [c.kind for c in compare_clauses(old, new).changes] == [CHANGED]

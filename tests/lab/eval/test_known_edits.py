"""The known-edits benchmark's edits keep their truth: each edit names the clause it touched."""

from __future__ import annotations

from lab.eval.known_edits import apply_edits, clause_key

CLAUSES = [
    "SUPPLY AGREEMENT This agreement is made on 1 March 2021 between the parties, Acme and Beta.",
    "ARTICLE I DEFINITIONS",
    '1.1 Agreement. "Agreement" means this supply agreement and every order form issued under it from time to time.',
    '1.2 Products. "Products" means the goods listed in the order forms, in accordance with the specifications.',
    "ARTICLE II PAYMENT",
    "2.1 Fees. Buyer shall pay the fees of $10,000 per month within thirty (30) days of each invoice it receives.",
    "2.2 Late Payment. Late amounts bear interest until they are paid in full. Interest is computed daily on them.",
    "ARTICLE III TERM",
    "3.1 Term. This Agreement continues for three (3) years from the date in 2021 on which both parties sign it.",
    "3.2 Renewal. Either party may renew this Agreement by notice given to the other party pursuant to Section 9.",
    "ARTICLE IV LAW",
    "4.1 Law. This Agreement is governed by the laws of the State of New York, without regard to its conflict rules.",
    "4.2 Venue. The courts of New York County have jurisdiction over any dispute arising out of this Agreement.",
]


def test_edits_are_recorded_with_their_clause_and_leave_renumbered_clauses_apart() -> None:
    pair = apply_edits(CLAUSES, seed=3)
    assert pair.old != pair.new
    old_keys = {clause_key(c) for c in pair.old}
    new_keys = {clause_key(p) for c in pair.new for p in c.split("\n\n")}
    for truth in pair.truth:
        if truth.kind == "added":
            assert truth.key in new_keys and truth.key not in old_keys
        else:
            assert truth.key in old_keys, truth.edit
        if truth.kind == "removed":
            assert truth.key not in new_keys
    assert all(key in old_keys and key in new_keys for key in pair.renumbered_keys)
    assert not pair.renumbered_keys & {t.key for t in pair.truth}
    assert "ARTICLE III TERM" in pair.old and any(c.startswith("ARTICLE IV TERM") for c in pair.new)


def test_the_same_seed_makes_the_same_edits() -> None:
    first, second = apply_edits(CLAUSES, seed=5), apply_edits(CLAUSES, seed=5)
    assert first.new == second.new and [t.key for t in first.truth] == [t.key for t in second.truth]

"""One cut for both versions: a clause start that one version's line breaks made and the other's
did not is not a new clause.

A PDF's clause starts are found at line starts, so a cross-reference ("Section 8.1 …") or a list
item ("(ii) …") that a reflow brought to the start of a line starts a clause in one version only.
A boundary is kept when the words around it (the end of one clause and the start of the next)
are not found together inside one clause of the other version; else the two clauses are joined.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from summarizer.compare.alignment import formatting_key
from summarizer.library.cutting.clause_units import ClauseUnit

CONTEXT_WORDS = 8  # on each side of a boundary
_SEPARATOR = " \u241e "  # never in a clause's text
_DIGITS = re.compile(r"\d+")


def _key(text: str) -> str:
    # Digits are blanked: a renumbered clause ("7.2" → "8.2") keeps its boundary's context.
    return _DIGITS.sub("#", formatting_key(text))


def _boundary_context(before: ClauseUnit, after: ClauseUnit) -> str:
    return " ".join(_key(before.text).split()[-CONTEXT_WORDS:] + _key(after.text).split()[:CONTEXT_WORDS])


def join_one_sided_starts(clauses: Sequence[ClauseUnit], other: Sequence[ClauseUnit]) -> list[ClauseUnit]:
    """``clauses`` with each start joined to the clause before it when ``other`` has the words
    around that start inside one clause."""
    inside_other = _SEPARATOR.join(_key(c.text) for c in other)
    joined: list[ClauseUnit] = []
    for clause in clauses:
        if joined and _boundary_context(joined[-1], clause) in inside_other:
            before = joined[-1]
            joined[-1] = replace(before, page_end=clause.page_end, end=clause.end, text=f"{before.text} {clause.text}")
        else:
            joined.append(clause)
    return [replace(c, index=k) for k, c in enumerate(joined)]


def common_segmentation(
    old: Sequence[ClauseUnit], new: Sequence[ClauseUnit]
) -> tuple[list[ClauseUnit], list[ClauseUnit]]:
    # Twice: a start joined on one side can uncover the words around a start on the other.
    old_cut, new_cut = list(old), list(new)
    for _ in range(2):
        old_cut = join_one_sided_starts(old_cut, new_cut)
        new_cut = join_one_sided_starts(new_cut, old_cut)
    return old_cut, new_cut

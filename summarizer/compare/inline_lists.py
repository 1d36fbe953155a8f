"""Items of a list run into a sentence ("in cases where (i) … and (ii) …") that a line break put
at a line's start, where the clause finder cut them as clauses of their own.

Another layout breaks the line elsewhere and cuts no clause there; where the words are in both
versions, ``summarizer.compare.segmentation`` joins the start made on one side only. Where the
clause is removed (or added) as a whole, neither version holds the words around the start, and the
item would read as a second clause removed: ``join_removed_items`` reports it with its clause.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from summarizer.compare.alignment import Pair
from summarizer.compare.segmentation import join_units
from summarizer.library.cutting.clause_units import ClauseUnit
from summarizer.library.reading.docx_numbering import roman

_MARKER = r"\((?:[a-z]{1,2}|[ivx]{1,5}|\d{1,2})\)"  # "(b)", "(ii)", "(3)"
_ITEM = re.compile(_MARKER)
# An item marker after a word or a ";" (not after a heading's "." or ":"): run into a sentence.
_RUN_IN_ITEM = re.compile(rf"(?<=[^\s.:])\s+({_MARKER})(?=\s)")
# ... unless a word names it as a reference ("subject to paragraph (b)", "in item (ii) above").
_REFERENCE_END = re.compile(r"\b(?:sub-?)?(?:paragraphs?|clauses?|items?|limbs?|sections?)\s*$", re.IGNORECASE)
_ROMANS = tuple(roman(n) for n in range(1, 40))


def neighbours(label: str, step: int) -> set[str]:
    """The markers just before (``step`` -1) or after (+1) an item marker in its list: "(i)"
    before "(ii)"; "(j)" and "(ii)" after "(i)", a letter or a roman numeral."""
    marker = label.strip("()")
    found: set[str] = set()
    if marker.isdigit() and int(marker) + step > 0:
        found.add(str(int(marker) + step))
    if marker in _ROMANS and 0 <= _ROMANS.index(marker) + step < len(_ROMANS):
        found.add(_ROMANS[_ROMANS.index(marker) + step])
    if len(marker) == 1 and "a" <= chr(ord(marker) + step) <= "z":
        found.add(chr(ord(marker) + step))
    return {f"({m})" for m in found}


def run_in_items(text: str) -> set[str]:
    """The item markers run into ``text``'s sentences, references to items left out."""
    return {m.group(1) for m in _RUN_IN_ITEM.finditer(text) if not _REFERENCE_END.search(text[: m.start()])}


def wrapped_item(before: ClauseUnit, clause: ClauseUnit) -> bool:
    """True when ``clause`` is an item of a list run into ``before``'s last sentence: ``before``
    ends no sentence ("… inappropriate and"), and the item before ``clause`` in its list is run
    into ``before`` ("where (i) the basis …"), or, ``clause`` being its list's first item, the
    item after it is run into ``clause``. A list set out item by item ("(a) …; and" then "(b) …")
    is not."""
    if not _ITEM.fullmatch(clause.label) or before.text.rstrip().endswith((".", ":")):
        return False
    previous = neighbours(clause.label, -1)
    if before.label in previous:
        return False
    if previous & run_in_items(before.body):
        return True
    return bool(neighbours(clause.label, 1) & run_in_items(clause.body))


def join_removed_items(pairs: Sequence[Pair]) -> list[Pair]:
    """``pairs`` with a clause removed (or added) right after the clause it was cut from by a
    wrapped list item (``wrapped_item``), also removed (added), joined to it: one clause removed."""
    out: list[Pair] = []
    for pair in pairs:
        last = out[-1] if out else None
        if last is not None and last.how == pair.how == "unpaired":
            if last.new is None and pair.new is None and _follows(last.old, pair.old):
                assert last.old is not None and pair.old is not None
                out[-1] = Pair(join_units(last.old, pair.old), None, "unpaired")
                continue
            if last.old is None and pair.old is None and _follows(last.new, pair.new):
                assert last.new is not None and pair.new is not None
                out[-1] = Pair(None, join_units(last.new, pair.new), "unpaired")
                continue
        out.append(pair)
    return out


def _follows(before: ClauseUnit | None, clause: ClauseUnit | None) -> bool:
    return (
        before is not None and clause is not None and clause.index == before.index + 1 and wrapped_item(before, clause)
    )

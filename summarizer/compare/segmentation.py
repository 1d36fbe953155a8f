"""One cut for both versions: a clause start that one version's line breaks made and the other's
did not is not a new clause.

A PDF's clause starts are found at line starts, so a cross-reference ("Section 8.1 …") or a list
item ("(ii) …") that a reflow brought to the start of a line starts a clause in one version only.
A boundary is kept when the words around it (the end of one clause and the start of the next)
are not found together inside one clause of the other version; else the two clauses are joined.
"""

from __future__ import annotations

import bisect
import re
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import replace
from itertools import accumulate

from summarizer.compare.alignment import formatting_key, word_keys, word_opcodes, word_starts
from summarizer.library.cutting.clause_units import ClauseUnit

CONTEXT_WORDS = 8  # on each side of a boundary
MAX_INSERTED_CHARS = 400  # words the other version inserted at a boundary (a sentence or two)
_SEPARATOR = " \u241e "  # never in a clause's text
_DIGITS = re.compile(r"\d+")
_LEADING_NUMBER = re.compile(r"\d{1,3}(?=[.)]?\s)")


def _key(text: str) -> str:
    # Digits are blanked: a renumbered clause ("7.2" → "8.2") keeps its boundary's context.
    return _DIGITS.sub("#", formatting_key(text))


def _boundary_context(before: ClauseUnit, after: ClauseUnit) -> str:
    return _context(_key(before.text), _key(after.text))


def join_units(before: ClauseUnit, clause: ClauseUnit) -> ClauseUnit:
    """``before`` and ``clause`` as one clause, ``clause``'s marker kept in the text and noted as
    a joined marker (a renumbered clause joined in one version compares as renumbered)."""
    offset = len(before.text) + 1
    markers = [*before.joined_markers]
    if clause.label and clause.text.startswith(clause.label):
        markers.append((offset, offset + len(clause.label)))
    elif leading := _LEADING_NUMBER.match(clause.text):
        # A start cut as a heading ("48 5 IGER Test …", a numbered row of a table) has no label.
        markers.append((offset, offset + leading.end()))
    markers += [(offset + start, offset + end) for start, end in clause.joined_markers]
    return replace(
        before,
        page_end=clause.page_end,
        end=clause.end,
        text=f"{before.text} {clause.text}",
        joined_markers=tuple(markers),
    )


def _places(keys: Sequence[str], joined: str, context: str) -> list[float]:
    """Where ``context`` occurs inside one of the clauses whose keys ``joined`` joins (with
    ``_SEPARATOR``), each as its clause's place in the document (index / clauses)."""
    starts = list(accumulate((len(k) + len(_SEPARATOR) for k in keys[:-1]), initial=0))
    places: list[float] = []
    at = joined.find(context)
    while at >= 0:
        places.append((bisect.bisect_right(starts, at) - 1) / max(1, len(keys)))
        at = joined.find(context, at + 1)
    return places


def _matched_to_inside(own: list[tuple[float, int | None]], theirs: list[tuple[float, bool]]) -> set[int]:
    """The starts among ``own`` (place, start index; None for the words inside a clause) that the
    nearest pairing by place matches with words inside a clause of ``theirs`` (place, inside)."""
    matched: set[int] = set()
    free_own, free_theirs = set(range(len(own))), set(range(len(theirs)))
    by_distance = sorted((abs(own[i][0] - theirs[j][0]), i, j) for i in free_own for j in free_theirs)
    for _, i, j in by_distance:
        if i in free_own and j in free_theirs:
            free_own.discard(i)
            free_theirs.discard(j)
            start = own[i][1]
            if start is not None and theirs[j][1]:
                matched.add(start)
    return matched


def _context(before: str, after: str) -> str:
    return " ".join(before.split()[-CONTEXT_WORDS:] + after.split()[:CONTEXT_WORDS])


def _parted_inside(before: str, after: str, inside: str) -> bool:
    """True when the end of ``before`` (a key) is found once in ``inside`` (the other version's
    clause keys joined) and the start of ``after`` follows it inside the same clause, with
    at most ``MAX_INSERTED_CHARS`` between them: the other version inserted words at the boundary
    ("… set forth above. The parties shall meet … WATER NOW: …") and did not start a clause there."""
    end = " ".join(before.split()[-CONTEXT_WORDS:])
    start = " ".join(after.split()[:CONTEXT_WORDS])
    at = inside.find(end)
    if not end or not start or at < 0 or inside.find(end, at + 1) >= 0:
        return False
    gap_start = at + len(end)
    then = inside.find(start, gap_start)
    if then < 0 or then - gap_start > MAX_INSERTED_CHARS:
        return False
    return _SEPARATOR not in inside[gap_start:then]


def join_one_sided_starts(clauses: Sequence[ClauseUnit], other: Sequence[ClauseUnit]) -> list[ClauseUnit]:
    """``clauses`` with each start joined to the clause before it when ``other`` has the words
    around that start inside one clause there. Where those words are found more than once (the
    agreement and a schedule form each end "… as indicated below." before a signature block), the
    places of both versions are paired by nearness, and a start is joined only when paired with a
    place inside a clause of ``other``."""
    other_keys = [_key(c.text) for c in other]
    inside_other = _SEPARATOR.join(other_keys)

    def cut(join: Callable[[int, ClauseUnit, str], bool]) -> list[ClauseUnit]:
        joined: list[ClauseUnit] = []
        for k, clause in enumerate(clauses):
            if joined and join(k, joined[-1], _boundary_context(joined[-1], clause)):
                joined[-1] = join_units(joined[-1], clause)
            else:
                joined.append(clause)
        return joined

    found: dict[str, list[int]] = defaultdict(list)  # the starts whose words ``other`` has inside a clause
    parted: set[int] = set()  # ... with words that ``other`` inserted between them

    def found_inside(k: int, before: ClauseUnit, context: str) -> bool:
        if context not in inside_other:
            if _parted_inside(_key(before.text), _key(clauses[k].text), inside_other):
                parted.add(k)
                return True
            return False
        found[context].append(k)
        return True

    first = cut(found_inside)
    own_keys = [_key(c.text) for c in clauses]
    inside_own = _SEPARATOR.join(own_keys)
    repeated = {c for c, starts in found.items() if len(starts) + inside_own.count(c) > 1 or inside_other.count(c) > 1}
    if not repeated:
        return [replace(c, index=k) for k, c in enumerate(first)]
    other_starts: dict[str, list[float]] = defaultdict(list)
    for k in range(1, len(other)):
        context = _context(other_keys[k - 1], other_keys[k])
        if context in repeated:
            other_starts[context].append(k / len(other))
    keep = {k for c, starts in found.items() if c not in repeated for k in starts}
    for context in repeated:
        own: list[tuple[float, int | None]] = [(k / len(clauses), k) for k in found[context]]
        own += [(place, None) for place in _places(own_keys, inside_own, context)]
        theirs = [(place, True) for place in _places(other_keys, inside_other, context)]
        theirs += [(place, False) for place in other_starts[context]]
        keep |= _matched_to_inside(own, theirs)
    second = cut(lambda k, _, context: k in parted or (k in keep and context in inside_other))
    return [replace(c, index=k) for k, c in enumerate(second)]


def common_segmentation(
    old: Sequence[ClauseUnit], new: Sequence[ClauseUnit]
) -> tuple[list[ClauseUnit], list[ClauseUnit]]:
    # Twice: a start joined on one side can uncover the words around a start on the other.
    old_cut, new_cut = list(old), list(new)
    for _ in range(2):
        old_cut = join_one_sided_starts(old_cut, new_cut)
        new_cut = join_one_sided_starts(new_cut, old_cut)
    return old_cut, new_cut


_MARKER_WORD = re.compile(r"[^\W_]{1,4}")  # "38", "iv", "b": a word a clause marker is made of


def _joined_marker_words(clause: ClauseUnit) -> set[int]:
    """The indices, among ``words(clause.body)``, of the words of its joined markers."""
    offset = len(clause.text) - len(clause.body)  # the body is the text without its marker
    found: set[int] = set()
    for n, at in enumerate(word_starts(clause.body)):
        if any(start <= offset + at < end for start, end in clause.joined_markers):
            found.add(n)
    return found


def only_joined_markers_differ(old: ClauseUnit, new: ClauseUnit) -> bool:
    """True when the two bodies differ only in marker words ("38" for "39") where one of them is
    the marker of a clause joined in (``join_one_sided_starts``): the joined clause was renumbered,
    and in the version that did not start a clause there its number is a word of the text. The
    words are aligned with their digits blanked: rows "124 Mb 124 …" renumbered "125 Mb 124 …"
    in a long clause would otherwise pair the old row number with the "124" that stays."""
    if not old.joined_markers and not new.joined_markers:
        return False
    old_markers, new_markers = _joined_marker_words(old), _joined_marker_words(new)
    a, b = word_keys(old.body), word_keys(new.body)
    differ = False
    for op, i1, i2, j1, j2 in word_opcodes([_DIGITS.sub("#", w) for w in a], [_DIGITS.sub("#", w) for w in b]):
        if op not in ("equal", "replace") or i2 - i1 != j2 - j1:
            return False
        for i, j in zip(range(i1, i2), range(j1, j2), strict=True):
            if a[i] == b[j]:
                continue
            if not (_MARKER_WORD.fullmatch(a[i]) and _MARKER_WORD.fullmatch(b[j])):
                return False
            if i not in old_markers and j not in new_markers:
                return False
            differ = True
    return differ

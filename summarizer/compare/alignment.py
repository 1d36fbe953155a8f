"""Aligning two versions' clauses one to one (or to none).

In order of trust: the same text (wherever it went: a renumbered or moved clause), the same
number and heading path, then the most similar text among what is left. Each clause is paired
at most once; a clause left over was added or removed, unless its words sit inside a clause of
the other version (a split or a merge, said so).
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from summarizer.library.cutting.clause_units import ClauseUnit

SIMILAR_ENOUGH = 0.5  # word-sequence ratio above which two leftover clauses are one clause edited
CONTAINED_SHARE = 0.8  # of a leftover clause's words found in order inside another: a split or merge
LONG_DIFF_PAIRS = 1_000_000
MAX_CANDIDATES = 40  # leftover clauses compared with each other, best by shared words first
_WORD = re.compile(r"\w+|[^\w\s]")
# Quotes, dashes, primes and list bullets one font or text layer draws otherwise; the
# compatibility forms (U+037E GREEK QUESTION MARK for ";" in SEC-filed PDFs, full-width
# punctuation, ligatures, no-break spaces) are made plain by NFKC. A bullet is a list's mark, not
# its words: Word's Symbol and Wingdings bullets come out of a PDF's text layer as U+F0B7 and
# U+F0A7, a plain-text filing and a PDF writer's core fonts (latin-1) draw "•" as "*".
_LOOK_ALIKES = str.maketrans(
    {
        **dict.fromkeys("“”„‟″〃", '"'),
        **dict.fromkeys("‘’‚‛′´ʼ`", "'"),
        **dict.fromkeys("‐‑‒–—―−", "-"),
        **dict.fromkeys("•●▪◦‣∙\uf0b7\uf0a7*", "•"),
    }
)


def words(text: str) -> list[str]:
    return _WORD.findall(text)


def word_starts(text: str) -> list[int]:
    """Where each of ``words(text)`` starts in ``text``."""
    return [match.start() for match in _WORD.finditer(text)]


# A hyphen between letters: a layout that broke "non-transferable" at the end of a line reads
# "nontransferable" (the reader joins a word hyphenated across lines), or "Mid- Continent" where
# the next line starts with a capital (not joined); another keeps "non-transferable".
_WORD_HYPHEN = re.compile(r"(?<=[^\W\d_])-\s*(?=[^\W\d_])")


def plain_form(text: str) -> str:
    """The text with look-alike characters made one: quotes, dashes, compatibility forms."""
    return unicodedata.normalize("NFKC", text.translate(_LOOK_ALIKES))


# The Word reader joins a table row's cells with " | " (summarizer.library.reading.docx_body); a
# PDF's text layer has no mark between cells: the separator is a table's form, not its words.
CELL_SEPARATOR = "|"


def formatting_key(text: str) -> str:
    """The text with quotes, dashes, look-alike punctuation, table cell separators and spacing
    made uniform, and words joined at their hyphens: equal keys differ only in form."""
    return " ".join(word for word in words(_WORD_HYPHEN.sub("", plain_form(text))) if word != CELL_SEPARATOR)


def word_keys(text: str) -> list[str]:
    """``words(text)``, each in its plain form: one key per word, so a diff of keys indexes the words."""
    return [plain_form(word) for word in words(text)]


@dataclass(frozen=True, slots=True)
class Pair:
    old: ClauseUnit | None
    new: ClauseUnit | None
    how: str  # "same text", "same number", "similar text", "unpaired"


def word_opcodes(a: Sequence[str], b: Sequence[str]) -> list[tuple[str, int, int, int, int]]:
    """``SequenceMatcher.get_opcodes`` of two word lists, the common head and tail set aside
    first: an edit is local, and the matcher's time grows with the product of the lengths (a
    definitions article of thousands of words took seconds)."""
    head = 0
    while head < len(a) and head < len(b) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < len(a) - head and tail < len(b) - head and a[len(a) - 1 - tail] == b[len(b) - 1 - tail]:
        tail += 1
    a_middle, b_middle = a[head : len(a) - tail], b[head : len(b) - tail]
    # Beyond a million word pairs the matcher's junk heuristic keeps it fast (frequent words are
    # not anchors); the diff stays correct, only less tight.
    middle = SequenceMatcher(None, a_middle, b_middle, autojunk=len(a_middle) * len(b_middle) > LONG_DIFF_PAIRS)
    ops: list[tuple[str, int, int, int, int]] = [("equal", 0, head, 0, head)] if head else []
    for op, i1, i2, j1, j2 in middle.get_opcodes():
        if op == "equal" and ops and ops[-1][0] == "equal":
            ops[-1] = ("equal", ops[-1][1], head + i2, ops[-1][3], head + j2)
        else:
            ops.append((op, head + i1, head + i2, head + j1, head + j2))
    if tail:
        end = ("equal", len(a) - tail, len(a), len(b) - tail, len(b))
        if ops and ops[-1][0] == "equal":
            ops[-1] = ("equal", ops[-1][1], len(a), ops[-1][3], len(b))
        else:
            ops.append(end)
    return ops


def _word_ratio(a: Sequence[str], b: Sequence[str]) -> float:
    if not a and not b:
        return 1.0
    same = sum(i2 - i1 for op, i1, i2, _, _ in word_opcodes(a, b) if op == "equal")
    return 2.0 * same / (len(a) + len(b))


def contained_share(part: Sequence[str], whole: Sequence[str]) -> float:
    """The share of ``part``'s words found, in order, in ``whole``."""
    if not part:
        return 0.0
    matcher = SequenceMatcher(None, part, whole, autojunk=False)
    return sum(block.size for block in matcher.get_matching_blocks()) / len(part)


def _in_place(
    old_copies: list[int], new_copies: list[int], old_of_new: dict[int, int], old_count: int, new_count: int
) -> list[tuple[int, int]]:
    """Pairs of copies of one text (old index, new index), as many as the rarer side has: first
    those whose new index lies between the new places of the old copy's paired neighbours, then
    the nearest in relative position."""
    new_of_old = {i: j for j, i in old_of_new.items()}
    paired_old = sorted(new_of_old)

    def cost(i: int, j: int) -> tuple[int, float]:
        at = bisect.bisect_left(paired_old, i)
        low = new_of_old[paired_old[at - 1]] if at else -1
        high = new_of_old[paired_old[at]] if at < len(paired_old) else new_count
        return (0 if low < j < high else 1, abs(i / max(1, old_count) - j / max(1, new_count)))

    chosen: list[tuple[int, int]] = []
    free_i, free_j = set(old_copies), set(new_copies)
    for _, i, j in sorted((cost(i, j), i, j) for i in old_copies for j in new_copies):
        if i in free_i and j in free_j:
            chosen.append((i, j))
            free_i.discard(i)
            free_j.discard(j)
    return chosen


def align(old: Sequence[ClauseUnit], new: Sequence[ClauseUnit], check: Callable[[], None] = lambda: None) -> list[Pair]:
    """Pairs covering every clause of both versions, in the new version's order (removed clauses
    after the clause that preceded them in the old version)."""
    old_of_new: dict[int, int] = {}
    how: dict[int, str] = {}
    free_old = set(range(len(old)))
    free_new = set(range(len(new)))

    def pair(i: int, j: int, reason: str) -> None:
        old_of_new[j] = i
        how[j] = reason
        free_old.discard(i)
        free_new.discard(j)

    # 1. The same text, in order where it repeats as often in both versions; where one version
    # holds it more often (a clause copied elsewhere), each copy of the other pairs with the one
    # that keeps its place among the clauses paired so far.
    old_by_text: dict[str, list[int]] = defaultdict(list)
    new_by_text: dict[str, list[int]] = defaultdict(list)
    for i, clause in enumerate(old):
        old_by_text[formatting_key(clause.body)].append(i)
    for j, clause in enumerate(new):
        new_by_text[formatting_key(clause.body)].append(j)
    uneven: list[tuple[list[int], list[int]]] = []
    for key, js in new_by_text.items():
        is_ = old_by_text.get(key)
        if not is_:
            continue
        if len(is_) == len(js):
            for i, j in zip(is_, js, strict=True):
                pair(i, j, "same text")
        else:
            uneven.append((is_, js))
    for is_, js in uneven:
        for i, j in _in_place(is_, js, old_of_new, len(old), len(new)):
            pair(i, j, "same text")
    check()
    # 2. The same heading path (number and heading).
    by_path: dict[tuple[str, ...], list[int]] = defaultdict(list)
    for i in sorted(free_old):
        by_path[old[i].path].append(i)
    for j in sorted(free_new):
        queue = by_path.get(new[j].path)
        while queue and queue[0] not in free_old:
            queue.pop(0)
        if queue and _word_ratio(word_keys(old[queue[0]].body), word_keys(new[j].body)) >= SIMILAR_ENOUGH / 2:
            pair(queue.pop(0), j, "same number")
    # 2b. The same title where the number changed, when no other leftover clause has that title.
    old_titles: dict[str, list[int]] = defaultdict(list)
    new_titles: dict[str, list[int]] = defaultdict(list)
    for i in free_old:
        if old[i].title:
            old_titles[old[i].title.lower()].append(i)
    for j in free_new:
        if new[j].title:
            new_titles[new[j].title.lower()].append(j)
    for title, js in sorted(new_titles.items()):
        if len(js) == 1 and len(old_titles.get(title, [])) == 1:
            pair(old_titles[title][0], js[0], "same title")
    check()
    # 3. The most similar text among the leftovers, best pairs first.
    old_words = {i: word_keys(old[i].body) for i in free_old}
    new_words = {j: word_keys(new[j].body) for j in free_new}
    old_sets = {i: set(old_words[i]) for i in free_old}
    candidates: list[tuple[float, int, int]] = []
    for j in sorted(free_new):
        new_set = set(new_words[j])
        if not new_set:
            continue
        shared = sorted(
            ((len(new_set & old_sets[i]) / len(new_set | old_sets[i]), i) for i in free_old),
            reverse=True,
        )[:MAX_CANDIDATES]
        for overlap, i in shared:
            if overlap > 0.2:
                candidates.append((_word_ratio(old_words[i], new_words[j]), i, j))
        check()
    for ratio, i, j in sorted(candidates, key=lambda c: (-c[0], c[1], c[2])):
        if ratio >= SIMILAR_ENOUGH and i in free_old and j in free_new:
            pair(i, j, "similar text")

    pairs = [
        Pair(old[old_of_new[j]] if j in old_of_new else None, new[j], how.get(j, "unpaired")) for j in range(len(new))
    ]
    # Removed clauses go after the new clause paired with their old predecessor.
    for i in sorted(free_old, reverse=True):
        at = 0
        for k in range(i - 1, -1, -1):
            position = next((n for n, p in enumerate(pairs) if p.old is not None and p.old.index == k), None)
            if position is not None:
                at = position + 1
                break
        pairs.insert(at, Pair(old[i], None, "unpaired"))
    return pairs

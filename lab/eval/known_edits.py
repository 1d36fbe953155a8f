"""The edits a negotiation makes to a contract, applied to its clauses with the truth kept.

A contract is a list of clause texts (each starting with its marker, as Pagewise cuts it). Each
edit kind picks a clause (deterministically, from a seeded generator), changes it and records what
a comparison must report: the clause (by the key of its text in the old version, or the new one
for an added clause), the kind (changed, added, removed, moved) and whether it is material.
Renumbering and reflowing change no clause: a comparison must not report them as changed.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from summarizer.compare.alignment import formatting_key

_MARKER = re.compile(
    r"^(?:(?:ARTICLE|Article|SECTION|Section|§)\s+[\dIVXLC]+[.:]?|\d{1,3}(?:\.\d{1,3})*[.)]?|\([a-z0-9]{1,5}\))\s*"
)
_ROMAN = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100}
KEY_WORDS = 24


def clause_key(text: str) -> str:
    """A clause's identity across versions: its first words without its marker."""
    return " ".join(formatting_key(_MARKER.sub("", text, count=1)).lower().split()[:KEY_WORDS])


def clause_key_full(text: str) -> str:
    """All of a clause's words without its marker, as ``clause_key`` writes them."""
    return " ".join(formatting_key(_MARKER.sub("", text, count=1)).lower().split())


def roman_value(letters: str) -> int:
    total = 0
    for position, letter in enumerate(letters):
        value = _ROMAN[letter]
        following = _ROMAN[letters[position + 1]] if position + 1 < len(letters) else 0
        total += -value if value < following else value
    return total


def to_roman(value: int) -> str:
    out = []
    for amount, letters in (
        (100, "C"),
        (90, "XC"),
        (50, "L"),
        (40, "XL"),
        (10, "X"),
        (9, "IX"),
        (5, "V"),
        (4, "IV"),
        (1, "I"),
    ):
        while value >= amount:
            out.append(letters)
            value -= amount
    return "".join(out)


@dataclass
class Truth:
    kind: str  # changed | added | removed | moved
    key: str
    material: bool
    edit: str  # the edit kind that made it


@dataclass
class EditedPair:
    old: list[str]
    new: list[str]
    truth: list[Truth] = field(default_factory=list)
    renumbered_keys: set[str] = field(default_factory=set)  # clauses renumbered and otherwise untouched
    skipped: list[str] = field(default_factory=list)  # edit kinds with no clause to apply to


_WORDS_MIN = 12
_AMOUNT = re.compile(r"\$\s?\d[\d,]*(?:\.\d+)?")
_PERIOD = re.compile(r"\b(\d{1,3})(\)?\s+(?:business\s+|calendar\s+)?(?:days?|months?|years?))\b")
_YEAR = re.compile(r"\b(19[5-9]\d|20[0-4]\d)\b")
_SHALL = re.compile(r"\bshall\b")
_SENTENCE = re.compile(r"(?<=[a-z0-9)][.;])\s+(?=[A-Z])")
_WORDING = [
    ("in accordance with", "under"),
    ("pursuant to", "under"),
    ("hereunder", "under this Agreement"),
    ("prior to", "before"),
]
_NAME = re.compile(r"(?<=[a-z,] )[A-Z][a-z]{3,}(?: [A-Z][a-z]+)*")
NEW_SENTENCE = "The parties shall meet once each quarter to review the performance of this Agreement in good faith."
NEW_DEFINITION = ' "Service Credit" means the credit against the fees set out in the service level terms.'
NEW_CLAUSE = (
    "Audit Rights. Each party may, on thirty (30) days' written notice, audit the records of the other party "
    "relating to this Agreement once in any calendar year, at its own cost."
)


def _numbered(text: str) -> re.Match[str] | None:
    return re.match(r"(\d{1,3})((?:\.\d{1,3})+)[.)]?\s", text)


def apply_edits(clauses: list[str], seed: int) -> EditedPair:
    """The old version (``clauses``, with one placeholder put in) and the edited new version."""
    rng = random.Random(seed)
    new = list(clauses)
    old = list(clauses)
    truth: list[Truth] = []
    used: set[int] = set()
    skipped: list[str] = []
    long_enough = [i for i, c in enumerate(clauses) if len(c.split()) >= _WORDS_MIN and i > 0]

    def pick(test: Callable[[str], bool]) -> int | None:
        candidates = [i for i in long_enough if i not in used and test(clauses[i])]
        if not candidates:
            return None
        choice = rng.choice(candidates)
        # a clause and its neighbours stay apart: two edits never touch one clause or its marker line
        used.update({choice - 1, choice, choice + 1})
        return choice

    def text_edit(name: str, test: Callable[[str], bool], change: Callable[[str], str], material: bool) -> None:
        i = pick(test)
        if i is None:
            skipped.append(name)
            return
        new[i] = change(new[i])
        truth.append(Truth("changed", clause_key(old[i]), material, name))

    text_edit(
        "amount",
        lambda c: bool(_AMOUNT.search(c)),
        lambda c: _AMOUNT.sub(lambda m: _bump_amount(m.group(0)), c, count=1),
        True,
    )
    text_edit(
        "period",
        lambda c: bool(_PERIOD.search(c)),
        lambda c: _PERIOD.sub(lambda m: str(int(m.group(1)) * 2) + m.group(2), c, count=1),
        True,
    )
    text_edit(
        "date",
        lambda c: bool(_YEAR.search(c)),
        lambda c: _YEAR.sub(lambda m: str(int(m.group(1)) + 1), c, count=1),
        True,
    )
    text_edit("shall to may", lambda c: bool(_SHALL.search(c)), lambda c: _SHALL.sub("may", c, count=1), True)
    text_edit(
        "delete sentence",
        lambda c: len(_SENTENCE.split(c)) >= 3 and len(_SENTENCE.split(c)[-1].split()) >= 8,
        lambda c: " ".join(_SENTENCE.split(c)[:-1]),
        True,
    )
    text_edit("insert sentence", lambda c: c.rstrip().endswith("."), lambda c: f"{c.rstrip()} {NEW_SENTENCE}", True)
    text_edit("add definition", lambda c: " means " in c and '"' in c, lambda c: c.rstrip() + NEW_DEFINITION, True)
    text_edit("wording", lambda c: any(a in c for a, _ in _WORDING), _reword, False)

    # A placeholder in the old version, filled in the new one.
    i = pick(lambda c: bool(_NAME.search(c)))
    if i is None:
        skipped.append("fill placeholder")
    else:
        old[i] = _NAME.sub("[PARTY NAME]", old[i], count=1)
        truth.append(Truth("changed", clause_key(old[i]), True, "fill placeholder"))

    # Delete a whole clause.
    i = pick(lambda c: True)
    if i is None:
        skipped.append("delete clause")
    else:
        truth.append(Truth("removed", clause_key(old[i]), True, "delete clause"))
        new[i] = ""

    # Move a numbered clause to the end of another group of clauses, numbered there.
    groups = _groups(clauses)
    movable = [i for i in long_enough if i not in used and _numbered(clauses[i]) and _is_leaf(clauses, i)]
    targets = [g for g in groups if len(groups[g]) >= 2]
    moved = False
    if movable and len(targets) >= 2:
        i = rng.choice(movable)
        source = _numbered(clauses[i]).group(1)  # type: ignore[union-attr]
        others = [g for g in targets if g != source]
        if others:
            target = rng.choice(others)
            used.update({i - 1, i, i + 1})
            last = max(groups[target], key=lambda k: k)
            label = f"{target}.{_next_number(clauses, groups[target])}"
            text = _relabel(new[i], label)
            truth.append(Truth("moved", clause_key(old[i]), False, "move clause"))
            new[i] = ""
            new[last] = new[last] + "\n\n" + text if new[last] else text
            used.update({last - 1, last, last + 1})
            moved = True
    if not moved:
        skipped.append("move clause")

    # Insert a clause at the end of a group.
    free = [g for g in groups if all(k not in used for k in groups[g])]
    if free:
        group = rng.choice(free)
        last = max(groups[group])
        label = f"{group}.{_next_number(clauses, groups[group])}"
        new[last] = new[last] + f"\n\n{label} {NEW_CLAUSE}"
        truth.append(Truth("added", clause_key(f"{label} {NEW_CLAUSE}"), True, "insert clause"))
    else:
        skipped.append("insert clause")

    # Renumber the groups from a middle one on (as if an article had been inserted before it).
    renumbered: set[str] = set()
    numbers = sorted({int(g) for g in groups})
    if len(numbers) >= 3:
        start = numbers[len(numbers) // 2]
        for k, text in enumerate(new):
            parts = text.split("\n\n")
            for n, part in enumerate(parts):
                shifted = _shift(part, start)
                if shifted != part:
                    parts[n] = shifted
                    if k not in used:
                        renumbered.add(clause_key(part))
            new[k] = "\n\n".join(parts)
    else:
        skipped.append("renumber")
    edited_keys = {t.key for t in truth}
    return EditedPair(old, [c for c in new if c], truth, renumbered - edited_keys, skipped)


def _bump_amount(amount: str) -> str:
    digits = re.sub(r"[^\d]", "", amount.split(".")[0])
    value = int(digits or "0") * 2 + 500
    return f"${value:,}"


def _reword(text: str) -> str:
    for before, after in _WORDING:
        if before in text:
            return text.replace(before, after, 1)
    return text


def _groups(clauses: list[str]) -> dict[str, list[int]]:
    """Indices of the numbered clauses "N.M" by their first number N."""
    groups: dict[str, list[int]] = {}
    for i, text in enumerate(clauses):
        match = _numbered(text)
        if match and match.group(2).count(".") == 1:
            groups.setdefault(match.group(1), []).append(i)
    return groups


def _is_leaf(clauses: list[str], i: int) -> bool:
    return i + 1 >= len(clauses) or not clauses[i + 1].startswith("(")


def _next_number(clauses: list[str], members: list[int]) -> int:
    seconds = [int(_numbered(clauses[i]).group(2).split(".")[1]) for i in members]  # type: ignore[union-attr]
    return max(seconds) + 1


def _relabel(text: str, label: str) -> str:
    return re.sub(r"^\d{1,3}(?:\.\d{1,3})+", label, text, count=1)


def _shift(text: str, start: int) -> str:
    """The clause's marker with its first number (or article numeral) raised by one from ``start`` on."""
    match = re.match(r"(\d{1,3})((?:\.\d{1,3})*[.)]?\s)", text)
    if match and int(match.group(1)) >= start:
        return f"{int(match.group(1)) + 1}{text[len(match.group(1)) :]}"
    article = re.match(r"(ARTICLE|Article)\s+([IVXLC]+)\b", text)
    if article and roman_value(article.group(2)) >= start:
        return f"{article.group(1)} {to_roman(roman_value(article.group(2)) + 1)}{text[article.end() :]}"
    return text

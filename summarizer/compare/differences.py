"""The differences between two versions: each aligned pair classified, with a word-level diff
inside a changed clause and the material marks of ``summarizer.compare.material``."""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from summarizer.compare.alignment import (
    CELL_SEPARATOR,
    CONTAINED_SHARE,
    Pair,
    contained_share,
    formatting_key,
    word_keys,
    word_opcodes,
    words,
)
from summarizer.compare.material import material_reasons
from summarizer.compare.segmentation import only_joined_markers_differ
from summarizer.library.cutting.clause_units import ClauseUnit

ADDED = "added"
REMOVED = "removed"
MOVED = "moved"
CHANGED = "changed"
RENUMBERED = "renumbered"
FORMATTING = "formatting"
SPLIT = "split"
MERGED = "merged"
HIDDEN_BY_DEFAULT = frozenset({FORMATTING})


@dataclass(frozen=True, slots=True)
class WordEdit:
    """One run of the word diff: ``op`` is "equal", "delete", "insert" or "replace"."""

    op: str
    old: str
    new: str


@dataclass(frozen=True, slots=True)
class Change:
    kind: str
    old: ClauseUnit | None
    new: ClauseUnit | None
    material: bool = False
    reasons: tuple[str, ...] = ()
    edits: tuple[WordEdit, ...] = ()
    moved: bool = False  # a changed clause that also moved
    note: str = ""  # "split from 4.2", "merged into 4.2"
    hidden: bool = field(default=False)

    def to_json(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "old_label": self.old.display_label if self.old else None,
            "new_label": self.new.display_label if self.new else None,
            "old_location": self.old.to_json() if self.old else None,
            "new_location": self.new.to_json() if self.new else None,
            "material": self.material,
            "reason": "; ".join(self.reasons),
            "moved": self.moved,
            "note": self.note,
            "edits": [{"op": e.op, "old": e.old, "new": e.new} for e in self.edits if e.op != "equal"],
        }


def word_edits(old_text: str, new_text: str) -> tuple[list[WordEdit], list[str], list[str]]:
    """The word diff, and all words removed and inserted (look-alikes, ";" as U+037E, are the
    same word: ``word_keys``)."""
    a, b = words(old_text), words(new_text)
    edits: list[WordEdit] = []
    removed: list[str] = []
    inserted: list[str] = []
    for op, i1, i2, j1, j2 in word_opcodes(word_keys(old_text), word_keys(new_text)):
        edits.append(WordEdit(op, " ".join(a[i1:i2]), " ".join(b[j1:j2])))
        if op == "equal":
            continue
        removed += [word for word in a[i1:i2] if word != CELL_SEPARATOR]
        inserted += [word for word in b[j1:j2] if word != CELL_SEPARATOR]
    return edits, removed, inserted


def _in_order(pairs: Sequence[Pair]) -> set[int]:
    """New indices of paired clauses that kept their order (a longest increasing run of old
    indices); the other paired clauses moved."""
    paired = [(p.new.index, p.old.index) for p in pairs if p.old is not None and p.new is not None]
    tails: list[int] = []
    tail_at: list[int] = []
    parent: list[int] = [-1] * len(paired)
    for k, (_, old_index) in enumerate(paired):
        position = bisect.bisect_left(tails, old_index)
        if position == len(tails):
            tails.append(old_index)
            tail_at.append(k)
        else:
            tails[position] = old_index
            tail_at[position] = k
        parent[k] = tail_at[position - 1] if position else -1
    keep: set[int] = set()
    k = tail_at[-1] if tail_at else -1
    while k >= 0:
        keep.add(paired[k][0])
        k = parent[k]
    return keep


def classify(pairs: Sequence[Pair]) -> list[Change]:
    """One change per pair that differs, in the new version's order."""
    in_order = _in_order(pairs)
    changes: list[Change] = []
    paired_old = [p.old for p in pairs if p.old is not None and p.new is not None]
    paired_new = [p.new for p in pairs if p.old is not None and p.new is not None]
    # Each paired clause's counterpart in the other version, by (version, index).
    counterpart: dict[tuple[str, int], ClauseUnit] = {}
    for p in pairs:
        if p.old is not None and p.new is not None:
            counterpart["old", p.old.index] = p.new
            counterpart["new", p.new.index] = p.old
    for p in pairs:
        reasons: tuple[str, ...]
        if p.old is None and p.new is not None:
            note = _container(p.new, paired_old, "split from", lambda c: counterpart.get(("old", c.index)))
            reasons = ("a clause added",) if not note else ()
            changes.append(Change(SPLIT if note else ADDED, None, p.new, not note, reasons, note=note))
        elif p.new is None and p.old is not None:
            note = _container(p.old, paired_new, "merged into", lambda c: counterpart.get(("new", c.index)))
            reasons = ("a clause removed",) if not note else ()
            changes.append(Change(MERGED if note else REMOVED, p.old, None, not note, reasons, note=note))
        elif p.old is not None and p.new is not None:
            moved = p.new.index not in in_order
            same_body = p.old.body == p.new.body
            same_form = formatting_key(p.old.body) == formatting_key(p.new.body)
            # A clause one version's cut joined to this one, renumbered: a clause renumbered, not a
            # number changed in the text.
            joined_renumbered = not (same_body or same_form) and only_joined_markers_differ(p.old, p.new)
            renumbered = p.old.label != p.new.label or p.old.path[:-1] != p.new.path[:-1]
            if same_body or same_form or joined_renumbered:
                if moved:
                    changes.append(Change(MOVED, p.old, p.new))
                elif p.old.label != p.new.label or joined_renumbered:
                    changes.append(Change(RENUMBERED, p.old, p.new))
                elif not same_body:
                    changes.append(Change(FORMATTING, p.old, p.new, hidden=True))
                continue
            edits, removed, inserted = word_edits(p.old.body, p.new.body)
            reasons = tuple(material_reasons(removed, inserted, p.old.text, p.new.text))
            note = "renumbered" if renumbered and p.old.label != p.new.label else ""
            changes.append(Change(CHANGED, p.old, p.new, bool(reasons), reasons, tuple(edits), moved, note))
    return changes


def _container(
    clause: ClauseUnit,
    others: Sequence[ClauseUnit],
    verb: str,
    counterpart_of: Callable[[ClauseUnit], ClauseUnit | None],
) -> str:
    """ "split from X" when the clause's words sit inside clause X of the other version, and X's
    own counterpart lost them (else the words are there twice: a clause added that repeats
    another, as a "SLA Standard Terms" definition repeats the "Standard Terms" one)."""
    part = word_keys(clause.content.lower())
    if len(part) < 3:
        return ""
    part_set = set(part)
    for other in others:
        whole = word_keys(other.content.lower())
        # Most of the words must be there at all before their order is checked (cheap first).
        if len(part_set & set(whole)) < CONTAINED_SHARE * len(part_set):
            continue
        if contained_share(part, whole) < CONTAINED_SHARE:
            continue
        kept = counterpart_of(other)
        if kept is not None and contained_share(part, word_keys(kept.content.lower())) >= CONTAINED_SHARE:
            continue
        return f"{verb} {other.display_label}"
    return ""

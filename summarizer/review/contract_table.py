"""The review as a table of contracts (issue 46): one row per contract, one column per checklist
item, and the filter a reviewer types over it.

Each cell has a *state* that the filter and the sort read ("found", "candidate passage",
"probably absent", "not found", ...), the text the window shows, and the text a filter searches: the shown text, the
model's quote and the best passage's words, so "Governing Law = New York" finds an evidence-only
cell whose passage reads "the laws of the State of New York" although the cell only says "p. 4".

The filter syntax (``parse_filter``), conditions separated by ``;``:

- ``has COLUMN``: the clause was found (a value), or, evidence only, a "candidate passage": a
  passage was found and not judged "probably absent", which says nothing checked about presence
  (on the 39 validation contracts 53% of such cells were clauses CUAD's lawyers marked, and no
  score threshold held 0.90: ``lab/eval/has_precision.py``, docs/checklists.md);
- ``no COLUMN`` (or ``lacks COLUMN``): probably absent or not found;
- ``model has COLUMN``, ``model no COLUMN``: the same, only where the model gave the verdict;
  ``evidence has COLUMN``, ``evidence no COLUMN``: only where the search without a model gave it;
- ``COLUMN = TEXT`` or ``COLUMN: TEXT``: the cell (its value, quote or best passage) holds TEXT;
  ``COLUMN != TEXT``: it does not;
- anything else: a word or phrase in any cell or the title ("probably absent", "Acme").

``COLUMN`` is a checklist item's category or id, ``contract``, ``folder`` or ``file``, matched
whole, else by its beginning, else anywhere in the name ("change of control", "gov law" does not
match, "governing" does). No Qt here: the window's proxy model calls ``row_matches``.

Each cell also says what its verdict rests on (issue 57, ``cell_kind``): the model's (a typed
answer, found, or not found after the model read the whole contract for it), the evidence's (a
passage found by search without a model, or "probably absent": nobody read the contract for
it), or the reviewer's (a corrected value). A contract the model reviewed shows the model's
verdicts; one reviewed evidence-only keeps its evidence cells, marked as such
(``cell_verdict``: "found (model)", "probably absent (evidence)"), in the table and the exports.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from inference.errors import PagewiseError
from summarizer.review.checklist import ChecklistItem
from summarizer.review.evidence import EVIDENCE_ONLY, DocumentReview, ItemResult

FOUND = "found"
CANDIDATE = "candidate passage"  # evidence only: a passage found, not judged probably absent
ABSENT = "probably absent"
NOT_FOUND = "not found"
NOT_REVIEWED = "not reviewed"
CELL_STATES = {
    "answered": FOUND,
    "evidence": CANDIDATE,
    "absent": ABSENT,
    "not_found": NOT_FOUND,
    "pending": "not asked yet",
    "error": "error",
}
STATE_ORDER = {FOUND: 0, CANDIDATE: 1, "error": 2, "not asked yet": 3, NOT_FOUND: 4, ABSENT: 5, NOT_REVIEWED: 6}
"""How a column sorts by state: the contracts that have the clause first, then the candidates."""
HAS_STATES = (FOUND, CANDIDATE)
"""What ``has COLUMN`` keeps: a clause found, or evidence only, a candidate passage."""
HAS_CANDIDATES_NOTE = "“has” counts candidate passages: evidence only, not checked that the clause is there."
"""Said under the filter when a ``has`` condition kept candidate passages."""
SEARCHED_PASSAGE_CHARS = 1200  # of the best passage, searched by a filter (a clause, as a rule)


class TableFilterError(PagewiseError):
    """A filter the table cannot read: the message says which column or word, and what to type."""


def cell_state(item: ItemResult | None) -> str:
    """What a cell says about the clause, as the filter and the sort read it."""
    if item is None:
        return NOT_REVIEWED
    if item.corrected and item.shown_value:
        return FOUND
    return CELL_STATES.get(item.status, item.status)


MODEL, EVIDENCE, REVIEWER = "model", "evidence", "reviewer"
"""What a cell's verdict rests on (``cell_kind``)."""
KIND_PREFIXES = {"model": MODEL, "evidence": EVIDENCE}


def cell_kind(item: ItemResult | None) -> str:
    """Who gave the cell's verdict: ``REVIEWER`` (a corrected value), ``EVIDENCE`` (search
    without a model: found, or probably absent), ``MODEL`` (its answer after reading the
    contract); "" when the contract was not reviewed."""
    if item is None:
        return ""
    if item.corrected:
        return REVIEWER
    return EVIDENCE if item.status in EVIDENCE_ONLY else MODEL


def cell_verdict(item: ItemResult | None) -> str:
    """The cell's state with what it rests on, as the exports write it ("found (model)",
    "probably absent (evidence)", "not reviewed")."""
    kind = cell_kind(item)
    return f"{cell_state(item)} ({kind})" if kind else cell_state(item)


def searched_text(item: ItemResult | None, shown: str) -> str:
    """The lower-case text a filter looks in: the shown text, the value, quote and best passage."""
    if item is None:
        return shown.lower()
    best = item.evidence[0].quoted[:SEARCHED_PASSAGE_CHARS] if item.evidence else ""
    parts = (shown, item.shown_value or "", item.quote or "", " ".join(best.split()))
    return " ".join(p for p in parts if p).lower()


@dataclass(frozen=True, slots=True)
class TableColumn:
    """A column of the table: ``key`` is "contract", "folder" or a checklist item's id."""

    key: str
    title: str
    item_index: int = -1  # the checklist item's index; -1 for the contract's own columns

    def names(self) -> tuple[str, ...]:
        spoken = self.key.replace("-", " ").replace("_", " ")  # the CUAD ids: "change-of-control"
        return tuple(dict.fromkeys(n.lower() for n in (self.title, spoken, self.key)))


def table_columns(items: Sequence[ChecklistItem], *, folders: bool = False) -> list[TableColumn]:
    """The contract's title (and its folder, when any contract has one), then one per item."""
    columns = [TableColumn("contract", "Contract")]
    if folders:
        columns.append(TableColumn("folder", "Folder"))
    columns += [TableColumn(item.id, item.category, n) for n, item in enumerate(items)]
    return columns


@dataclass(frozen=True, slots=True)
class Condition:
    """One condition of a filter: ``kind`` is "has", "lacks", "contains", "excludes" or "any"."""

    kind: str
    column: TableColumn | None
    text: str = ""
    source: str = ""  # MODEL or EVIDENCE: only cells whose verdict rests on it ("" any)


CONDITION = re.compile(r"^(?P<column>[^=:!]+?)\s*(?P<op>!=|=|:)\s*(?P<text>.+)$")


def find_column(name: str, columns: Sequence[TableColumn]) -> TableColumn:
    """The column ``name`` names: whole, else by its beginning, else anywhere in it."""
    wanted = " ".join(name.lower().split())
    tests = (lambda n: n == wanted, lambda n: n.startswith(wanted), lambda n: wanted in n)
    for test in tests:
        found = [c for c in columns if any(test(n) for n in c.names())]
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            titles = ", ".join(c.title for c in found[:5])
            raise TableFilterError(f"“{name}” names several columns ({titles}): type more of the name.")
    raise TableFilterError(
        f"No column is called “{name}”: type a checklist item (e.g. Governing Law), contract or folder."
    )


def parse_filter(text: str, columns: Sequence[TableColumn]) -> list[Condition]:
    """The conditions of ``text`` (see the module's note); raises ``TableFilterError``."""
    conditions = []
    for part in (p.strip() for p in text.split(";")):
        if not part:
            continue
        lowered = part.lower()
        source = ""
        first, _, rest = part.partition(" ")
        if first.lower() in KIND_PREFIXES and rest.lower().lstrip().startswith(("has ", "no ", "lacks ", "without ")):
            source, part = KIND_PREFIXES[first.lower()], rest.strip()  # "model has Governing Law"
            lowered = part.lower()
        for prefix, kind in (("has ", "has"), ("no ", "lacks"), ("lacks ", "lacks"), ("without ", "lacks")):
            if lowered.startswith(prefix) and (name := part[len(prefix) :].strip()):
                try:
                    conditions.append(Condition(kind, find_column(name, columns), source=source))
                except TableFilterError:
                    if kind == "has":
                        raise
                    conditions.append(Condition("any", None, lowered))  # "no candidate passage"
                break
        else:
            match = CONDITION.match(part)
            if match and (column := _column_or_none(match["column"], columns)) is not None:
                kind = "excludes" if match["op"] == "!=" else "contains"
                conditions.append(Condition(kind, column, " ".join(match["text"].lower().split())))
            else:
                conditions.append(Condition("any", None, " ".join(lowered.split())))
    return conditions


def _column_or_none(name: str, columns: Sequence[TableColumn]) -> TableColumn | None:
    """The column ``name`` names; None when it names none ("p. 4" is text, not a condition)."""
    try:
        return find_column(name, columns)
    except TableFilterError as error:
        if "several columns" in str(error):
            raise
        return None


@dataclass(frozen=True, slots=True)
class TableRow:
    """A contract's row as the filter reads it: per column, the state and the searched text."""

    states: tuple[str, ...]
    texts: tuple[str, ...]
    kinds: tuple[str, ...] = ()  # per column, what the verdict rests on (``cell_kind``)


def row_matches(row: TableRow, conditions: Sequence[Condition], columns: Sequence[TableColumn]) -> bool:
    """True when the contract's row meets every condition."""
    index = {column.key: n for n, column in enumerate(columns)}
    for condition in conditions:
        if condition.column is None:
            if not any(condition.text in text for text in row.texts):
                return False
            continue
        n = index[condition.column.key]
        state, text = row.states[n], row.texts[n]
        if condition.source and (n >= len(row.kinds) or row.kinds[n] != condition.source):
            return False
        if condition.kind == "has" and state not in HAS_STATES:
            return False
        if condition.kind == "lacks" and state not in (ABSENT, NOT_FOUND):
            return False
        if condition.kind == "contains" and condition.text not in text:
            return False
        if condition.kind == "excludes" and condition.text in text:
            return False
    return True


def table_row(
    review: DocumentReview | None, title: str, folder: str, shown: Sequence[str], columns: Sequence[TableColumn]
) -> TableRow:
    """A contract's row for the filter: ``shown`` holds the window's text of each item's cell."""
    states, texts, kinds = [], [], []
    for column in columns:
        if column.key == "contract":
            states.append("")
            texts.append(title.lower())
            kinds.append("")
        elif column.key == "folder":
            states.append("")
            texts.append(folder.lower())
            kinds.append("")
        else:
            item = review.items[column.item_index] if review and column.item_index < len(review.items) else None
            states.append(cell_state(item))
            texts.append(searched_text(item, shown[column.item_index] if column.item_index < len(shown) else ""))
            kinds.append(cell_kind(item))
    return TableRow(tuple(states), tuple(texts), tuple(kinds))


def state_sort_key(state: str, text: str) -> tuple[int, str]:
    """A cell's place when its column is sorted: found first, then by its text."""
    return STATE_ORDER.get(state, 3), text

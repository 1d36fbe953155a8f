"""Comparisons saved in the library (the ``comparisons`` table, migration 10) and reopened as they
were: the verdict, its message and every change with both clauses and its whole word diff. A saved
comparison does not depend on its documents staying in the library; showing a clause in its
document does."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from summarizer.compare.comparison import Comparison
from summarizer.compare.differences import Change, WordEdit
from summarizer.errors import LibraryError
from summarizer.library.cutting.clause_units import ClauseUnit
from summarizer.library.storage.store import Library, now_iso

RESULT_FORMAT = 1  # the layout of the ``result`` JSON; a saved comparison of another layout is refused


@dataclass(frozen=True, slots=True)
class SavedComparison:
    """One row of the saved comparisons, without its changes (``load_comparison`` reads those)."""

    comparison_id: int
    old_doc_id: str
    new_doc_id: str
    old_title: str
    new_title: str
    old_file_type: str
    new_file_type: str
    saved_at: str
    verdict: str
    message: str

    @property
    def name(self) -> str:
        return f"{self.old_title} → {self.new_title}"


def _clause_json(clause: ClauseUnit | None) -> dict[str, Any] | None:
    if clause is None:
        return None
    return {
        "index": clause.index,
        "label": clause.label,
        "number": list(clause.number),
        "title": clause.title,
        "path": list(clause.path),
        "page_start": clause.page_start,
        "start": clause.start,
        "page_end": clause.page_end,
        "end": clause.end,
        "text": clause.text,
    }


def _clause(data: dict[str, Any] | None) -> ClauseUnit | None:
    if data is None:
        return None
    return ClauseUnit(
        index=int(data["index"]),
        label=str(data["label"]),
        number=tuple(str(n) for n in data["number"]),
        title=str(data["title"]),
        path=tuple(str(p) for p in data["path"]),
        page_start=int(data["page_start"]),
        start=int(data["start"]),
        page_end=int(data["page_end"]),
        end=int(data["end"]),
        text=str(data["text"]),
    )


def _change_json(change: Change) -> dict[str, Any]:
    return {
        "kind": change.kind,
        "old": _clause_json(change.old),
        "new": _clause_json(change.new),
        "material": change.material,
        "reasons": list(change.reasons),
        "edits": [[e.op, e.old, e.new] for e in change.edits],  # the equal runs too: the diff as shown
        "moved": change.moved,
        "note": change.note,
        "hidden": change.hidden,
    }


def _change(data: dict[str, Any]) -> Change:
    return Change(
        kind=str(data["kind"]),
        old=_clause(data["old"]),
        new=_clause(data["new"]),
        material=bool(data["material"]),
        reasons=tuple(str(r) for r in data["reasons"]),
        edits=tuple(WordEdit(str(op), str(old), str(new)) for op, old, new in data["edits"]),
        moved=bool(data["moved"]),
        note=str(data["note"]),
        hidden=bool(data["hidden"]),
    )


def save_comparison(
    library: Library,
    comparison: Comparison,
    old: tuple[str, str, str],
    new: tuple[str, str, str],
) -> int:
    """Store ``comparison`` of ``old`` and ``new`` (each ``(doc_id, title, file_type)``); its id."""
    result = {
        "format": RESULT_FORMAT,
        "paired_share": comparison.paired_share,
        "old_clauses": len(comparison.old_clauses),
        "new_clauses": len(comparison.new_clauses),
        "changes": [_change_json(c) for c in comparison.changes],
    }
    cursor = library.db.execute(
        "INSERT INTO comparisons (old_doc_id, new_doc_id, old_title, new_title, old_file_type, new_file_type, "
        "saved_at, verdict, message, result) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            old[0],
            new[0],
            old[1],
            new[1],
            old[2],
            new[2],
            now_iso(),
            comparison.verdict,
            comparison.message,
            json.dumps(result),
        ],
    )
    return int(cursor.lastrowid or 0)


_COLUMNS = (
    "comparison_id, old_doc_id, new_doc_id, old_title, new_title, old_file_type, new_file_type, saved_at, "
    "verdict, message"
)


def _saved(row: tuple[Any, ...]) -> SavedComparison:
    return SavedComparison(int(row[0]), *(str(v) for v in row[1:]))


def saved_comparisons(library: Library) -> list[SavedComparison]:
    """The saved comparisons, the latest first."""
    rows = library.db.execute(f"SELECT {_COLUMNS} FROM comparisons ORDER BY saved_at DESC, comparison_id DESC")
    return [_saved(r) for r in rows.fetchall()]


def load_comparison(library: Library, comparison_id: int) -> tuple[SavedComparison, Comparison]:
    row = library.db.execute(
        f"SELECT {_COLUMNS}, result FROM comparisons WHERE comparison_id = ?", [comparison_id]
    ).fetchone()
    if row is None:
        raise LibraryError(f"No saved comparison {comparison_id} in the library: it was deleted. Compare again.")
    saved = _saved(row[:-1])
    result = json.loads(row[-1])
    if result.get("format") != RESULT_FORMAT:
        raise LibraryError(
            f"The saved comparison {saved.name} was written by another Pagewise and cannot be read. "
            "Compare the two versions again."
        )
    changes = tuple(_change(c) for c in result["changes"])
    comparison = Comparison(
        verdict=saved.verdict,
        old_clauses=(),  # not kept: the changes carry their clauses
        new_clauses=(),
        changes=changes,
        paired_share=float(result["paired_share"]),
    )
    return saved, comparison


def delete_comparison(library: Library, comparison_id: int) -> None:
    library.db.execute("DELETE FROM comparisons WHERE comparison_id = ?", [comparison_id])

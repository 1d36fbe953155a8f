"""A comparison as JSON and as a Markdown report grouped by article."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from summarizer.compare.comparison import VERSIONS, Comparison
from summarizer.compare.differences import Change

if TYPE_CHECKING:
    from summarizer.compare.explain import Explanation
from summarizer.library.cutting.clause_units import PATH_SEPARATOR, ClauseUnit
from summarizer.page_labels import PARAGRAPH_MARK, unit_label

KIND_WORDS = {
    "added": "Added",
    "removed": "Removed",
    "moved": "Moved",
    "changed": "Changed",
    "renumbered": "Renumbered only",
    "formatting": "Formatting only",
    "split": "Split",
    "merged": "Merged",
}


def _change_json(change: Change, explanation: Explanation | None) -> dict[str, Any]:
    data = change.to_json()
    if explanation is not None:
        data["explanation"] = explanation.to_json()
    return data


def comparison_json(
    comparison: Comparison, *, show_hidden: bool = False, explanations: Mapping[int, Explanation] | None = None
) -> dict[str, Any]:
    """``explanations``: the model's sentences by change index (``summarizer.compare.explain``)."""
    explanations = explanations or {}
    return {
        "verdict": comparison.verdict,
        "message": comparison.message,
        "notes": list(comparison.notes),
        "amendment": comparison.amendment or None,
        "amended_sections": list(comparison.amended_sections),
        "old_clauses": len(comparison.old_clauses),
        "new_clauses": len(comparison.new_clauses),
        "changes": [
            _change_json(c, explanations.get(i))
            for i, c in enumerate(comparison.changes)
            if show_hidden or not c.hidden
        ],
    }


def location(clause: ClauseUnit | None, unit: str = "p.") -> str:
    if clause is None:
        return "—"
    pages = unit_label(clause.page_start, clause.page_end, word=unit == PARAGRAPH_MARK)
    return f"{clause.display_label} ({pages})"


def _article(change: Change) -> str:
    clause = change.new or change.old
    return clause.path[0] if clause is not None and clause.path else "Preamble"


def _word_diff(change: Change) -> str:
    parts = []
    for edit in change.edits:
        if edit.op == "equal":
            words = edit.old.split()
            parts.append(" ".join([*words[:6], "…", *words[-6:]]) if len(words) > 14 else edit.old)
        else:
            if edit.old:
                parts.append(f"~~{edit.old}~~")
            if edit.new:
                parts.append(f"**{edit.new}**")
    return " ".join(parts)


def comparison_markdown(
    comparison: Comparison,
    old_title: str,
    new_title: str,
    units: tuple[str, str] = ("p.", "p."),
    explanations: Mapping[int, Explanation] | None = None,
) -> str:
    explanations = explanations or {}
    lines = [f"# Comparison: {old_title} → {new_title}", "", comparison.message, ""]
    lines += [line for note in comparison.notes for line in (f"**Note:** {note}", "")]
    if comparison.verdict != VERSIONS:
        return "\n".join(lines)
    lines += [
        "Found by aligning the clauses of both versions and comparing their words; no model was used. "
        "Material marks follow fixed rules (numbers, amounts, dates, periods, shall/may, not, names, "
        "governing law, caps, exclusions, placeholders) and say which one fired.",
        "",
    ]
    article = None
    for index, change in enumerate(comparison.changes):
        if change.hidden:
            continue
        if _article(change) != article:
            article = _article(change)
            lines += [f"## {article}", ""]
        mark = " — **material**: " + "; ".join(change.reasons) if change.material else ""
        moved = " (also moved)" if change.moved else ""
        note = f" ({change.note})" if change.note else ""
        lines.append(
            f"- **{KIND_WORDS.get(change.kind, change.kind)}**{moved}{note}: "
            f"{location(change.old, units[0])} → {location(change.new, units[1])}{mark}"
        )
        if change.edits:
            lines.append(f"  - {_word_diff(change)}")
        elif change.kind == "added" and change.new is not None:
            lines.append(f"  - {change.new.text[:300]}")
        elif change.kind == "removed" and change.old is not None:
            lines.append(f"  - ~~{change.old.text[:300]}~~")
        if (explained := explanations.get(index)) is not None:
            lines.append(f"  - *{explained.by}'s reading (a model's, not checked):* {explained.text}")
    lines.append("")
    return "\n".join(lines)


__all__ = ["PATH_SEPARATOR", "comparison_json", "comparison_markdown", "location"]

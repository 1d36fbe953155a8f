"""A comparison as JSON and as a Markdown report grouped by article."""

from __future__ import annotations

import re
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


_SPACE_BEFORE = re.compile(r"\s+([,;:.!?)\]%’'])")
_SPACE_AFTER = re.compile(r"([(\[$“])\s+")
_CONTRACTION = re.compile(r"([’'])\s+(s|t|d|ll|re|ve|m)\b")
_NUMBER_DOT = re.compile(r"(\d)\s\.\s(?=\d)")


def readable(text: str) -> str:
    """Word tokens joined back as they are written: "( b ) breaches Section 2 . 1 ;" →
    "(b) breaches Section 2.1;"."""
    text = _NUMBER_DOT.sub(r"\1.", text)
    text = _SPACE_BEFORE.sub(r"\1", text)
    text = _CONTRACTION.sub(r"\1\2", text)
    return _SPACE_AFTER.sub(r"\1", text)


def markdown_word_diff(change: Change) -> str:
    """The word diff as Markdown, its words joined as written ("Meetings. Contractor ~~shall~~
    **may**", "(~~5~~ **15**)"), not token by token ("Meetings . Contractor", "( ~~5~~ **15** )":
    the walk of 2026-12-06, finding 22); the window's diff_html joins them the same way."""
    parts: list[str] = []
    for edit in change.edits:
        if edit.op == "equal":
            words = edit.old.split()
            _join(parts, readable(" ".join([*words[:6], "…", *words[-6:]]) if len(words) > 14 else edit.old))
        else:
            if edit.old:
                _join(parts, f"~~{readable(edit.old)}~~")
            if edit.new:
                _join(parts, f"**{readable(edit.new)}**")
    return " ".join(parts)


def _join(parts: list[str], text: str) -> None:
    """Add ``text`` to the diff's parts: glued to the one before after an opening bracket or before
    closing punctuation, else a part of its own (joined by a space)."""
    if parts and (text[:1] in ",;:.!?)]%’" or parts[-1][-1:] in "([$“"):
        parts[-1] += text
    else:
        parts.append(text)


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
            lines.append(f"  - {markdown_word_diff(change)}")
        elif change.kind == "added" and change.new is not None:
            lines.append(f"  - {change.new.text[:300]}")
        elif change.kind == "removed" and change.old is not None:
            lines.append(f"  - ~~{change.old.text[:300]}~~")
        if (explained := explanations.get(index)) is not None:
            lines.append(f"  - *{explained.by}'s reading (a model's, not checked):* {explained.text}")
    lines.append("")
    return "\n".join(lines)


__all__ = ["PATH_SEPARATOR", "comparison_json", "comparison_markdown", "location"]

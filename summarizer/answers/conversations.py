"""Each document's conversation, kept in the library: its questions and answers, in order.

    turns = list_turns(library, doc_id)
    append_turn(library, doc_id, question, answer)      # answer: an ``Answer`` or its JSON
    clear_conversation(library, doc_id)

``history(turns)`` gives the turns in the form ``summarizer.answers.answer`` carries into the next
prompt. Removing a document removes its conversation.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Protocol

from summarizer.library.storage.store import Library, now_iso


class _AnswerLike(Protocol):
    text: str

    def to_json(self) -> dict[str, Any]: ...


@dataclass(frozen=True, slots=True)
class Turn:
    turn_id: int
    doc_id: str
    question: str
    answer: str
    answer_json: dict[str, Any]
    created_at: str


@dataclass(frozen=True, slots=True)
class HistoryTurn:
    """A past question and its answer, as carried into a follow-up prompt."""

    question: str
    answer: str


def list_turns(library: Library, doc_id: str) -> list[Turn]:
    rows = library.db.execute(
        "SELECT turn_id, doc_id, question, answer, answer_json, created_at FROM conversation_turns "
        "WHERE doc_id = ? ORDER BY turn_id",
        [doc_id],
    ).fetchall()
    return [Turn(int(r[0]), str(r[1]), str(r[2]), str(r[3]), json.loads(r[4]), str(r[5])) for r in rows]


def append_turn(library: Library, doc_id: str, question: str, answer: _AnswerLike | dict[str, Any]) -> Turn:
    """Record a question and its answer (an ``Answer``, or the dict of its ``to_json()``)."""
    library.document(doc_id)  # DocumentNotFound with a helpful message
    data = answer if isinstance(answer, dict) else answer.to_json()
    text = str(data.get("answer", "")) if isinstance(answer, dict) else answer.text
    created = now_iso()
    cursor = library.db.execute(
        "INSERT INTO conversation_turns (doc_id, question, answer, answer_json, created_at) VALUES (?, ?, ?, ?, ?)",
        [doc_id, question, text, json.dumps(data, ensure_ascii=False), created],
    )
    return Turn(int(cursor.lastrowid or 0), doc_id, question, text, data, created)


def clear_conversation(library: Library, doc_id: str) -> int:
    """Forget a document's conversation. Returns how many turns were removed."""
    cursor = library.db.execute("DELETE FROM conversation_turns WHERE doc_id = ?", [doc_id])
    return int(cursor.rowcount)


def history(turns: list[Turn]) -> list[HistoryTurn]:
    return [HistoryTurn(turn.question, turn.answer) for turn in turns]

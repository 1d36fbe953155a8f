"""A document's text as the summarizer reads it: passages in order, without their overlap.

Passages overlap a little (for search), so their texts cannot simply be joined. Each passage's
page spans point into the raw page text; clipping every span at what earlier passages already
covered gives each passage's *new* text, and those join into the document once.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass

from summarizer.library.storage.store import Library


@dataclass(frozen=True, slots=True)
class PassageRecord:
    passage_id: int
    seq: int
    text: str
    page_start: int
    page_end: int
    spans: tuple[tuple[int, int, int], ...]


@dataclass(frozen=True, slots=True)
class PassagePiece:
    """The part of a passage that earlier passages did not cover (its raw page text)."""

    seq: int
    text: str
    page_start: int
    page_end: int


def read_passages(library: Library, doc_id: str) -> list[PassageRecord]:
    rows = library.db.execute(
        "SELECT passage_id, seq, text, page_start, page_end, spans FROM passages WHERE doc_id = ? ORDER BY seq",
        [doc_id],
    ).fetchall()
    return [
        PassageRecord(
            passage_id=int(r[0]),
            seq=int(r[1]),
            text=str(r[2]),
            page_start=int(r[3]),
            page_end=int(r[4]),
            spans=tuple((int(s[0]), int(s[1]), int(s[2])) for s in json.loads(r[5])),
        )
        for r in rows
    ]


def read_pages(library: Library, doc_id: str) -> dict[int, str]:
    rows = library.db.execute("SELECT page, text FROM pages WHERE doc_id = ? ORDER BY page", [doc_id]).fetchall()
    return {int(r[0]): str(r[1]) for r in rows}


def passages_fingerprint(library: Library, doc_id: str) -> str:
    """Changes whenever the document's passages do (passage ids are never reused)."""
    row = library.db.execute(
        "SELECT d.content_sha256, COUNT(p.passage_id), MIN(p.passage_id), MAX(p.passage_id) "
        "FROM documents d LEFT JOIN passages p ON p.doc_id = d.doc_id WHERE d.doc_id = ? GROUP BY d.doc_id",
        [doc_id],
    ).fetchone()
    return hashlib.sha256(json.dumps(list(row) if row else [doc_id]).encode()).hexdigest()[:32]


def passage_pieces(passages: list[PassageRecord], pages: dict[int, str]) -> list[PassagePiece]:
    """Each passage's text minus what the passages before it already covered."""
    covered: dict[int, int] = {}  # page -> end of the text already taken from it
    last: tuple[int, int] | None = None  # (page, end) of the previous slice
    pieces: list[PassagePiece] = []
    for passage in passages:
        parts: list[str] = []
        for page, start, end in passage.spans:
            start = max(start, covered.get(page, 0))
            if start >= end:
                continue
            raw = pages.get(page, "")
            parts.append(_separator(last, page, start) + raw[start:end])
            covered[page] = end
            last = (page, end)
        pieces.append(PassagePiece(passage.seq, "".join(parts), passage.page_start, passage.page_end))
    return pieces


def _separator(last: tuple[int, int] | None, page: int, start: int) -> str:
    if last is None or last == (page, start):
        return ""  # the text continues where the previous slice ended
    return "\n" if last[0] != page else " "


_SPACES = re.compile(r"[^\S\n]+")  # any whitespace but a newline: no-break spaces, tabs...
_LINE_EDGES = re.compile(r" ?\n ?")
_BLANK_LINES = re.compile(r"\n{3,}")


def llm_text(text: str) -> str:
    """Text as the LLM is given it: no-break spaces and runs of spaces become one space, blank
    lines at most one. PDF text is full of no-break spaces, which cost a token each (SmolLM2:
    19,492 tokens for the 17-page sample contract, 10,900 after this)."""
    text = _SPACES.sub(" ", text)
    text = _LINE_EDGES.sub("\n", text)
    return _BLANK_LINES.sub("\n\n", text).strip()

"""What the library keeps of a Word document beyond its text: each paragraph's number, level, style
and page, its tracked changes and its comments (tables of migration 8), and the locators made
from them ("§ 9.1(a) Liability Caps, ¶ 95–97, p. 10"); and its paragraphs as a model reads them,
each after its label ("[¶ 74] (a) If …", ``labelled_paragraphs``: the answer and review prompts)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from summarizer.library.reading.docx_document import Comment, DocxDocument, DocxParagraph, TrackedChange
from summarizer.library.reading.docx_locator import Locator, clause_chain, clause_reference, locate
from summarizer.library.storage.document_text import llm_text
from summarizer.library.storage.store import Library
from summarizer.page_labels import PROMPT, paragraph_label

WORD = "docx"
# Narrows a passage's (first, last) paragraphs to those that hold the words it was found by
# (summarizer.search.word_matches.matching), so that its locator names the clause that matched.
Narrow = Callable[[Sequence[DocxParagraph], int, int], tuple[int, int]]


def save_word_parts(library: Library, doc_id: str, document: DocxDocument) -> None:
    """Replace the document's stored paragraphs, changes and comments (call inside a transaction)."""
    db = library.db
    for table in ("word_paragraphs", "word_changes", "word_comments"):
        db.execute(f"DELETE FROM {table} WHERE doc_id = ?", [doc_id])
    db.conn.executemany(
        "INSERT INTO word_paragraphs (doc_id, paragraph, number, list_level, style, heading_level, page, table_row) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (doc_id, p.index, p.number, p.list_level, p.style, p.heading_level, p.page, int(p.table_row))
            for p in document.paragraphs
        ],
    )
    db.conn.executemany(
        "INSERT INTO word_changes (doc_id, seq, paragraph, kind, author, date, text) VALUES (?, ?, ?, ?, ?, ?, ?)",
        [(doc_id, seq, c.paragraph, c.kind, c.author, c.date, c.text) for seq, c in enumerate(document.changes)],
    )
    db.conn.executemany(
        "INSERT INTO word_comments (doc_id, seq, paragraph, author, date, text) VALUES (?, ?, ?, ?, ?, ?)",
        [(doc_id, seq, c.paragraph, c.author, c.date, c.text) for seq, c in enumerate(document.comments)],
    )


def file_types(library: Library, doc_ids: Iterable[str]) -> dict[str, str]:
    ids = list(doc_ids)
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    rows = library.db.execute(f"SELECT doc_id, file_type FROM documents WHERE doc_id IN ({marks})", ids)
    return {str(r[0]): str(r[1]) for r in rows.fetchall()}


def word_paragraphs(library: Library, doc_id: str) -> list[DocxParagraph]:
    """A stored Word document's paragraphs, with their text as stored (the number stripped off)."""
    rows = library.db.execute(
        "SELECT w.paragraph, p.text, w.number, w.style, w.heading_level, w.page, w.table_row, w.list_level "
        "FROM word_paragraphs w LEFT JOIN pages p ON p.doc_id = w.doc_id AND p.page = w.paragraph "
        "WHERE w.doc_id = ? ORDER BY w.paragraph",
        [doc_id],
    ).fetchall()
    out = []
    for index, text, number, style, heading_level, page, table_row, list_level in rows:
        text = str(text or "")
        if number and text.startswith(str(number)):
            text = text[len(str(number)) :].strip()
        paragraph = DocxParagraph(int(index), text, number, str(style), heading_level, page, bool(table_row))
        out.append(dataclasses.replace(paragraph, list_level=list_level))
    return out


def passage_locators(
    library: Library, doc_id: str, ranges: Iterable[tuple[int, int]], narrow: Narrow | None = None
) -> list[Locator]:
    """The locator of each (first, last) paragraph range of a stored Word document; with
    ``narrow``, of the paragraphs of the range it keeps."""
    paragraphs = word_paragraphs(library, doc_id)
    out = []
    for first, last in ranges:
        if narrow is not None:
            first, last = narrow(paragraphs, first, last)
        out.append(locate(paragraphs, first, last))
    return out


def locators_of(
    library: Library, spans: Iterable[tuple[str, int, int]], *, short: bool = False, narrow: Narrow | None = None
) -> dict[tuple[str, int, int], str]:
    """The locator of each (doc_id, page_start, page_end) of a Word document among ``spans``, as
    text (``short``: clause and paragraphs alone); a PDF's spans are left out (their pages say
    where they are), and so is page 0 (a clause citation that matched no clause given). With
    ``narrow``, each names the paragraphs of its span that hold the words it was found by."""
    wanted = [span for span in spans if span[1] >= 1]
    word = {d for d, kind in file_types(library, {d for d, _, _ in wanted}).items() if kind == WORD}
    out: dict[tuple[str, int, int], str] = {}
    for doc_id in sorted(word):
        ranges = sorted({(a, b) for d, a, b in wanted if d == doc_id})
        for (first, last), locator in zip(ranges, passage_locators(library, doc_id, ranges, narrow), strict=True):
            out[(doc_id, first, last)] = locator.short if short else str(locator)
    return out


def paragraph_clauses(library: Library, doc_id: str, first: int = 1, last: int | None = None) -> list[tuple[str, int]]:
    """(clause reference, paragraph) for each paragraph ``first``..``last`` of a stored Word
    document that sits in a numbered clause: what a clause citation ("[§ 7.2(a)]") of an answer
    is checked against (``summarizer.answers.citations``)."""
    paragraphs = word_paragraphs(library, doc_id)
    out = []
    for position, paragraph in enumerate(paragraphs):
        if paragraph.index < first or (last is not None and paragraph.index > last):
            continue
        reference = clause_reference(clause_chain(paragraphs, position))
        if reference:
            out.append((reference, paragraph.index))
    return out


def labelled_paragraphs(paragraphs: Iterable[tuple[int, str]]) -> str:
    """A Word document's paragraphs ``(number, text)`` as the model reads them: one a line, each
    after its label, "[¶ 74] (a) If …", so that it can cite the paragraph that holds a fact rather
    than a passage's first one (issue 56, item 1). The answer prompt's passages and whole documents
    and the review's reading units (``summarizer.review.item_answers``) are written with it."""
    return "\n".join(
        f"[{paragraph_label(number, style=PROMPT)}] {llm_text(text)}" for number, text in paragraphs if llm_text(text)
    )


MAX_NOTES = 8  # tracked changes and comments listed under one passage
MAX_DOCUMENT_NOTES = 60  # listed after a Word document given whole
NOTE_CHARS = 120
NOTES_HEADING = "Tracked changes and comments here (the text above has the changes accepted):"
DOCUMENT_NOTES_HEADING = "Tracked changes and comments in this document (the text above has the changes accepted):"


def _note_lines(library: Library, doc_id: str, first: int, last: int, noted: Sequence[Comment]) -> list[str]:
    """Who changed what in paragraphs ``first``..``last``, then the comments anchored there."""
    lines = []
    for change in tracked_changes(library, doc_id, first, last):
        if change.kind == "format" or change.text in ("", "¶"):
            continue
        verb = "inserted" if change.kind == "insertion" else "deleted"
        where = paragraph_label(change.paragraph, style=PROMPT)
        lines.append(f"- {change.author or 'someone'} {verb} “{_cut(change.text)}” ({where})")
    for comment in noted:
        if comment.paragraph is not None and first <= comment.paragraph <= last:
            where = paragraph_label(comment.paragraph, style=PROMPT)
            lines.append(f"- comment by {comment.author or 'someone'} on {where}: “{_cut(comment.text)}”")
    return lines


def _notes_text(heading: str, lines: list[str], most: int) -> str:
    more = len(lines) - most
    return "\n".join([heading, *lines[:most], *([f"- and {more} more"] if more > 0 else [])])


def review_notes(library: Library, passages: Iterable[Any]) -> dict[int, str]:
    """For each passage of a Word document (``passage_id``, ``doc_id``, ``page_start``,
    ``page_end``) with tracked changes or comments in its paragraphs, the lines an answer prompt
    shows under it: who changed what (the passage reads with the changes accepted) and the
    comments, so that a question about them ("what did the other side change?") can be answered."""
    out: dict[int, str] = {}
    wanted = list(passages)
    word = {d for d, kind in file_types(library, {p.doc_id for p in wanted}).items() if kind == WORD}
    for passage in wanted:
        if passage.doc_id not in word:
            continue
        noted = comments(library, passage.doc_id)
        lines = _note_lines(library, passage.doc_id, passage.page_start, passage.page_end, noted)
        if lines:
            out[passage.passage_id] = _notes_text(NOTES_HEADING, lines, MAX_NOTES)
    return out


def document_notes(library: Library, doc_id: str) -> str:
    """The tracked changes and comments of a whole Word document, as its full text in the answer
    prompt is followed by them (the text reads with the changes accepted); "" when it has none
    (or is not a Word document)."""
    if file_types(library, [doc_id]).get(doc_id) != WORD:
        return ""
    lines = _note_lines(library, doc_id, 1, 1 << 62, comments(library, doc_id))
    return _notes_text(DOCUMENT_NOTES_HEADING, lines, MAX_DOCUMENT_NOTES) if lines else ""


def _cut(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= NOTE_CHARS else text[: NOTE_CHARS - 1] + "…"


def tracked_changes(library: Library, doc_id: str, first: int = 1, last: int | None = None) -> list[TrackedChange]:
    rows = library.db.execute(
        "SELECT kind, author, date, text, paragraph FROM word_changes WHERE doc_id = ? AND paragraph >= ? "
        "AND paragraph <= ? ORDER BY seq",
        [doc_id, first, last if last is not None else 1 << 62],
    ).fetchall()
    return [TrackedChange(str(k), str(a), str(d), str(t), int(p)) for k, a, d, t, p in rows]


def comments(library: Library, doc_id: str) -> list[Comment]:
    rows = library.db.execute(
        "SELECT seq, author, date, text, paragraph FROM word_comments WHERE doc_id = ? ORDER BY seq", [doc_id]
    ).fetchall()
    return [Comment(str(s), str(a), str(d), str(t), p) for s, a, d, t, p in rows]

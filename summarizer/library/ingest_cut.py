"""The cutting step of ingest: a document's stored pages cut into passages and clauses, written
into the library.

The pages are read back from the library (never from the file), so the same step re-cuts a
document added by an older Pagewise (``Ingestor.recut``). A PDF's pages without usable text are
listed for OCR unless OCR found them not to be scans; a filing's running headers and footers are
left out of its passages. Passages cut exactly as the stored ones are kept as they are, with
their ids, vectors and the summaries made of them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import sqlite_utils

from summarizer.library.cutting.clause_units import document_clauses, pdf_clauses
from summarizer.library.cutting.passages import split_passages
from summarizer.library.reading.document_kind import FILING, document_kind
from summarizer.library.reading.file_type import WORD
from summarizer.library.reading.page_furniture import without_furniture
from summarizer.library.reading.page_status import page_warnings
from summarizer.library.storage.store import PASSAGE_FORMAT, Library, now_iso, transaction

WORDS_PER_PAGE = 400


@dataclass(frozen=True, slots=True)
class CutOptions:
    """How passages are cut: their size in the tokenizer's tokens and in characters, the tokens two
    passages share, and the document's kind when it is given rather than decided from its text."""

    max_tokens: int
    max_chars: int
    overlap: int
    kind: str | None = None


def cut_passages(library: Library, doc_id: str, file_type: str, tokenizer: Any, options: CutOptions) -> None:
    """Cut the document's stored pages into passages and clauses, store them and move the document
    to ``embedding`` (with its warnings, pages needing OCR, unreadable pages and kind)."""
    from summarizer.library.reading.ocr_pages import ocr_warnings, outcome, usable_text

    db = library.db
    pages = list(_pages(db, doc_id))  # page texts of one document; passages stream below
    if file_type == WORD:
        _cut_word(library, doc_id, pages, tokenizer, options)
        return
    read = outcome(library, doc_id)
    no_text = [n for n, text in pages if not usable_text(text) and n not in read.read]
    if len(no_text) < len(pages):
        # A page with little or no text that draws no image ("Date:", a blank separator)
        # is not a scan; a document with no text anywhere still needs OCR, however drawn.
        no_text = [n for n in no_text if n not in read.not_scans]
    ocr_pages = no_text
    bad_pages = [
        int(r[0]) for r in db.execute("SELECT page FROM pages WHERE doc_id = ? AND error IS NOT NULL", [doc_id])
    ]
    total = int(db.execute("SELECT pages FROM documents WHERE doc_id = ?", [doc_id]).fetchone()[0])
    warnings = [*page_warnings(total, ocr_pages, bad_pages, read.not_scans), *ocr_warnings(read)]
    readable = [(n, t) for n, t in pages if usable_text(t)]
    kind = options.kind or document_kind(t for _, t in readable)
    if kind == FILING:
        readable = without_furniture(readable)  # running headers and footers stay out of passages
    _store(db, doc_id, readable, tokenizer, options, kind, warnings, ocr_pages, bad_pages, pdf=kind != FILING)


def _pages(db: sqlite_utils.Database, doc_id: str) -> Iterator[tuple[int, str]]:
    cursor = db.conn.execute("SELECT page, text FROM pages WHERE doc_id = ? AND error IS NULL ORDER BY page", [doc_id])
    while rows := cursor.fetchmany(64):
        yield from ((int(r[0]), str(r[1])) for r in rows)


def _cut_word(library: Library, doc_id: str, pages: list[tuple[int, str]], tokenizer: Any, options: CutOptions) -> None:
    """A Word document's paragraphs are its pages: each has text (none is a scan to OCR), and its
    headers and footers were kept apart when it was read."""
    stored = library.db.execute("SELECT warnings FROM documents WHERE doc_id = ?", [doc_id]).fetchone()
    warnings = [w for w in json.loads(stored[0] or "[]") if isinstance(w, str)]
    readable = [(n, t) for n, t in pages if t.strip()]
    kind = options.kind or document_kind(_page_sized(t for _, t in readable))
    _store(library.db, doc_id, readable, tokenizer, options, kind, warnings, [], [])


def _store(
    db: sqlite_utils.Database,
    doc_id: str,
    readable: list[tuple[int, str]],
    tokenizer: Any,
    options: CutOptions,
    kind: str,
    warnings: list[str],
    ocr_pages: list[int],
    bad_pages: list[int],
    *,
    pdf: bool = False,  # a PDF's clauses are cut without its page furniture (a filing's pages come without it)
) -> None:
    rows = [
        (
            p.seq,
            p.text,
            p.search_text,
            json.dumps([[s.page, s.start, s.end] for s in p.spans]),
            p.page_start,
            p.page_end,
            p.n_tokens,
            p.heading,
        )
        for p in split_passages(
            readable,
            tokenizer,
            max_tokens=options.max_tokens,
            max_chars=options.max_chars,
            overlap_tokens=options.overlap,
            kind=kind,
        )
    ]
    clause_rows = [
        (
            doc_id,
            c.index,
            c.label,
            ".".join(c.number),
            c.title,
            json.dumps(list(c.path)),
            c.page_start,
            c.start,
            c.page_end,
            c.end,
            c.text,
        )
        for c in (pdf_clauses(readable) if pdf else document_clauses(readable))
    ]
    with transaction(db):
        db.execute("DELETE FROM clauses WHERE doc_id = ?", [doc_id])
        db.conn.executemany(
            'INSERT INTO clauses (doc_id, seq, label, number, title, path, page_start, start, page_end, "end", '
            "text) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            clause_rows,
        )
        if rows != _stored_passages(db, doc_id):
            # The same passages are kept as they are (with their ids, vectors and the
            # summaries made of them): an upgrade that cuts a document alike costs nothing.
            db.execute("DELETE FROM passages WHERE doc_id = ?", [doc_id])
            db.conn.executemany(
                "INSERT INTO passages (doc_id, seq, text, search_text, spans, page_start, page_end, n_tokens, "
                "heading) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(doc_id, *row) for row in rows],
            )
        db.execute(
            "UPDATE documents SET state = 'embedding', warnings = ?, ocr_pages = ?, "
            "bad_pages = ?, chunk_tokenizer = ?, chunk_max_tokens = ?, chunk_overlap = ?, passage_format = ?, "
            "kind = ?, updated_at = ? WHERE doc_id = ?",
            [
                json.dumps(warnings),
                json.dumps(ocr_pages),
                json.dumps(bad_pages),
                tokenizer.name,
                options.max_tokens,
                options.overlap,
                PASSAGE_FORMAT,
                kind,
                now_iso(),
                doc_id,
            ],
        )


def _stored_passages(db: sqlite_utils.Database, doc_id: str) -> list[tuple[Any, ...]]:
    return [
        tuple(r)
        for r in db.execute(
            "SELECT seq, text, search_text, spans, page_start, page_end, n_tokens, heading FROM passages "
            "WHERE doc_id = ? ORDER BY seq",
            [doc_id],
        ).fetchall()
    ]


def _page_sized(paragraphs: Iterable[str]) -> Iterator[str]:
    """A Word document's paragraphs joined into runs of about a printed page's words: the kind is
    decided from pages (its first 60, counting signals such as pages of numbers), and 60 paragraphs
    of a cover page's table rows would make a contract look like a financial report."""
    run: list[str] = []
    words = 0
    for text in paragraphs:
        run.append(text)
        words += len(text.split())
        if words >= WORDS_PER_PAGE:
            yield "\n".join(run)
            run, words = [], 0
    if run:
        yield "\n".join(run)

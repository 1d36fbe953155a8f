"""Documents written straight into a library (no PDF, no embeddings), for summarizer tests."""

from __future__ import annotations

import hashlib
import json
import re

from summarizer.library.storage.store import Library, now_iso, transaction


def add_document(
    library: Library,
    pages: list[str],
    *,
    title: str = "Test Agreement",
    words_per_passage: int = 40,
    overlap_chars: int = 0,
    doc_id: str | None = None,
) -> str:
    """Add a document whose passages are runs of ``words_per_passage`` words of each page,
    each starting ``overlap_chars`` before the previous one ended (on the same page)."""
    sha = hashlib.sha256(("\f".join(pages) + title).encode()).hexdigest()
    doc_id = doc_id or sha[:12]
    now = now_iso()
    with transaction(library.db):
        library.db.execute(
            "INSERT INTO documents (doc_id, path, title, pages, content_sha256, status, state, pages_done, "
            "added_at, updated_at) VALUES (?, ?, ?, ?, ?, 'indexed', 'ready', ?, ?, ?)",
            [doc_id, f"/tmp/{doc_id}.pdf", title, len(pages), sha, len(pages), now, now],
        )
        seq = 0
        for number, text in enumerate(pages, start=1):
            library.db.execute("INSERT INTO pages (doc_id, page, text) VALUES (?, ?, ?)", [doc_id, number, text])
            words = [m.span() for m in re.finditer(r"\S+", text)]
            for first in range(0, len(words), words_per_passage):
                run = words[first : first + words_per_passage]
                start = max(0, run[0][0] - overlap_chars) if first else run[0][0]
                end = run[-1][1]
                passage = text[start:end]
                library.db.execute(
                    "INSERT INTO passages (doc_id, seq, text, search_text, spans, page_start, page_end, n_tokens) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    [
                        doc_id,
                        seq,
                        passage,
                        passage.lower(),
                        json.dumps([[number, start, end]]),
                        number,
                        number,
                        len(run),
                    ],
                )
                seq += 1
    return doc_id


def numbered_pages(n_pages: int, words_per_page: int = 120) -> list[str]:
    """Pages of distinct words (``w<page>_<i>``), with a clause on each page for search tests."""
    pages = []
    for page in range(1, n_pages + 1):
        words = [f"w{page}_{i}" for i in range(words_per_page)]
        words.insert(5, f"clause{page}")
        pages.append(" ".join(words) + ".")
    return pages

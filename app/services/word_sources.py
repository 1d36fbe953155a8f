"""The passages of a Word document given to the model for an answer, each shown by the paragraphs
of it that hold the question's words (summarizer/search/word_matches.py): the link names, and a
click highlights, the clause that matched, not the passage's first one (issue 56, item 1)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from summarizer.library.reading.docx_document import DocxParagraph
from summarizer.library.reading.docx_locator import locate
from summarizer.library.storage.store import Library
from summarizer.library.word_parts import WORD, file_types, word_paragraphs
from summarizer.search.word_matches import matched_paragraphs

if TYPE_CHECKING:  # answering imports this module
    from app.services.answering import CitationView


def matched_sources(
    library: Library, views: Sequence[CitationView], ends: Sequence[int], question: str
) -> list[CitationView]:
    """``views`` (passages from their first page to ``ends``) with those of Word documents moved to
    the paragraphs that hold ``question``'s words, and labelled by them ("§ 5.2(a), ¶ 76")."""
    word = {d for d, kind in file_types(library, {v.doc_id for v in views}).items() if kind == WORD}
    documents: dict[str, list[DocxParagraph]] = {}
    out = []
    for view, end in zip(views, ends, strict=True):
        if view.doc_id not in word:
            out.append(view)
            continue
        paragraphs = documents.setdefault(view.doc_id, word_paragraphs(library, view.doc_id))
        first, last = matched_paragraphs(paragraphs, view.page, max(view.page, end), question)
        label = locate(paragraphs, first, last).short
        out.append(replace(view, page=first, page_end=last if last > first else 0, label=label))
    return out

"""Which paragraphs of a Word passage hold the words it was found by, so that its label, highlight
and quote name the clause that matched rather than the passage's first one (issue 56, item 1).

A passage of a Word contract often holds several short clauses (12.3 to 12.6 in one). Its matched
words are the query's content words it holds: the query's words less stop words and words of two
letters, each cut to its first ``STEM_CHARS`` letters so that "assign" finds "Assignment" and
"terminate" "termination". The matched paragraphs are the fewest consecutive paragraphs of the
passage that hold every matched word (one clause where one holds them all, else the range of
clauses they are spread over), and among runs as short, the one with the paragraph that holds the
most of them, then the first; when it holds none, the whole passage (its label then names the
range of clauses it covers). Before, the paragraph(s) holding the most words were kept, which
named a clause holding only some of a review item's words (its query is long) and, where several
paragraphs tied, the range from the first to the last of them however far apart
(docs/word-documents.md, "Citations"). A review item's
query is its question and search queries together; a search's, the query typed; an answer's
passage link, the question asked (an answer's own citation names the paragraph the model cited,
and needs none of this).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from summarizer.library.reading.docx_document import DocxParagraph
from summarizer.library.word_parts import Narrow
from summarizer.search.fts_query import STOPWORDS

STEM_CHARS = 5
_WORD = re.compile(r"[^\W_]+")


def stems(text: str) -> set[str]:
    """The content words of ``text``, lower-cased and cut to ``STEM_CHARS`` letters."""
    words = (w.lower() for w in _WORD.findall(text))
    return {w[:STEM_CHARS] for w in words if len(w) > 2 and w not in STOPWORDS}


def matched_paragraphs(paragraphs: Sequence[DocxParagraph], first: int, last: int, query: str) -> tuple[int, int]:
    """The first and last paragraph (1-based ``DocxParagraph.index``) of the fewest consecutive
    paragraphs among ``first``..``last`` that hold every content word of ``query`` those hold;
    ``(first, last)`` when they hold none."""
    wanted = stems(query)
    held = [(p.index, wanted & stems(f"{p.number or ''} {p.text}")) for p in paragraphs if first <= p.index <= last]
    matched = set().union(*(words for _, words in held))
    if not matched:
        return first, last
    best: tuple[int, int, int, int] | None = None  # (length, -most words in one paragraph, start, end)
    for start in range(len(held)):
        found: set[str] = set()
        for end in range(start, len(held)):
            found |= held[end][1]
            if found >= matched:
                most = max(len(words) for _, words in held[start : end + 1])
                run = (end - start, -most, start, end)
                best = run if best is None or run < best else best
                break
    if best is None:  # not reached: the whole passage holds every matched word
        return first, last
    return held[best[2]][0], held[best[3]][0]


def matching(query: str) -> Narrow:
    """``matched_paragraphs`` for ``query``, as ``summarizer.library.word_parts.locators_of`` takes it."""

    def narrow(paragraphs: Sequence[DocxParagraph], first: int, last: int) -> tuple[int, int]:
        return matched_paragraphs(paragraphs, first, last, query)

    return narrow

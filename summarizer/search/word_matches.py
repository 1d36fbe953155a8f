"""Which paragraphs of a Word passage hold the words it was found by, so that its label, highlight
and quote name the clause that matched rather than the passage's first one (issue 56, item 1).

A passage of a Word contract often holds several short clauses (12.3 to 12.6 in one). The matched
paragraphs are those of the passage sharing the most distinct content words with the query: the
query's words less stop words and words of two letters, each cut to its first ``STEM_CHARS``
letters so that "assign" finds "Assignment" and "terminate" "termination". When several paragraphs
share the highest count, the range from the first to the last of them is kept; when none shares a
word, the whole passage (its label then names the range of clauses it covers). A review item's
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
    """The first and last paragraph (1-based ``DocxParagraph.index``) among ``first``..``last``
    that share the most content words with ``query``; ``(first, last)`` when none shares one."""
    wanted = stems(query)
    scores: dict[int, int] = {}
    for paragraph in paragraphs:
        if first <= paragraph.index <= last:
            scores[paragraph.index] = len(wanted & stems(f"{paragraph.number or ''} {paragraph.text}"))
    best = max(scores.values(), default=0)
    if best == 0:
        return first, last
    top = [index for index, score in scores.items() if score == best]
    return min(top), max(top)


def matching(query: str) -> Narrow:
    """``matched_paragraphs`` for ``query``, as ``summarizer.library.word_parts.locators_of`` takes it."""

    def narrow(paragraphs: Sequence[DocxParagraph], first: int, last: int) -> tuple[int, int]:
        return matched_paragraphs(paragraphs, first, last, query)

    return narrow

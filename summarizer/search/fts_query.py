"""Turning whatever a user typed into a safe FTS5 query.

Every word becomes a quoted string term, so quotes, hyphens, ``AND``/``OR``/``NOT``, ``*``,
parentheses, ``§`` and column filters are never read as FTS5 syntax. Terms are joined with
OR and BM25 ranks passages holding more (and rarer) terms higher.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

WORD = re.compile(r"\w+", re.UNICODE)  # what a query's words are (FTS5's unicode61 tokens)
MAX_TERMS = 64
# Words so common that matching them ranks nothing but costs a scan of most passages.
# Dropped unless the query has no other word.
STOPWORDS = frozenset(
    "a an and are as at be been but by can do does for from had has have he her his how i if in into is it its "
    "may me my no not of on or our she so such that the their them then there these they this those to was we "
    "were what when where which who whom why will with would you your".split()
)


def fts_terms(text: str) -> list[str]:
    seen: dict[str, None] = {}
    for match in WORD.finditer(text):
        word = match.group(0).lower()
        if word not in seen:
            seen[word] = None
    words = list(seen)
    content = [w for w in words if w not in STOPWORDS]
    return (content or words)[:MAX_TERMS]


def fts_string(text: str) -> str:
    """``text`` as one FTS5 string (a word, or words in a row), its quotes doubled."""
    return '"' + text.replace('"', '""') + '"'


def fts_query(text: str, extra_terms: Sequence[str] = (), drop: Collection[str] = ()) -> str | None:
    """An FTS5 MATCH expression for ``text``, or None when it holds no searchable word.

    ``extra_terms`` (query expansion) are added to it; one of several words is searched as a
    phrase ("first refusal" matches those two words in a row). Single words in ``drop`` (lower
    case) are left out, unless nothing else would be left.
    """
    terms = fts_terms(text)
    if not terms:
        return None
    if drop:
        extra_terms = [t for t in extra_terms if t.lower() not in drop]
        kept = [t for t in terms if t not in drop]
        terms = kept if kept or extra_terms else terms
    quoted = [fts_string(t) for t in terms]
    for term in extra_terms:
        words = [m.group(0).lower() for m in WORD.finditer(term)]
        phrase = fts_string(" ".join(words))
        if words and phrase not in quoted:
            quoted.append(phrase)
    return " OR ".join(quoted[: MAX_TERMS * 2])

"""The words of a passage that match a query, and the excerpt of the passage that shows them
(issue 58, Build 3): a library-wide answer lists each contract with its best clause, and a reviewer
should see at a glance why it was listed: "New York" in a governing-law clause, "wilful
misconduct" in a liability cap, not only that the clause is of the category asked about.

A word of the passage matches when it is a content word of the query, compared as
``summarizer.search.word_matches`` compares them (lower-cased, stop words and words of two letters
left out, cut to their first ``STEM_CHARS`` letters: "terminate" finds "termination", "governed"
"Governing"), or its plural ("laws" for "law"); words that name what is searched ("contracts",
"clause": ``FRAME_WORDS``) are not the query's. Matched words with only spaces or hyphens between
them are one run ("New York").
The excerpt is the ``width`` characters of the passage (its whitespace made single spaces) holding
the most distinct matched words, so a clause whose variant is in its last sentence shows that
sentence rather than its first lines; it starts and ends at word boundaries, with "…" where it cuts.

No Qt here: the window and the command line mark the runs their own way (``marked``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from summarizer.search.fts_query import STOPWORDS
from summarizer.search.word_matches import STEM_CHARS, stems

_WORD = re.compile(r"[^\W_]+")
_JOIN = re.compile(r"[\s\-‐-―]*")  # spaces and hyphens (and dashes) between two matched words
LEAD = 60  # characters kept before the first matched word of the excerpt, for its context
# Words that name what is searched, not what it says: "Which contracts are governed by New York law?"
# would otherwise mark "contract" in every clause.
FRAME_WORDS = frozenset(
    "contract contracts agreement agreements clause clauses provision provisions document documents "
    "party parties section sections".split()
)
ELLIPSIS = "…"

Span = tuple[int, int]


def _matches(word: str, wanted: set[str]) -> bool:
    """``word`` (lower case) is a query word: the same stem, or its plural ("laws" for "law")."""
    return word[:STEM_CHARS] in wanted or (word.endswith("s") and word[:-1][:STEM_CHARS] in wanted)


def matched_spans(text: str, query: str) -> list[Span]:
    """Character ranges of ``text`` whose words match the query's content words, adjacent ones
    (only spaces or hyphens between them) joined into one run."""
    wanted = stems(" ".join(w for w in _WORD.findall(query) if w.lower() not in FRAME_WORDS))
    spans: list[Span] = []
    for match in _WORD.finditer(text):
        word = match.group(0).lower()
        if len(word) <= 2 or word in STOPWORDS or not _matches(word, wanted):
            continue
        if spans and _JOIN.fullmatch(text[spans[-1][1] : match.start()]):
            spans[-1] = (spans[-1][0], match.end())
        else:
            spans.append((match.start(), match.end()))
    return spans


@dataclass(frozen=True, slots=True)
class Excerpt:
    """Part of a passage, its whitespace made single spaces, and its matched runs within it."""

    text: str
    spans: tuple[Span, ...]


def _distinct(text: str, spans: list[Span]) -> int:
    return len({w.lower()[:STEM_CHARS] for start, end in spans for w in _WORD.findall(text[start:end])})


def excerpt(text: str, query: str, width: int) -> Excerpt:
    """The ``width`` characters of ``text`` that hold the most distinct matched words (the first
    such window; the passage's beginning when nothing matches), cut at word boundaries."""
    flat = " ".join(text.split())
    spans = matched_spans(flat, query)
    if len(flat) <= width:
        return Excerpt(flat, tuple(spans))
    starts = [0] + [max(0, start - LEAD) for start, _ in spans]
    best, best_key = 0, (-1, -1)
    for start in starts:
        inside = [s for s in spans if s[0] >= start and s[1] <= start + width]
        key = (_distinct(flat, inside), len(inside))
        if key > best_key:
            best, best_key = start, key
    start = best
    if start > 0:  # from the next word's start, never past the window's first matched word
        space = flat.find(" ", start)
        start = space + 1 if space >= 0 else start
        first = next((s for s in spans if s[0] >= best), None)
        if first is not None and start > first[0]:
            start = first[0]
    end = min(len(flat), start + width)
    if end < len(flat):  # back to the last whole word
        space = flat.rfind(" ", start, end + 1)
        end = space if space > start else end
    piece = flat[start:end]
    head = ELLIPSIS + " " if start > 0 else ""
    tail = " " + ELLIPSIS if end < len(flat) else ""
    shift = len(head) - start
    kept = tuple((s + shift, e + shift) for s, e in spans if s >= start and e <= end)
    return Excerpt(head + piece + tail, kept)


def marked(part: Excerpt, mark: Callable[[str], str], plain: Callable[[str], str] = lambda s: s) -> str:
    """``part``'s text with each matched run passed through ``mark`` and the rest through
    ``plain`` (an escape for the format it goes into)."""
    out: list[str] = []
    last = 0
    for start, end in part.spans:
        out += [plain(part.text[last:start]), mark(part.text[start:end])]
        last = end
    out.append(plain(part.text[last:]))
    return "".join(out)

"""The machinery of a query vocabulary: entries that map how people ask to how documents say it.

``summarizer.search.legal_lexicon`` (contracts) and ``summarizer.search.finance_lexicon`` (filings)
are lists of ``Entry``; a query's matched entries give the terms added to its BM25 query.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Entry:
    concept: str
    asks: re.Pattern[str]  # how a user may ask about it
    terms: tuple[str, ...]  # how the documents say it
    # More general concepts that this one replaces when both match ("how long does the warranty
    # last" is about the warranty, not the contract's term).
    overrides: tuple[str, ...] = ()


def entry(concept: str, asks: str, terms: str, overrides: tuple[str, ...] = ()) -> Entry:
    """An entry from a pattern (case-insensitive) and its terms separated by ``;``."""
    return Entry(concept, re.compile(asks, re.IGNORECASE), tuple(t.strip() for t in terms.split(";")), overrides)


def matching(lexicon: Sequence[Entry], query: str) -> list[Entry]:
    matched = [e for e in lexicon if e.asks.search(query)]
    replaced = {concept for e in matched for concept in e.overrides}
    return [e for e in matched if e.concept not in replaced]


def interleave(lists: Sequence[Sequence[str]], limit: int | None = None) -> list[str]:
    """The terms of ``lists`` without repeats, taken in turn from each list (each list holds its
    most telling terms first), at most ``limit``."""
    seen: dict[str, None] = {}
    for rank in range(max((len(terms) for terms in lists), default=0)):
        for terms in lists:
            if rank < len(terms) and (limit is None or len(seen) < limit):
                seen.setdefault(terms[rank].lower(), None)
    return list(seen)


def expand(lexicon: Sequence[Entry], query: str, limit: int | None = None) -> list[str]:
    """The terms of the entries of ``lexicon`` that ``query`` matches (``interleave``)."""
    return interleave([e.terms for e in matching(lexicon, query)], limit)

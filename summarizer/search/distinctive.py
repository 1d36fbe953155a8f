"""A query's words of its own: what search's ``lexicon_by_query`` chooses the lexicon's weight by.

A question that names a clause's category in lay words ("Can one side end the deal straight away
if the other goes broke?") reaches the contract's vocabulary only through the legal lexicon's
terms; a query that names a variant of the category in the contract's own terms ("fraud or wilful
misconduct carveout to liability cap", "Governing Law excluding UCC") is outweighed by them
(ACORD, docs/retrieval.md). A query's **distinctive terms** tell the two apart: its search words
(stopwords out) that

- no matched entry of the legal lexicon covers (those name the category: "liability cap"),
- at least one and at most ``MAX_SHARE`` of the library's passages hold (a word no passage holds
  ranks nothing; one most hold is not distinctive), and
- are not common English words: not among the first ``COMMON_UP_TO_ID`` entries of the shipped
  clause ranker's WordPiece vocabulary (all-MiniLM-L6-v2's, BERT's uncased one), which lists whole
  words roughly by their frequency in the English Wikipedia and books it was built from: "get",
  "deal", "someone" and "happens" are among them, "misconduct", "merchantability" and "escrow" are
  not. The rank was chosen on ACORD's training queries and the labelled set's four tuning
  contracts (docs/retrieval.md, the lexicon chosen by the query).
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Sequence

from summarizer.library.storage.paths import assets_dir
from summarizer.search.fts_query import WORD, fts_terms
from summarizer.search.legal_lexicon import LEXICON
from summarizer.search.lexicon import matching

log = logging.getLogger("pagewise.search")

MAX_SHARE = 0.05  # a distinctive word is held by at most 5% of the library's passages
COMMON_UP_TO_ID = 7000  # vocabulary ids 1,996-7,000: 4,298 whole words, the most frequent first

_common: frozenset[str] | None = None
_common_lock = threading.Lock()
_warned = False


def lexicon_words(query: str) -> set[str]:
    """The words of ``query`` (lower case) that a matched legal-lexicon entry's pattern covers,
    whole: a pattern may match part of a word ("indemn" of "indemnity", "compet" of "non-compete")."""
    spans = [m.span() for e in matching(LEXICON, query) for m in e.asks.finditer(query)]
    return {w.group(0).lower() for w in WORD.finditer(query) if any(w.start() < b and a < w.end() for a, b in spans)}


def common_english() -> frozenset[str] | None:
    """The common English words (whole words of the shipped ranker's vocabulary up to
    ``COMMON_UP_TO_ID``), or None, after a warning, when its tokenizer.json cannot be read."""
    global _common, _warned
    with _common_lock:
        if _common is None:
            path = assets_dir() / "models" / "clause-ranker" / "tokenizer.json"
            try:
                vocab = json.loads(path.read_text(encoding="utf-8"))["model"]["vocab"]
            except (OSError, ValueError, KeyError, TypeError) as exc:
                if not _warned:
                    _warned = True
                    log.warning(
                        "Cannot read the word list in %s (%s); reinstall Pagewise. Search adds the legal "
                        "vocabulary to every query as before.",
                        path,
                        exc,
                    )
                return None
            _common = frozenset(w for w, i in vocab.items() if i <= COMMON_UP_TO_ID and w.isalpha())
        return _common


def distinctive_terms(
    query: str, shares: Callable[[Sequence[str]], dict[str, float]], max_share: float = MAX_SHARE
) -> list[str] | None:
    """The distinctive terms of ``query``; ``shares`` gives the share of the library's passages
    holding each word. None when the common words cannot be read (no choice can be made)."""
    common = common_english()
    if common is None:
        return None
    covered = lexicon_words(query)
    words = [w for w in fts_terms(query) if w not in covered and w not in common]
    if not words:
        return []
    held = shares(words)
    return [w for w in words if 0.0 < held[w] <= max_share]

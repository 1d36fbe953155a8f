"""Long replies for scripted engines that stream for a while: words that never fall into a loop.

Every engine ends a reply that repeats itself (``inference.engines.loop_guard``), so a test that
needs a long stream (to stop it, to cancel it) cannot use "word word word …"."""

from __future__ import annotations

import random

WORDS = (
    "the supplier shall deliver goods buyer pays invoice within days notice term agreement party "
    "licence fee territory exclusive confidential information law court remedy breach cure period"
).split()


def prose(n_words: int, seed: int = 0) -> str:
    """``n_words`` words drawn from a contract's vocabulary (the same for the same ``seed``)."""
    rng = random.Random(seed)
    return " ".join(rng.choice(WORDS) for _ in range(n_words))

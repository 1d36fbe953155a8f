"""How a labelled quote is matched against retrieved text (the retrieval issue's scoring rule).

Both sides are normalized: Unicode NFKC, lower case, quote and dash variants unified, a hyphen at
a line break dropped, whitespace collapsed. A quote is found in a passage when it appears verbatim
after normalizing, or, for quotes over 20 words, when at least 80% of its words (counted with
repeats) occur in the passage.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter

_QUOTES = str.maketrans(
    {
        "‘": "'",
        "’": "'",
        "‚": "'",
        "‛": "'",
        "′": "'",
        "`": "'",
        "´": "'",
        "“": '"',
        "”": '"',
        "„": '"',
        "‟": '"',
        "″": '"',
        "«": '"',
        "»": '"',
        "‐": "-",
        "‑": "-",
        "‒": "-",
        "–": "-",
        "—": "-",
        "―": "-",
        "−": "-",
        "\u00ad": "",
    }
)
_LINE_BREAK_HYPHEN = re.compile(r"(\w)-\s*\n\s*(\w)")
_SPACE = re.compile(r"\s+")
_WORD = re.compile(r"\w+")


def normalize(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).translate(_QUOTES)
    text = _LINE_BREAK_HYPHEN.sub(r"\1\2", text)
    return _SPACE.sub(" ", text.lower()).strip()


def quote_found(quote: str, passage: str) -> bool:
    q = normalize(quote)
    p = normalize(passage)
    if q in p:
        return True
    words = _WORD.findall(q)
    if len(words) <= 20:
        return False
    need = Counter(words)
    have = Counter(_WORD.findall(p))
    hit = sum(min(n, have[w]) for w, n in need.items())
    return hit >= 0.8 * len(words)

"""Degenerate loops in generated text: a run of words repeated over and over.

Greedy decoding of small models (SmolLM2-135M: "The answer to this question is: The answer to
this question is: ...") falls into them and runs to ``max_tokens``. Summaries are cut after the
loop's first occurrence before they are stored. Every engine also ends a reply that falls into a
loop (``inference.engines.loop_guard``), so a loop rarely runs long.
"""

from __future__ import annotations

MIN_WORDS = 4
REPEATS = 3


def trim_repetition(text: str, min_words: int = MIN_WORDS, repeats: int = REPEATS) -> str:
    """``text`` cut after the first occurrence of the first run of at least ``min_words`` words
    that is repeated ``repeats`` times in a row (with " …" appended); unchanged without one."""
    words = text.split(" ")
    for start in range(len(words)):
        for size in range(min_words, (len(words) - start) // repeats + 1):
            run = words[start : start + size]
            if all(words[start + k * size : start + (k + 1) * size] == run for k in range(1, repeats)):
                return " ".join(words[: start + size]).rstrip(" ,;") + " …"
    return text

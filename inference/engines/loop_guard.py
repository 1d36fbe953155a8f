"""Ending a reply that has fallen into a loop: the same few words over and over.

Small models decoded greedily loop ("Part 1: Part 2: Part 3: …", one sentence six times), and
large ones do too on long contexts; a loop runs to ``max_tokens`` and buries the reply. Every
engine feeds its streamed text to a ``LoopGuard`` (through ``engine.StopScanner``) and ends the
reply with ``stop_reason="loop"`` when the guard trips; the answer then says it was cut.

A loop is a cycle of words at the end of the text, repeated back to back:

- the same words (case aside): a cycle of 4 or more words 3 times, or of 1 to 3 words 8 times;
- the same words but for a counter ("Part 1: Part 2: …"): a cycle that holds a word of three
  letters or more, whose turns differ in one number only, 16 times for 1 to 3 words, 5 times for
  4 words or more. A table row (a cycle with "|") never counts this way.

A legitimate list repeats its shape, not its words: numbered clauses differ in their text, a
schedule of payments in its years and its figures both, and a table is never cut. The thresholds were
chosen on SmolLM2-135M's loops (tests/inference/engines/test_loop_guard.py holds both kinds).
"""

from __future__ import annotations

import re

EXACT_LONG = (4, 3)  # a cycle of at least 4 words, repeated 3 times
EXACT_SHORT = 8  # a cycle of 1-3 words, repeated 8 times
NUMBERED_LONG = 5  # the same with numbers ignored, a cycle of 4+ words
NUMBERED_SHORT = 16  # ... of 1-3 words (a list of 10 exhibits is not a loop)
MAX_CYCLE = 60  # words
WINDOW = 700  # words kept from the end of the text

_DIGITS = re.compile(r"\d+")
_WORD = re.compile(r"[^\W\d_]{3,}")
_NON_SPACE = re.compile(r"\S+")


def _repeats(words: list[str], size: int, times: int, raw: list[str] | None = None) -> bool:
    """Whether the last ``size`` words occur ``times`` times back to back at the end; with
    ``raw`` (the words before their numbers were masked), each turn may differ from the last in
    one word at most (a counter: "Part 6:", "Part 7:"), not in a label and a figure both."""
    if size * times > len(words):
        return False
    end = len(words)
    cycle = words[-size:]
    for k in range(1, times):
        if words[end - (k + 1) * size : end - k * size] != cycle:
            return False
        if raw is not None:
            turn = raw[end - (k + 1) * size : end - k * size]
            if sum(a != b for a, b in zip(turn, raw[-size:], strict=True)) > 1:
                return False
    return True


def loop_at_end(words: list[str]) -> tuple[int, int] | None:
    """(cycle size, times it repeats back to back at the end) of the loop ``words`` end in, or None.

    ``words`` is the text so far split on whitespace; the times counted go as far back as the
    cycle repeats, so that cutting all but the first leaves the text before the loop."""
    exact = [w.lower() for w in words[-WINDOW:]]
    numbered = [_DIGITS.sub("#", w) for w in exact]
    for size in range(1, min(MAX_CYCLE, len(exact)) + 1):
        short = size < EXACT_LONG[0]
        if _repeats(exact, size, EXACT_SHORT if short else EXACT_LONG[1]):
            return size, _times(exact, size)
        cycle = numbered[-size:]
        if any("|" in w for w in cycle) or not any(_WORD.search(w) for w in cycle):
            continue
        if _repeats(numbered, size, NUMBERED_SHORT if short else NUMBERED_LONG, exact):
            return size, _times(numbered, size, exact)
    return None


def _times(words: list[str], size: int, raw: list[str] | None = None) -> int:
    times = 1
    while _repeats(words, size, times + 1, raw):
        times += 1
    return times


def loop_in(words: list[str]) -> bool:
    """Whether ``words`` (the text so far, split on whitespace) end in a loop."""
    return loop_at_end(words) is not None


def cut_loop(text: str) -> str | None:
    """``text`` with the loop it ends in cut to its first turn (and " …"), or None without one."""
    spans = [m.span() for m in _NON_SPACE.finditer(text)]
    found = loop_at_end([text[a:b] for a, b in spans])
    if found is None:
        return None
    size, times = found
    words = [_DIGITS.sub("#", text[a:b].lower()) for a, b in spans]
    start = len(spans) - times * size
    while start > 0 and words[start - 1] == words[start - 1 + size]:  # a turn begun before the first whole one
        start -= 1
    return text[: spans[start + size - 1][1]].rstrip(" ,;") + " …"


class LoopGuard:
    """Fed the reply's text as it streams; ``feed`` returns True once the text ends in a loop.

    It looks again only when a word is complete (whitespace arrives), so the cost is a few
    list comparisons per word, not per token."""

    __slots__ = ("_partial", "_words", "tripped")

    def __init__(self) -> None:
        self._words: list[str] = []
        self._partial = ""
        self.tripped = False

    def feed(self, text: str) -> bool:
        if self.tripped or not text:
            return self.tripped
        pieces = (self._partial + text).split()
        ends_in_space = text[-1].isspace()
        self._partial = "" if ends_in_space or not pieces else pieces.pop()
        if not pieces:
            return False
        self._words.extend(pieces)
        del self._words[:-WINDOW]
        self.tripped = loop_in(self._words)
        return self.tripped

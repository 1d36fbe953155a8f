"""Ending a reply that has fallen into a loop: the same few words over and over.

Small models decoded greedily loop ("Part 1: Part 2: Part 3: …", one sentence six times), and
large ones do too on long contexts; a loop runs to ``max_tokens`` and buries the reply. Every
engine feeds its streamed text to a ``LoopGuard`` (through ``engine.StopScanner``) and ends the
reply with ``stop_reason="loop"`` when the guard trips; the answer then says it was cut.

A loop is a cycle of words at the end of the text, repeated back to back:

- the same words (case aside): a cycle of 4 or more words 3 times, or of 1 to 3 words 8 times;
- the same words but for counters ("Part 1: Part 2: …", "Passage 4 (p. 2): … Passage 5 (p. 3):"):
  a cycle that holds a word of three letters or more, whose numbers that change grow by one a
  turn, 16 times for 1 to 3 words, 4 times for 4 words or more;
- a sentence (8 words of text or more) said 5 times but for its numbers, whatever they are
  ("Parts 1-3: This Agreement is a non-disclosure agreement … Parts 4-6: This Agreement is …").
A table row (a cycle with "|") never counts but for its numbers.

A legitimate list repeats its shape, not its words: numbered clauses differ in their text, a
schedule of payments in its figures, and a table is never cut. A list of four or more items that
differ in nothing but a counter ("Month 1: $10,000 due. Month 2: $10,000 due. …") is taken for a
loop: a model that writes one is better stopped. The thresholds were
chosen on SmolLM2-135M's loops (tests/inference/engines/test_loop_guard.py holds both kinds).
"""

from __future__ import annotations

import re

EXACT_LONG = (4, 3)  # a cycle of at least 4 words, repeated 3 times
EXACT_SHORT = 8  # a cycle of 1-3 words, repeated 8 times
NUMBERED_LONG = 4  # the same but for counters, a cycle of 4+ words
NUMBERED_SHORT = 16  # ... of 1-3 words (a list of 10 exhibits is not a loop)
PROSE_WORDS = 8  # a cycle with this many words of text is a sentence: its numbers may change any way
NUMBERED_PROSE = 5  # ... repeated this many times
MAX_CYCLE = 60  # words
WINDOW = 700  # words of the text's end in which a loop's turns are counted back (``cut_loop``)
GUARD_WINDOW = MAX_CYCLE * max(EXACT_LONG[1], NUMBERED_LONG, NUMBERED_PROSE)
"""Words the streaming guard keeps: enough for the longest cycle's most turns, so it finds what
``loop_at_end`` finds."""

_DIGITS = re.compile(r"\d+")
_WORD = re.compile(r"[^\W\d_]{3,}")
_NON_SPACE = re.compile(r"\S+")


def _repeats(words: list[str], size: int, times: int, raw: list[str] | None = None) -> bool:
    """Whether the last ``size`` words occur ``times`` times back to back at the end; with
    ``raw`` (the words before their numbers were masked), the turns may differ only in counters:
    every number that changes grows by one a turn ("Part 6: Part 6:", "Part 7: Part 7:"), so that a
    schedule whose figures change otherwise ("Year 1: $25,000", "Year 2: $50,000") is no loop."""
    if size * times > len(words):
        return False
    end = len(words)
    cycle = words[-size:]
    for k in range(1, times):
        if words[end - (k + 1) * size : end - k * size] != cycle:
            return False
        if raw is not None:
            turn = raw[end - (k + 1) * size : end - k * size]
            if not all(_counted(earlier, later, k) for earlier, later in zip(turn, raw[-size:], strict=True)):
                return False
    return True


def _periodic(cycle: list[str]) -> bool:
    """Whether ``cycle`` is a shorter cycle said several times (three rows of a list, not a sentence)."""
    size = len(cycle)
    return any(size % d == 0 and cycle == cycle[:d] * (size // d) for d in range(1, size // 2 + 1))


def _counted(earlier: str, later: str, turns: int) -> bool:
    """Whether ``later`` is ``earlier`` with each of its numbers the same or grown by ``turns``."""
    if earlier == later:
        return True
    before = [int(n) for n in _DIGITS.findall(earlier)]
    after = [int(n) for n in _DIGITS.findall(later)]
    return len(before) == len(after) and all(b - a in (0, turns) for a, b in zip(before, after, strict=True))


def loop_at_end(words: list[str]) -> tuple[int, int] | None:
    """(cycle size, times it repeats back to back at the end) of the loop ``words`` end in, or None.

    ``words`` is the text so far split on whitespace; the times counted go as far back as the
    cycle repeats, so that cutting all but the first leaves the text before the loop."""
    exact = [w.lower() for w in words[-WINDOW:]]
    found = _cycle_at_end(exact, _masked(exact))
    if found is None:
        return None
    size, compared, raw = found
    return size, _times(compared, size, raw)


def _masked(words: list[str]) -> list[str]:
    """``words`` with their numbers masked ("part 7:" → "part #:")."""
    return [_DIGITS.sub("#", w) for w in words]


def _cycle_at_end(exact: list[str], numbered: list[str]) -> tuple[int, list[str], list[str] | None] | None:
    """The loop's cycle size, the words its turns are compared in (``exact`` or ``numbered``) and,
    where they may differ in counters only, the raw words; None without a loop."""
    words_of_text = 0  # in the cycle of the size looked at: grown by one word a size
    table_row = False
    for size in range(1, min(MAX_CYCLE, len(exact)) + 1):
        short = size < EXACT_LONG[0]
        if _repeats(exact, size, EXACT_SHORT if short else EXACT_LONG[1]):
            return size, exact, None
        words_of_text += bool(_WORD.search(numbered[-size]))
        table_row = table_row or "|" in numbered[-size]
        if table_row or not words_of_text:
            continue  # a table row; no text
        if words_of_text >= PROSE_WORDS:  # a sentence said again and again, whatever its numbers
            if _repeats(numbered, size, NUMBERED_PROSE) and not _periodic(numbered[-size:]):
                return size, numbered, None
        elif _repeats(numbered, size, NUMBERED_SHORT if short else NUMBERED_LONG, exact) and not _periodic(
            numbered[-size:]
        ):
            return size, numbered, exact  # (a cycle made of a shorter one is judged as that one)
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
    words = _masked([text[a:b].lower() for a, b in spans])
    start = len(spans) - times * size
    while start > 0 and words[start - 1] == words[start - 1 + size]:  # a turn begun before the first whole one
        start -= 1
    return text[: spans[start + size - 1][1]].rstrip(" ,;") + " …"


class LoopGuard:
    """Fed the reply's text as it streams; ``feed`` returns True once the text ends in a loop.

    It looks again only when a word is complete (whitespace arrives), so the cost is a few
    list comparisons per word, not per token."""

    __slots__ = ("_exact", "_numbered", "_partial", "tripped")

    def __init__(self) -> None:
        self._exact: list[str] = []  # the last GUARD_WINDOW words, lower case
        self._numbered: list[str] = []  # the same with their numbers masked
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
        exact = [w.lower() for w in pieces]
        self._exact.extend(exact)
        self._numbered.extend(_masked(exact))  # each word normalized once, not once a look
        del self._exact[:-GUARD_WINDOW], self._numbered[:-GUARD_WINDOW]
        self.tripped = _cycle_at_end(self._exact, self._numbered) is not None
        return self.tripped

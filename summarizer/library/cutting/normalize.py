"""A normalized view of a page's raw text, with a map from every character back to the raw text.

Search and chunking read the normalized view; the stored page spans index the raw text,
so the viewer can highlight exactly what pypdf extracted.

Normalization: ligatures are expanded (ﬁ → fi), a hyphen at a line end between letters is
removed together with the line break (``agree-\\nment`` → ``agreement``), a line break inside a
paragraph becomes a space, a blank line becomes a paragraph break (``\\n\\n``), and other runs of
whitespace (no-break spaces included) become one space.
"""

from __future__ import annotations

from dataclasses import dataclass

LIGATURES = {
    "\ufb00": "ff",
    "\ufb01": "fi",
    "\ufb02": "fl",
    "\ufb03": "ffi",
    "\ufb04": "ffl",
    "\ufb05": "st",
    "\ufb06": "st",
}
# Characters removed outright: soft hyphen, zero-width spaces and joiners, BOM.
INVISIBLE = {"\u00ad", "\u200b", "\u200c", "\u200d", "\u2060", "\ufeff"}
PARAGRAPH_BREAK = "\n\n"


@dataclass(frozen=True, slots=True)
class NormalizedText:
    """``text`` is the normalized view; ``raw_index[i]`` is the raw offset of ``text[i]``."""

    text: str
    raw_index: tuple[int, ...]

    def raw_span(self, start: int, end: int) -> tuple[int, int]:
        """The raw character range covering normalized characters ``[start, end)``."""
        if start >= end:
            raise ValueError("empty range")
        return self.raw_index[start], self.raw_index[end - 1] + 1


def _is_hyphen_break(raw: str, i: int) -> bool:
    """True if ``raw[i]`` is a hyphen ending a line inside a hyphenated word."""
    if raw[i] not in "-\u2010" or i == 0 or not raw[i - 1].isalpha():
        return False
    j = i + 1
    while j < len(raw) and raw[j] in " \t\r\xa0":
        j += 1
    if j >= len(raw) or raw[j] != "\n":
        return False
    j += 1
    while j < len(raw) and raw[j] in " \t\xa0":
        j += 1
    return j < len(raw) and raw[j].islower()


def normalize(raw: str) -> NormalizedText:
    out: list[str] = []
    index: list[int] = []
    i = 0
    n = len(raw)
    while i < n:
        ch = raw[i]
        if ch in INVISIBLE:
            i += 1
            continue
        if _is_hyphen_break(raw, i):
            # Skip the hyphen and the line break with its surrounding blanks.
            i += 1
            while i < n and raw[i].isspace():
                i += 1
            continue
        if ch.isspace():
            start = i
            newlines = 0
            line_has_text = False
            blank_line = False
            while i < n and (raw[i].isspace() or raw[i] in INVISIBLE):
                if raw[i] == "\n":
                    newlines += 1
                    if newlines >= 2 and not line_has_text:
                        blank_line = True
                    line_has_text = False
                i += 1
            if not out:
                continue  # leading whitespace
            if i >= n:
                break  # trailing whitespace
            sep = PARAGRAPH_BREAK if blank_line else " "
            for c in sep:
                out.append(c)
                index.append(start)
            continue
        expansion = LIGATURES.get(ch)
        if expansion is not None:
            for c in expansion:
                out.append(c)
                index.append(i)
        else:
            out.append(ch)
            index.append(i)
        i += 1
    return NormalizedText("".join(out), tuple(index))

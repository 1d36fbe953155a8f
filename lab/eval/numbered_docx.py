"""Clause texts written as a Word file whose clause numbers are Word's automatic numbering.

The known-edits benchmark's versions are lists of clause texts, each starting with its marker as
written ("ARTICLE VI", "6.3", "7.", "(b)"). Here each marker is taken off the text and made a
``w:numPr`` on its paragraph (``word/numbering.xml``): the number a reader sees is computed from
the list's counters, as Word computes it, so a renumbered article is renumbered by the numbering,
not by its text. Where the counters would not give the marker's number (the first clause, a clause
deleted before it, the articles renumbered from the middle on) a new ``w:num`` restarts the level
there with a ``w:startOverride``, as Word does for "Set numbering value". A marker that fits no
level (a "§", an item "(1)") stays in the text.

The levels of every list: 0 the article or top clause ("ARTICLE %1", "%1."), 1 and 2 the sections
("%1.%2", legal numbering so an article in roman numerals gives "6.3"), 3 the items "(%4)" in
letters, 4 the items "(%5)" in small roman numerals; a lower level restarts when a higher one is used.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

from lab.eval.compare_known_edits import ARTICLE_HEADING
from lab.eval.known_edits import roman_value
from tests.docx_factory import level, numbering, para, write_docx

_ARTICLE = re.compile(r"^(ARTICLE|Article|SECTION|Section)\s+([IVXLC]+|\d{1,3})([.:]?)(?:\s+|$)")
_SECTION = re.compile(r"^(\d{1,3})((?:\.\d{1,3}){1,2})(\.?)(?:\s+|$)")
_TOP = re.compile(r"^(\d{1,3})([.)]?)(?:\s+|$)")
_ITEM = re.compile(r"^\(([a-z]{1,5})\)(?:\s+|$)")
_ROMAN_ITEM = re.compile(r"^[ivx]+$")
LEVELS = 5


@dataclass(frozen=True)
class NumberedParagraph:
    text: str  # without its marker
    list_style: tuple[str, str, str] | None  # level 0's (prefix, format, suffix); None: not numbered
    section_suffix: str  # "." after "6.3." or ""
    ilvl: int
    values: tuple[tuple[int, int], ...]  # (level, value) of each level its number shows


def _letter_value(letters: str) -> int | None:
    return ord(letters) - ord("a") + 1 if len(letters) == 1 else None


def parse_marker(paragraph: str, last_letter: int | None) -> NumberedParagraph:
    """The paragraph's marker as a list level and the values it shows; ``last_letter``: the value
    of the letter item before it ("(h)" before "(i)" makes "(i)" a letter, not a roman one)."""
    text = " ".join(paragraph.split())
    article = _ARTICLE.match(text)
    if article:
        word, number, suffix = article.groups()
        roman = not number.isdigit()
        value = roman_value(number) if roman else int(number)
        style = (f"{word} ", "upperRoman" if roman else "decimal", suffix)
        return NumberedParagraph(text[article.end() :], style, "", 0, ((0, value),))
    section = _SECTION.match(text)
    if section:
        parts = [int(section.group(1)), *(int(p) for p in section.group(2).split(".")[1:])]
        values = tuple(enumerate(parts))
        return NumberedParagraph(text[section.end() :], ("", "decimal", "."), section.group(3), len(parts) - 1, values)
    top = _TOP.match(text)
    if top:
        return NumberedParagraph(text[top.end() :], ("", "decimal", top.group(2)), "", 0, ((0, int(top.group(1))),))
    item = _ITEM.match(text)
    if item:
        letters = item.group(1)
        letter = _letter_value(letters)
        is_roman = bool(_ROMAN_ITEM.match(letters)) and not (letter is not None and last_letter == letter - 1)
        if is_roman:
            return NumberedParagraph(text[item.end() :], None, "", 4, ((4, roman_value(letters.upper())),))
        if letter is not None:
            return NumberedParagraph(text[item.end() :], None, "", 3, ((3, letter),))
    return NumberedParagraph(text, None, "", -1, ())


def _abstract_levels(style: tuple[str, str, str], section_suffix: str) -> str:
    prefix, num_format, suffix = style
    legal = "<w:isLgl/>"
    return "".join(
        [
            level(0, num_format, f"{prefix}%1{suffix}"),
            level(1, "decimal", f"%1.%2{section_suffix}", extra=legal),
            level(2, "decimal", f"%1.%2.%3{section_suffix}", extra=legal),
            level(3, "lowerLetter", "(%4)"),
            level(4, "lowerRoman", "(%5)"),
        ]
    )


class _Lists:
    """The lists of one document: one abstract numbering per look of its numbers, and the counters
    Word keeps for each (``summarizer.library.reading.docx_numbering.NumberCounter``'s rules)."""

    def __init__(self) -> None:
        self.abstracts: dict[tuple[tuple[str, str, str], str], int] = {}
        self.counters: dict[int, list[int | None]] = {}
        self.current_num: dict[int, int] = {}
        self.nums: dict[int, str] = {}

    def _abstract(self, key: tuple[tuple[str, str, str], str]) -> int:
        if key not in self.abstracts:
            abstract_id = len(self.abstracts)
            self.abstracts[key] = abstract_id
            self.counters[abstract_id] = [None] * LEVELS
            self._new_num(abstract_id, {})
        return self.abstracts[key]

    def _new_num(self, abstract_id: int, starts: dict[int, int]) -> int:
        num_id = len(self.nums) + 1
        overrides = "".join(
            f'<w:lvlOverride w:ilvl="{ilvl}"><w:startOverride w:val="{start}"/></w:lvlOverride>'
            for ilvl, start in sorted(starts.items())
        )
        self.nums[num_id] = f'<w:abstractNumId w:val="{abstract_id}"/>{overrides}'
        self.current_num[abstract_id] = num_id
        counters = self.counters[abstract_id]
        for ilvl, start in starts.items():
            counters[ilvl] = start - 1
        return num_id

    def number(
        self, key: tuple[tuple[str, str, str], str], ilvl: int, values: dict[int, int], *, count_on: bool
    ) -> int:
        """The numId that makes the next paragraph at ``ilvl`` show ``values``; with ``count_on``, a
        section whose number skips ahead of the count (2.1, then 2.3) is counted on as Word counts it
        (2.2) instead. Items are not: where an item skips one ("(ii)" first) the one before is in a
        clause's text in the source (an inline "(i)"), not a clause the edits removed."""
        abstract_id = self._abstract(key)
        counters = self.counters[abstract_id]
        shown = {j: (counters[j] if counters[j] is not None else 1) for j in values if j < ilvl}
        own = counters[ilvl]
        shown[ilvl] = 1 if own is None else own + 1
        skips_ahead = all(shown[j] == values[j] for j in values if j < ilvl) and values[ilvl] > shown[ilvl]
        if shown != values and not (count_on and ilvl in (1, 2) and skips_ahead):
            starts = {j: values[j] + 1 for j in values if j < ilvl and shown[j] != values[j]}
            starts[ilvl] = values[ilvl]
            self._new_num(abstract_id, starts)
            counters[ilvl] = values[ilvl] - 1
        current = counters[ilvl]
        counters[ilvl] = 1 if current is None else current + 1
        for deeper in range(ilvl + 1, LEVELS):
            counters[deeper] = None
        return self.current_num[abstract_id]

    def numbering_xml(self) -> str:
        abstracts = {abstract_id: _abstract_levels(*key) for key, abstract_id in self.abstracts.items()}
        return numbering(abstracts, self.nums)


def _paragraphs(clause: str) -> list[str]:
    """A clause's paragraphs; an article's marker and title a paragraph of their own, as the PDF
    versions set them on lines of their own (``compare_known_edits.write_version``)."""
    out = []
    for paragraph in clause.split("\n\n"):
        heading = ARTICLE_HEADING.match(paragraph)
        if heading and paragraph[heading.end() :].strip():
            out += [f"{heading.group(1)} {heading.group(2).strip()}", paragraph[heading.end() :].strip()]
        else:
            out.append(paragraph)
    return out


def write_numbered_docx(path: Path, clauses: Sequence[str], *, keep_gaps: bool = False) -> Path:
    """The clauses as Word paragraphs (a clause's paragraphs apart), their markers made automatic
    numbering. A section whose number skips one (2.3 after 2.1: 2.2 was deleted or moved away) is
    counted on as Word counts it (2.3 shows "2.2") unless ``keep_gaps``; an article's or an item's
    number is kept as written (an article renumbered from the middle on restarts the count there)."""
    lists = _Lists()
    body: list[str] = []
    key: tuple[tuple[str, str, str], str] = (("", "decimal", "."), "")
    last_letter: int | None = None
    for clause in clauses:
        for paragraph in _paragraphs(clause):
            parsed = parse_marker(paragraph, last_letter)
            if parsed.ilvl < 0:
                body.append(para(escape(parsed.text)))
                continue
            if parsed.ilvl == 0 and parsed.list_style is not None:
                key = (parsed.list_style, key[1])  # an article or top clause: its sections count on with it
            elif parsed.ilvl in (1, 2):
                key = (key[0], parsed.section_suffix)
            if parsed.ilvl == 3:
                last_letter = parsed.values[0][1]
            elif parsed.ilvl != 4:
                last_letter = None
            num_id = lists.number(key, parsed.ilvl, dict(parsed.values), count_on=not keep_gaps)
            body.append(para(escape(parsed.text), num=(num_id, parsed.ilvl)))
    return write_docx(path, "".join(body), numbering_xml=lists.numbering_xml())

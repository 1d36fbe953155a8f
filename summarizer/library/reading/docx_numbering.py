"""The numbers Word displays before numbered paragraphs ("ARTICLE 7", "7.2", "(a)"), computed from
``word/numbering.xml``: automatic numbering is not in a paragraph's text.

A paragraph is numbered through its own ``w:numPr`` or through its style's (``basedOn`` chains
included; a style linked from a level's ``w:pStyle`` takes that level). ``numId 0`` switches
numbering off. Counters are kept per abstract numbering, as Word keeps them: paragraphs of two
``w:num`` sharing one ``w:abstractNum`` count on together, and a ``w:num`` whose ``w:lvlOverride``
carries a ``w:startOverride`` restarts that level where it is first used. A level restarts when a
higher one is used (``w:lvlRestart`` may say otherwise), and ``w:lvlText`` ("%1.%2") is filled with
each level's value in its ``w:numFmt`` (decimal in all places for an ``w:isLgl`` level).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from lxml import etree

from summarizer.library.reading.docx_limits import (
    MAX_LETTER_REPEAT,
    MAX_LEVEL_TEXT_CHARS,
    MAX_NUMBER_START,
    MAX_ROMAN,
)

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_W = f"{{{W}}}"
MAX_LEVELS = 9
BULLET = "•"  # a bullet's own character is often a private-use glyph of the Symbol font


def w(tag: str) -> str:
    return _W + tag


def w_val(element: etree._Element | None, attribute: str = "val") -> str | None:
    if element is None:
        return None
    value = element.get(w(attribute))
    return None if value is None else str(value)


def _int(value: str | None, default: int, high: int = MAX_NUMBER_START) -> int:
    """An attribute's integer, kept within ``-high``..``high`` (a start of 10**30 would overflow the
    number formats and ask for gigabytes of letters)."""
    try:
        number = int(value) if value is not None else default
    except ValueError:
        return default
    return max(-high, min(number, high))


@dataclass(frozen=True, slots=True)
class Level:
    start: int = 1
    num_format: str = "decimal"
    text: str = "%1."
    restart_after: int | None = None  # w:lvlRestart (1-based level; 0: never); None: any higher level
    legal: bool = False  # w:isLgl
    style_id: str | None = None  # w:pStyle: paragraphs of this style take this level


@dataclass(slots=True)
class AbstractNumbering:
    abstract_id: str
    levels: dict[int, Level] = field(default_factory=dict)
    style_link: str | None = None  # w:numStyleLink: the levels live in another abstract numbering


@dataclass(frozen=True, slots=True)
class Instance:
    """A ``w:num``: its abstract numbering and the levels it overrides."""

    abstract_id: str
    start_overrides: dict[int, int]
    level_overrides: dict[int, Level]


def _level(element: etree._Element) -> Level:
    restart = element.find(w("lvlRestart"))
    legal = element.find(w("isLgl"))
    return Level(
        start=_int(w_val(element.find(w("start"))), 1),
        num_format=w_val(element.find(w("numFmt"))) or "decimal",
        text=(w_val(element.find(w("lvlText"))) or "")[:MAX_LEVEL_TEXT_CHARS],
        restart_after=None if restart is None else _int(w_val(restart), 0),
        legal=legal is not None and w_val(legal) not in ("0", "false", "off"),
        style_id=w_val(element.find(w("pStyle"))),
    )


@dataclass(slots=True)
class Numbering:
    """The numbering definitions of one document."""

    abstracts: dict[str, AbstractNumbering] = field(default_factory=dict)
    instances: dict[str, Instance] = field(default_factory=dict)
    # numbering styles (w:type="numbering") → the numId of their w:numPr, for w:numStyleLink
    style_num_ids: dict[str, str] = field(default_factory=dict)

    @classmethod
    def parse(cls, xml: bytes | None, style_num_ids: dict[str, str] | None = None) -> Numbering:
        numbering = cls(style_num_ids=dict(style_num_ids or {}))
        if not xml:
            return numbering
        root = etree.fromstring(xml, parser=_PARSER)
        for abstract in root.iter(w("abstractNum")):
            abstract_id = w_val(abstract, "abstractNumId")
            if abstract_id is None:
                continue
            entry = AbstractNumbering(abstract_id, style_link=w_val(abstract.find(w("numStyleLink"))))
            for lvl in abstract.findall(w("lvl")):
                entry.levels[_int(w_val(lvl, "ilvl"), 0)] = _level(lvl)
            numbering.abstracts[abstract_id] = entry
        for num in root.iter(w("num")):
            num_id = w_val(num, "numId")
            abstract_id = w_val(num.find(w("abstractNumId")))
            if num_id is None or abstract_id is None:
                continue
            starts: dict[int, int] = {}
            levels: dict[int, Level] = {}
            for override in num.findall(w("lvlOverride")):
                ilvl = _int(w_val(override, "ilvl"), 0)
                start = override.find(w("startOverride"))
                if start is not None:
                    starts[ilvl] = _int(w_val(start), 1)
                lvl = override.find(w("lvl"))
                if lvl is not None:
                    levels[ilvl] = _level(lvl)
            numbering.instances[num_id] = Instance(abstract_id, starts, levels)
        return numbering

    def abstract_of(self, num_id: str) -> AbstractNumbering | None:
        """The abstract numbering holding the levels of ``num_id`` (through ``w:numStyleLink``)."""
        instance = self.instances.get(num_id)
        seen: set[str] = set()
        while instance is not None and instance.abstract_id not in seen:
            seen.add(instance.abstract_id)
            abstract = self.abstracts.get(instance.abstract_id)
            if abstract is None or abstract.style_link is None:
                return abstract
            linked = self.style_num_ids.get(abstract.style_link)
            instance = self.instances.get(linked) if linked else None
        return None

    def level_of_style(self, num_id: str, style_id: str) -> int | None:
        abstract = self.abstract_of(num_id)
        if abstract is None:
            return None
        for ilvl, level in abstract.levels.items():
            if level.style_id == style_id:
                return ilvl
        return None


_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True, recover=False)


# --- number formats ------------------------------------------------------------------------------

_ROMAN = [(1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"), (50, "l"), (40, "xl")]
_ROMAN += [(10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i")]
_ONES = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen".split()
_ONES += "sixteen seventeen eighteen nineteen".split()
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
_ORDINAL_WORDS = {"one": "first", "two": "second", "three": "third", "five": "fifth", "eight": "eighth"}
_ORDINAL_WORDS |= {"nine": "ninth", "twelve": "twelfth"}


def roman(value: int) -> str:
    if value <= 0 or value > MAX_ROMAN:
        return str(value)
    out = []
    for amount, letters in _ROMAN:
        while value >= amount:
            out.append(letters)
            value -= amount
    return "".join(out)


def letters(value: int) -> str:
    """Word's letter numbering: a … z, then aa … zz, aaa … (the letter repeated, not base 26)."""
    if value <= 0 or value > 26 * MAX_LETTER_REPEAT:
        return str(value)
    return chr(ord("a") + (value - 1) % 26) * ((value - 1) // 26 + 1)


def cardinal_words(value: int) -> str:
    if value < 20:
        return _ONES[max(value, 0)]
    if value < 100:
        tens, ones = divmod(value, 10)
        return _TENS[tens - 2] + (f"-{_ONES[ones]}" if ones else "")
    if value < 1000:
        hundreds, rest = divmod(value, 100)
        return f"{_ONES[hundreds]} hundred" + (f" {cardinal_words(rest)}" if rest else "")
    return str(value)


def ordinal_words(value: int) -> str:
    words = cardinal_words(value)
    head, _, last = words.rpartition("-") if "-" in words else words.rpartition(" ")
    joiner = "-" if "-" in words else " "
    if last in _ORDINAL_WORDS:
        last = _ORDINAL_WORDS[last]
    elif last.endswith("y"):
        last = last[:-1] + "ieth"
    else:
        last += "th"
    return f"{head}{joiner}{last}" if head else last


def ordinal(value: int) -> str:
    suffix = "th" if 10 <= value % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(value % 10, "th")
    return f"{value}{suffix}"


_FORMATS: dict[str, Callable[[int], str]] = {
    "decimal": str,
    "decimalZero": lambda v: f"{v:02d}" if 0 <= v < 10 else str(v),
    "lowerLetter": letters,
    "upperLetter": lambda v: letters(v).upper(),
    "lowerRoman": roman,
    "upperRoman": lambda v: roman(v).upper(),
    "ordinal": ordinal,
    "cardinalText": lambda v: cardinal_words(v).capitalize(),
    "ordinalText": lambda v: ordinal_words(v).capitalize(),
    "decimalEnclosedParen": lambda v: f"({v})",
    "decimalEnclosedFullstop": lambda v: f"{v}.",
    "none": lambda v: "",
}


def format_number(value: int, num_format: str) -> str:
    """One level's value as Word writes it; a format not listed here falls back to decimal."""
    if num_format == "bullet":
        return ""
    return _FORMATS.get(num_format, str)(value)


# --- counting ------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Counters:
    values: list[int | None] = field(default_factory=lambda: [None] * MAX_LEVELS)


class NumberCounter:
    """Walks a document's numbered paragraphs in order and gives each the number Word displays."""

    def __init__(self, numbering: Numbering) -> None:
        self.numbering = numbering
        self._counters: dict[str, _Counters] = {}
        self._instances_seen: set[str] = set()

    def next_number(self, num_id: str, ilvl: int) -> str | None:
        """The number shown for the next paragraph of ``num_id`` at level ``ilvl`` (None: not numbered)."""
        if num_id in ("", "0"):
            return None
        instance = self.numbering.instances.get(num_id)
        abstract = self.numbering.abstract_of(num_id)
        if instance is None or abstract is None:
            return None
        ilvl = min(max(ilvl, 0), MAX_LEVELS - 1)
        levels = {**abstract.levels, **instance.level_overrides}
        level = levels.get(ilvl)
        if level is None:
            return None
        counters = self._counters.setdefault(abstract.abstract_id, _Counters())
        if num_id not in self._instances_seen:
            self._instances_seen.add(num_id)
            # A restart set on the w:num takes effect where that list is first used.
            for over_level, start in instance.start_overrides.items():
                if 0 <= over_level < MAX_LEVELS:
                    counters.values[over_level] = start - 1
            for over_level, over in instance.level_overrides.items():
                if 0 <= over_level < MAX_LEVELS and over_level not in instance.start_overrides:
                    counters.values[over_level] = over.start - 1
        current = counters.values[ilvl]
        counters.values[ilvl] = level.start if current is None else current + 1
        for deeper in range(ilvl + 1, MAX_LEVELS):
            deeper_level = levels.get(deeper, Level())
            restart = deeper_level.restart_after
            # w:lvlRestart names the 1-based level after whose use this one restarts; 0: never.
            if restart is None or (restart > 0 and ilvl < restart):
                counters.values[deeper] = None
        return self._display(level, levels, counters, ilvl)

    def _display(self, level: Level, levels: dict[int, Level], counters: _Counters, ilvl: int) -> str:
        if level.num_format == "bullet":
            return BULLET
        out: list[str] = []
        text = level.text
        i = 0
        while i < len(text):
            ch = text[i]
            if ch == "%" and i + 1 < len(text) and text[i + 1].isdigit():
                shown = int(text[i + 1]) - 1
                shown_level = levels.get(shown, replace(Level(), num_format=level.num_format))
                value = counters.values[shown] if 0 <= shown < MAX_LEVELS else None
                if value is None:
                    value = shown_level.start
                num_format = "decimal" if level.legal and shown_level.num_format != "none" else shown_level.num_format
                out.append(format_number(value, num_format))
                i += 2
                continue
            out.append(ch)
            i += 1
        return "".join(out).strip()

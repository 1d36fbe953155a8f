"""A Word document's paragraph styles (``styles.xml``) and what a paragraph takes from them: its
style's name, its heading level (its own outline level, else its style chain's outline level or a
"Heading N" name) and the number Word shows before it (its own ``w:numPr``, else its style
chain's, counted by ``docx_numbering``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from lxml import etree

from summarizer.library.reading.docx_numbering import NumberCounter, Numbering, w, w_val

_HEADING_NAME = re.compile(r"^heading\s*([1-9])$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Style:
    name: str
    based_on: str | None
    num_id: str | None
    ilvl: int | None
    outline_level: int | None


def read_styles(root: etree._Element | None) -> tuple[dict[str, Style], str | None, dict[str, str]]:
    """Paragraph styles by id, the default paragraph style, numbering styles → their numId."""
    styles: dict[str, Style] = {}
    default: str | None = None
    numbering_styles: dict[str, str] = {}
    if root is None:
        return styles, default, numbering_styles
    for style in root.iter(w("style")):
        style_id = style.get(w("styleId"))
        if style_id is None:
            continue
        ppr = style.find(w("pPr"))
        num_pr = ppr.find(w("numPr")) if ppr is not None else None
        num_id = w_val(num_pr.find(w("numId"))) if num_pr is not None else None
        ilvl = w_val(num_pr.find(w("ilvl"))) if num_pr is not None else None
        outline = w_val(ppr.find(w("outlineLvl"))) if ppr is not None else None
        if style.get(w("type")) == "numbering":
            if num_id is not None:
                numbering_styles[str(style_id)] = num_id
            continue
        if style.get(w("type"), "paragraph") != "paragraph":
            continue
        styles[str(style_id)] = Style(
            name=w_val(style.find(w("name"))) or str(style_id),
            based_on=w_val(style.find(w("basedOn"))),
            num_id=num_id,
            ilvl=int(ilvl) if ilvl and ilvl.isdigit() else None,
            outline_level=int(outline) if outline and outline.isdigit() else None,
        )
        if style.get(w("default")) in ("1", "true", "on"):
            default = str(style_id)
    return styles, default, numbering_styles


class ParagraphStyles:
    """What the paragraphs of one document take from their styles, numbered in document order (the
    counters live here: call ``number`` once per paragraph, in order)."""

    def __init__(self, numbering: Numbering, styles: dict[str, Style], default: str | None) -> None:
        self.numbering = numbering
        self.counter = NumberCounter(numbering)
        self.styles = styles
        self.default_style = default

    def style_id(self, ppr: etree._Element | None) -> str | None:
        """The paragraph's own style, else the document's default paragraph style."""
        style_id = w_val(ppr.find(w("pStyle"))) if ppr is not None else None
        return style_id or self.default_style

    def name(self, style_id: str | None) -> str:
        return self.styles[style_id].name if style_id in self.styles else (style_id or "")

    def _chain(self, style_id: str | None) -> Iterator[tuple[str, Style]]:
        seen: set[str] = set()
        while style_id and style_id in self.styles and style_id not in seen:
            seen.add(style_id)
            style = self.styles[style_id]
            yield style_id, style
            style_id = style.based_on

    def number(self, ppr: etree._Element | None, style_id: str | None) -> tuple[str | None, int | None]:
        """The number Word shows before the paragraph and the level it was counted at ((None, None)
        when it has none); counting it moves the document's counters on."""
        num_pr = ppr.find(w("numPr")) if ppr is not None else None
        own_num = w_val(num_pr.find(w("numId"))) if num_pr is not None else None
        own_ilvl = w_val(num_pr.find(w("ilvl"))) if num_pr is not None else None
        style_num: str | None = None
        style_ilvl: int | None = None
        linked_style: str | None = style_id
        for chain_id, style in self._chain(style_id):
            if style_num is None and style.num_id is not None:
                style_num, linked_style = style.num_id, chain_id
            if style_ilvl is None and style.ilvl is not None:
                style_ilvl = style.ilvl
        num_id = own_num if own_num is not None else style_num
        if num_id is None or num_id == "0":
            return None, None
        if own_ilvl is not None and own_ilvl.isdigit():
            ilvl = int(own_ilvl)
        elif style_ilvl is not None:
            ilvl = style_ilvl
        else:
            found = None
            for chain_id, _ in self._chain(style_id):
                found = self.numbering.level_of_style(num_id, chain_id)
                if found is not None:
                    break
            if found is None and linked_style is not None:
                found = self.numbering.level_of_style(num_id, linked_style)
            ilvl = found or 0
        number = self.counter.next_number(num_id, ilvl)
        return number, (ilvl if number is not None else None)

    def heading_level(self, ppr: etree._Element | None, style_id: str | None) -> int | None:
        """1-9 from the paragraph's own outline level, else its style chain's outline level or
        "Heading N" name; None for body text."""
        own = w_val(ppr.find(w("outlineLvl"))) if ppr is not None else None
        if own is not None and own.isdigit():
            return int(own) + 1 if int(own) < 9 else None
        for _, style in self._chain(style_id):
            if style.outline_level is not None:
                return style.outline_level + 1 if style.outline_level < 9 else None
            if match := _HEADING_NAME.match(style.name):
                return int(match.group(1))
        return None

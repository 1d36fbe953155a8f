"""The body of a Word document walked in order: its block elements (paragraphs, tables, content
controls) into ``DocxParagraph``s, one per paragraph or table row with text, and the runs inside
each paragraph into its text as it reads with every tracked change accepted, its tracked changes,
comment anchors, images and the page breaks Word last laid it out with.

``BodyReader.body`` is the walk over block elements: a new kind of container of paragraphs is
read there. A deleted paragraph mark joins its paragraph to the next, as Word shows it accepted.

Text boxes (``w:txbxContent``, in a DrawingML ``wps:txbx`` or a VML ``v:textbox``) are read as
block containers of their own, with their numbering, right after the paragraph that anchors them
(issue 56, item 4). Word writes a shape twice inside ``mc:AlternateContent`` (DrawingML in
``mc:Choice``, VML in ``mc:Fallback``): only the choice is read, the fallback when there is no
choice. A drawing or picture without a text box counts as an image.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lxml import etree

from summarizer.library.reading.docx_document import PARAGRAPH_MARK, DocxParagraph, TrackedChange
from summarizer.library.reading.docx_numbering import w
from summarizer.library.reading.docx_styles import ParagraphStyles

_MC = "http://schemas.openxmlformats.org/markup-compatibility/2006"
_SPACES = re.compile(r"[ \t\u00a0]+")


@dataclass(slots=True)
class _Run:
    """What one paragraph's walk collects."""

    parts: list[str] = field(default_factory=list)
    changes: list[tuple[str, str, str, str]] = field(default_factory=list)  # kind, author, date, text
    comment_ids: list[str] = field(default_factory=list)
    breaks_before_text: int = 0
    breaks_after_text: int = 0
    images: int = 0
    boxes: list[etree._Element] = field(default_factory=list)  # text boxes anchored in the paragraph

    @property
    def text(self) -> str:
        return "".join(self.parts)


class BodyReader:
    """One walk of a document's body: what it read is in ``paragraphs``, ``changes``,
    ``comment_anchors`` (comment id → paragraph), ``images`` and ``rendered_breaks``."""

    def __init__(self, styles: ParagraphStyles) -> None:
        self.styles = styles
        self.paragraphs: list[DocxParagraph] = []
        self.changes: list[TrackedChange] = []
        self.comment_anchors: dict[str, int] = {}
        self.page = 1
        self.rendered_breaks = 0
        self.images = 0
        self._held: list[_Run] = []  # the walks of paragraphs joined to the next one
        self._boxes: list[etree._Element] = []  # text boxes of joined paragraphs, read after the next one
        self._carried = ""  # text of a paragraph whose mark was deleted: it joins the next one

    def body(self, container: etree._Element) -> None:
        """The block elements of ``container`` (the body, or a content control's or custom XML's
        content inside it) in order: paragraphs, tables, and the containers that hold more."""
        for child in container:
            if child.tag == w("p"):
                self._paragraph(child)
            elif child.tag == w("tbl"):
                self._table(child)
            elif child.tag == w("sdt"):
                content = child.find(w("sdtContent"))
                if content is not None:
                    self.body(content)
            elif child.tag == w("customXml"):
                self.body(child)

    def _paragraph_parts(self, p: etree._Element) -> tuple[str, tuple[str | None, int | None], int | None, _Run, bool]:
        ppr = p.find(w("pPr"))
        style_id = self.styles.style_id(ppr)
        run = _Run()
        self._walk(p, run, deleted=False)
        if ppr is not None and ppr.find(w("pPrChange")) is not None:
            change = ppr.find(w("pPrChange"))
            run.changes.append(("format", author(change), date(change), ""))
        mark = ppr.find(w("rPr")) if ppr is not None else None
        mark_deleted = mark is not None and mark.find(w("del")) is not None
        # An inserted or deleted paragraph mark is a change of its own (a paragraph split or joined):
        # Word lists it apart from the text's; it is kept as a change of the text "¶".
        for kind, tag in (("insertion", "ins"), ("deletion", "del")):
            marked = mark.find(w(tag)) if mark is not None else None
            if marked is not None:
                run.changes.append((kind, author(marked), date(marked), PARAGRAPH_MARK))
        # An empty paragraph that only carries a section break shows no number in Word (it is drawn as
        # the break), and LibreOffice drops it: neither counts it.
        section_break_only = ppr is not None and ppr.find(w("sectPr")) is not None and not run.text.strip()
        number = (None, None) if mark_deleted or section_break_only else self.styles.number(ppr, style_id)
        return self.styles.name(style_id), number, self.styles.heading_level(ppr, style_id), run, mark_deleted

    def _paragraph(self, p: etree._Element) -> None:
        style, (number, list_level), level, run, mark_deleted = self._paragraph_parts(p)
        self.page += run.breaks_before_text
        text = clean(self._carried + run.text)
        if mark_deleted:
            # Accepted, a deleted paragraph mark joins this paragraph to the next.
            self._carried = text + " " if text else ""
            self._pending_changes(run)
            self._boxes.extend(run.boxes)
            self.page += run.breaks_after_text
            return
        self._carried = ""
        if text or number:
            self.paragraphs.append(
                DocxParagraph(
                    index=len(self.paragraphs) + 1,
                    text=text,
                    number=number,
                    style=style,
                    heading_level=level,
                    page=self.page,
                    list_level=list_level,
                )
            )
        self._attach(run)
        self.page += run.breaks_after_text
        self._read_boxes(run)

    def _read_boxes(self, run: _Run) -> None:
        """The text boxes anchored in the paragraph(s) just read, in order, as paragraphs of their own."""
        boxes, self._boxes = [*self._boxes, *run.boxes], []
        for box in boxes:
            self.body(box)

    def _pending_changes(self, run: _Run) -> None:
        self._held.append(run)

    def _attach(self, run: _Run) -> None:
        """Changes and comment anchors of ``run`` (and of joined paragraphs) go to the last paragraph."""
        held, self._held = self._held, []
        index = len(self.paragraphs) or 1
        for each in [*held, run]:
            for kind, author, date, text in each.changes:
                self.changes.append(TrackedChange(kind, author, date, clean(text), index))
            for comment_id in each.comment_ids:
                self.comment_anchors.setdefault(comment_id, index)
            self.images += each.images

    def _table(self, tbl: etree._Element) -> None:
        for tr in tbl.iter(w("tr")):
            if _nested_in(tr, w("tbl"), tbl):
                continue
            cells: list[str] = []
            runs: list[_Run] = []
            breaks_before = 0
            for tc in tr.iter(w("tc")):
                if _nested_in(tc, w("tbl"), tbl):
                    continue
                cell_texts: list[str] = []
                for p in tc.iter(w("p")):
                    _, (number, _), _, run, _ = self._paragraph_parts(p)
                    breaks_before += run.breaks_before_text + run.breaks_after_text
                    runs.append(run)
                    text = clean(run.text)
                    if text or number:
                        cell_texts.append(f"{number} {text}".strip() if number else text)
                cells.append(" ".join(cell_texts))
            self.page += breaks_before  # a row that crosses a page is given the later one
            row = " | ".join(cells).strip(" |")
            if row:
                self.paragraphs.append(
                    DocxParagraph(
                        index=len(self.paragraphs) + 1, text=row, style="Table", page=self.page, table_row=True
                    )
                )
            for run in runs:
                self._attach(run)
            for run in runs:
                self._read_boxes(run)

    def _walk(self, element: etree._Element, run: _Run, *, deleted: bool) -> None:
        for child in element:
            tag = child.tag
            if not isinstance(tag, str):
                continue
            if tag == w("r"):
                self._run(child, run, deleted=deleted)
            elif tag in (w("ins"), w("moveTo")):
                start = len(run.parts)
                self._walk(child, run, deleted=deleted)
                run.changes.append(("insertion", author(child), date(child), "".join(run.parts[start:])))
            elif tag in (w("del"), w("moveFrom")):
                removed = _Run()
                self._walk(child, removed, deleted=True)
                run.changes.append(("deletion", author(child), date(child), removed.text))
                run.changes.extend(removed.changes)
                run.comment_ids.extend(removed.comment_ids)
            elif tag in (w("commentRangeStart"), w("commentReference")):
                comment_id = child.get(w("id"))
                if comment_id is not None and comment_id not in run.comment_ids:
                    run.comment_ids.append(str(comment_id))
            elif tag in (w("pPr"), w("rPr"), w("instrText"), w("delInstrText")):
                continue
            elif tag == f"{{{_MC}}}AlternateContent":
                choice = child.find(f"{{{_MC}}}Choice")
                if choice is not None:
                    self._walk(choice, run, deleted=deleted)
            elif tag == w("sdt"):
                content = child.find(w("sdtContent"))
                if content is not None:
                    self._walk(content, run, deleted=deleted)
            elif tag in (w("hyperlink"), w("smartTag"), w("customXml"), w("fldSimple"), w("bdo"), w("dir")):
                self._walk(child, run, deleted=deleted)

    def _run(self, r: etree._Element, run: _Run, *, deleted: bool) -> None:
        for child in r:
            tag = child.tag
            if tag == w("t") or (deleted and tag == w("delText")):
                run.parts.append(child.text or "")
            elif tag == w("tab") or tag == w("ptab"):
                run.parts.append("\t")
            elif tag in (w("br"), w("cr")):
                run.parts.append(" ")
            elif tag == w("noBreakHyphen"):
                run.parts.append("-")
            elif tag == w("sym"):
                char = child.get(w("char"), "")
                run.parts.append(_symbol(str(char)))
            elif tag == w("lastRenderedPageBreak") and not deleted:
                self.rendered_breaks += 1
                if run.text.strip():
                    run.breaks_after_text += 1
                else:
                    run.breaks_before_text += 1
            elif tag in (w("drawing"), w("pict"), w("object")):
                self._shape(child, run)
            elif tag == w("rPr") and child.find(w("rPrChange")) is not None:
                change = child.find(w("rPrChange"))
                run.changes.append(("format", author(change), date(change), ""))
            elif tag == f"{{{_MC}}}AlternateContent":
                self._shape(child, run)

    def _shape(self, element: etree._Element, run: _Run) -> None:
        """A drawing, VML picture, embedded object or ``mc:AlternateContent`` of a run: its text
        boxes are kept to be read after the paragraph; one without any is an image."""
        if element.tag == f"{{{_MC}}}AlternateContent":
            chosen = element.find(f"{{{_MC}}}Choice")
            if chosen is None:
                chosen = element.find(f"{{{_MC}}}Fallback")
            element = chosen if chosen is not None else element
        boxes = [box for box in element.iter(w("txbxContent")) if not _nested_in(box, w("txbxContent"), element)]
        if boxes:
            run.boxes.extend(boxes)
        else:
            run.images += 1


def _nested_in(element: etree._Element, tag: str, outer: etree._Element) -> bool:
    """An element ``tag`` stands between ``element`` and ``outer``: a text box in another text box
    of the shape (read with that one, not again), a row or cell of a table nested in the table."""
    parent = element.getparent()
    while parent is not None and parent is not outer:
        if parent.tag == tag:
            return True
        parent = parent.getparent()
    return False


def _symbol(code: str) -> str:
    try:
        value = int(code, 16)
    except ValueError:
        return ""
    # Symbol-font characters live in the private-use area F000-F0FF: their low byte is the glyph.
    return chr(value - 0xF000) if 0xF020 <= value <= 0xF0FF else chr(value)


def author(element: etree._Element | None) -> str:
    return "" if element is None else str(element.get(w("author"), ""))


def date(element: etree._Element | None) -> str:
    return "" if element is None else str(element.get(w("date"), ""))


def clean(text: str) -> str:
    return _SPACES.sub(" ", text).strip()

"""Reading a Word document (.docx): its paragraphs in order, each with its style, heading level, the
number Word displays before it (``docx_numbering``) and the page Word last laid it out on; tables
as rows; headers, footers and footnotes apart from the body; tracked changes read as accepted and
kept; comments kept with the paragraph they are anchored to.

The XML is read with lxml: python-docx does not compute numbering, and reading the parts directly
keeps tracked changes (``w:ins``/``w:del``) and content controls (``w:sdt``) that it skips.
``DocxPages`` gives ingest one "page" per paragraph or table row, so a passage's page range is
its paragraph range (``summarizer.library.reading.docx_locator`` names it for a reader).
"""

from __future__ import annotations

import dataclasses
import posixpath
import re
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from lxml import etree

from summarizer.errors import DocumentError, NoText
from summarizer.library.reading.docx_numbering import NumberCounter, Numbering, W, w, w_val
from summarizer.library.reading.pdf_extract import PageText, file_sha256
from summarizer.library.storage.metadata_text import clean_metadata_text

_STRICT_W = b"http://purl.oclc.org/ooxml/wordprocessingml/main"
_MC = "http://schemas.openxmlformats.org/markup-compatibility/2006"
_DC = "http://purl.org/dc/elements/1.1/"
_REL = "http://schemas.openxmlformats.org/package/2006/relationships"
_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True)
_HEADING_NAME = re.compile(r"^heading\s*([1-9])$", re.IGNORECASE)
_SPACES = re.compile(r"[ \t\u00a0]+")
PARAGRAPH_MARK = "¶"  # the text of a tracked change to a paragraph mark


@dataclass(frozen=True, slots=True)
class DocxParagraph:
    index: int  # 1-based among the body's paragraphs and table rows that have text
    text: str  # the text as it reads with all changes accepted, without its number
    number: str | None = None  # what Word displays before it: "7.2", "(a)", "ARTICLE 7"
    style: str = ""  # the style's name ("Heading 2")
    heading_level: int | None = None  # 1-9 from the outline level or a "Heading N" style
    page: int | None = None  # from w:lastRenderedPageBreak; None when the file records none
    table_row: bool = False
    list_level: int | None = None  # the numbering level (w:ilvl) its number was counted at

    @property
    def display_text(self) -> str:
        """The paragraph as it reads in Word: its number, then its text."""
        if self.number:
            return f"{self.number} {self.text}".strip()
        return self.text


@dataclass(frozen=True, slots=True)
class TrackedChange:
    kind: str  # insertion | deletion | format
    author: str
    date: str
    text: str
    paragraph: int  # DocxParagraph.index it falls in


@dataclass(frozen=True, slots=True)
class Comment:
    comment_id: str
    author: str
    date: str
    text: str
    paragraph: int | None  # DocxParagraph.index of its anchor; None when the anchor was not found


@dataclass(frozen=True, slots=True)
class Furniture:
    part: str  # header | footer | footnote | endnote
    text: str


@dataclass(slots=True)
class DocxDocument:
    path: Path
    title: str
    paragraphs: list[DocxParagraph]
    changes: list[TrackedChange] = field(default_factory=list)
    comments: list[Comment] = field(default_factory=list)
    furniture: list[Furniture] = field(default_factory=list)
    has_rendered_pages: bool = False
    images: int = 0
    warnings: list[str] = field(default_factory=list)

    @property
    def numbered(self) -> list[DocxParagraph]:
        return [p for p in self.paragraphs if p.number]


@dataclass(frozen=True, slots=True)
class _Style:
    name: str
    based_on: str | None
    num_id: str | None
    ilvl: int | None
    outline_level: int | None


@dataclass(slots=True)
class _Run:
    """What one paragraph's walk collects."""

    parts: list[str] = field(default_factory=list)
    changes: list[tuple[str, str, str, str]] = field(default_factory=list)  # kind, author, date, text
    comment_ids: list[str] = field(default_factory=list)
    breaks_before_text: int = 0
    breaks_after_text: int = 0
    images: int = 0

    @property
    def text(self) -> str:
        return "".join(self.parts)


class _PartReader:
    def __init__(self, archive: zipfile.ZipFile, path: Path) -> None:
        self.archive = archive
        self.path = path
        self.names = set(archive.namelist())

    def read(self, name: str) -> bytes | None:
        if name not in self.names:
            return None
        data = self.archive.read(name)
        # Strict Open XML differs from the usual (transitional) form mostly in its namespaces.
        return data.replace(_STRICT_W, W.encode()) if _STRICT_W in data else data

    def xml(self, name: str) -> etree._Element | None:
        data = self.read(name)
        if data is None:
            return None
        try:
            return etree.fromstring(data, parser=_PARSER)
        except etree.XMLSyntaxError as error:
            raise DocumentError(
                f"{self.path} is damaged: its part {name} is not valid XML ({error}). Open it in Word, which may "
                "repair it, and save it again.",
                path=self.path,
            ) from None


def _main_part(parts: _PartReader) -> str:
    rels = parts.xml("_rels/.rels")
    if rels is not None:
        for rel in rels.iter(f"{{{_REL}}}Relationship"):
            if str(rel.get("Type", "")).endswith("/officeDocument"):
                return str(rel.get("Target", "")).lstrip("/")
    return "word/document.xml"


def _styles(root: etree._Element | None) -> tuple[dict[str, _Style], str | None, dict[str, str]]:
    """Paragraph styles by id, the default paragraph style, numbering styles → their numId."""
    styles: dict[str, _Style] = {}
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
        styles[str(style_id)] = _Style(
            name=w_val(style.find(w("name"))) or str(style_id),
            based_on=w_val(style.find(w("basedOn"))),
            num_id=num_id,
            ilvl=int(ilvl) if ilvl and ilvl.isdigit() else None,
            outline_level=int(outline) if outline and outline.isdigit() else None,
        )
        if style.get(w("default")) in ("1", "true", "on"):
            default = str(style_id)
    return styles, default, numbering_styles


class _Reader:
    def __init__(self, parts: _PartReader, numbering: Numbering, styles: dict[str, _Style], default: str | None):
        self.parts = parts
        self.numbering = numbering
        self.counter = NumberCounter(numbering)
        self.styles = styles
        self.default_style = default
        self.paragraphs: list[DocxParagraph] = []
        self.changes: list[TrackedChange] = []
        self.comment_anchors: dict[str, int] = {}
        self.page = 1
        self.rendered_breaks = 0
        self.images = 0
        self._held: list[_Run] = []  # the walks of paragraphs joined to the next one
        self._carried = ""  # text of a paragraph whose mark was deleted: it joins the next one

    # --- styles and numbering ----------------------------------------------------------------
    def _chain(self, style_id: str | None) -> Iterator[tuple[str, _Style]]:
        seen: set[str] = set()
        while style_id and style_id in self.styles and style_id not in seen:
            seen.add(style_id)
            style = self.styles[style_id]
            yield style_id, style
            style_id = style.based_on

    def _number(self, ppr: etree._Element | None, style_id: str | None) -> tuple[str | None, int | None]:
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

    def _heading_level(self, ppr: etree._Element | None, style_id: str | None) -> int | None:
        own = w_val(ppr.find(w("outlineLvl"))) if ppr is not None else None
        if own is not None and own.isdigit():
            return int(own) + 1 if int(own) < 9 else None
        for _, style in self._chain(style_id):
            if style.outline_level is not None:
                return style.outline_level + 1 if style.outline_level < 9 else None
            if match := _HEADING_NAME.match(style.name):
                return int(match.group(1))
        return None

    # --- the walk ----------------------------------------------------------------------------
    def body(self, container: etree._Element) -> None:
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
        style_id = w_val(ppr.find(w("pStyle"))) if ppr is not None else None
        style_id = style_id or self.default_style
        run = _Run()
        self._walk(p, run, deleted=False)
        if ppr is not None and ppr.find(w("pPrChange")) is not None:
            change = ppr.find(w("pPrChange"))
            run.changes.append(("format", _author(change), _date(change), ""))
        mark = ppr.find(w("rPr")) if ppr is not None else None
        mark_deleted = mark is not None and mark.find(w("del")) is not None
        # An inserted or deleted paragraph mark is a change of its own (a paragraph split or joined):
        # Word lists it apart from the text's; it is kept as a change of the text "¶".
        for kind, tag in (("insertion", "ins"), ("deletion", "del")):
            marked = mark.find(w(tag)) if mark is not None else None
            if marked is not None:
                run.changes.append((kind, _author(marked), _date(marked), PARAGRAPH_MARK))
        # An empty paragraph that only carries a section break shows no number in Word (it is drawn as
        # the break), and LibreOffice drops it: neither counts it.
        section_break_only = ppr is not None and ppr.find(w("sectPr")) is not None and not run.text.strip()
        number = (None, None) if mark_deleted or section_break_only else self._number(ppr, style_id)
        style = self.styles[style_id].name if style_id in self.styles else (style_id or "")
        return style, number, self._heading_level(ppr, style_id), run, mark_deleted

    def _paragraph(self, p: etree._Element) -> None:
        style, (number, list_level), level, run, mark_deleted = self._paragraph_parts(p)
        self.page += run.breaks_before_text
        text = _clean(self._carried + run.text)
        if mark_deleted:
            # Accepted, a deleted paragraph mark joins this paragraph to the next.
            self._carried = text + " " if text else ""
            self._pending_changes(run)
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

    def _pending_changes(self, run: _Run) -> None:
        self._held.append(run)

    def _attach(self, run: _Run) -> None:
        """Changes and comment anchors of ``run`` (and of joined paragraphs) go to the last paragraph."""
        held, self._held = self._held, []
        index = len(self.paragraphs) or 1
        for each in [*held, run]:
            for kind, author, date, text in each.changes:
                self.changes.append(TrackedChange(kind, author, date, _clean(text), index))
            for comment_id in each.comment_ids:
                self.comment_anchors.setdefault(comment_id, index)
            self.images += each.images

    def _table(self, tbl: etree._Element) -> None:
        for tr in tbl.iter(w("tr")):
            if _inside_nested_table(tr, tbl):
                continue
            cells: list[str] = []
            runs: list[_Run] = []
            breaks_before = 0
            for tc in tr.iter(w("tc")):
                if _inside_nested_table(tc, tbl):
                    continue
                cell_texts: list[str] = []
                for p in tc.iter(w("p")):
                    _, (number, _), _, run, _ = self._paragraph_parts(p)
                    breaks_before += run.breaks_before_text + run.breaks_after_text
                    runs.append(run)
                    text = _clean(run.text)
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
                run.changes.append(("insertion", _author(child), _date(child), "".join(run.parts[start:])))
            elif tag in (w("del"), w("moveFrom")):
                removed = _Run()
                self._walk(child, removed, deleted=True)
                run.changes.append(("deletion", _author(child), _date(child), removed.text))
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
                run.images += 1
            elif tag == w("rPr") and child.find(w("rPrChange")) is not None:
                change = child.find(w("rPrChange"))
                run.changes.append(("format", _author(change), _date(change), ""))
            elif tag == f"{{{_MC}}}AlternateContent":
                run.images += 1


def _inside_nested_table(element: etree._Element, table: etree._Element) -> bool:
    parent = element.getparent()
    while parent is not None and parent is not table:
        if parent.tag == w("tbl"):
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


def _author(element: etree._Element | None) -> str:
    return "" if element is None else str(element.get(w("author"), ""))


def _date(element: etree._Element | None) -> str:
    return "" if element is None else str(element.get(w("date"), ""))


def _clean(text: str) -> str:
    return _SPACES.sub(" ", text).strip()


def _text_of(element: etree._Element) -> str:
    pieces: list[str] = []
    for p in element.iter(w("p")):
        text = "".join(t.text or "" for t in p.iter(w("t")))
        if text.strip():
            pieces.append(_clean(text))
    return "\n".join(pieces)


def _title(parts: _PartReader, path: Path) -> str:
    core = parts.xml("docProps/core.xml")
    title = ""
    if core is not None:
        element = core.find(f"{{{_DC}}}title")
        if element is not None and element.text:
            title = clean_metadata_text(element.text)
    return title if sum(ch.isalpha() for ch in title) >= 3 else path.stem


def _furniture(parts: _PartReader, main: str) -> list[Furniture]:
    folder = posixpath.dirname(main)
    out: list[Furniture] = []
    seen: set[tuple[str, str]] = set()
    for name in sorted(parts.names):
        if posixpath.dirname(name) != folder:
            continue
        base = posixpath.basename(name)
        kind = next((k for k in ("header", "footer", "footnote", "endnote") if base.startswith(k)), None)
        if kind is None or not base.endswith(".xml"):
            continue
        root = parts.xml(name)
        if root is None:
            continue
        notes = list(root.iter(w(kind))) if kind in ("footnote", "endnote") else [root]
        for note in notes:
            if note.get(w("type")) in ("separator", "continuationSeparator", "continuationNotice"):
                continue
            text = _text_of(note)
            if text and (kind, text) not in seen:
                seen.add((kind, text))
                out.append(Furniture(kind, text))
    return out


def _comments(parts: _PartReader, main: str, anchors: dict[str, int]) -> list[Comment]:
    root = parts.xml(posixpath.join(posixpath.dirname(main), "comments.xml"))
    if root is None:
        return []
    return [
        Comment(
            comment_id=str(c.get(w("id"), "")),
            author=_author(c),
            date=_date(c),
            text=_text_of(c),
            paragraph=anchors.get(str(c.get(w("id"), ""))),
        )
        for c in root.iter(w("comment"))
    ]


def read_docx(path: Path) -> DocxDocument:
    """Read a Word document; raises DocumentError (or NoText) naming the file when it cannot be read."""
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as error:
        raise DocumentError(
            f"{path} is damaged: it is not a complete Word file ({error}). Re-download it, or open it in Word, "
            "which may repair it, and save it again.",
            path=path,
        ) from None
    with archive:
        parts = _PartReader(archive, path)
        main = _main_part(parts)
        document = parts.xml(main)
        if document is None:
            raise DocumentError(f"{path} has no document part ({main}): it is not a Word document.", path=path)
        warnings: list[str] = []
        styles, default, numbering_styles = _styles(parts.xml(posixpath.join(posixpath.dirname(main), "styles.xml")))
        try:
            numbering = Numbering.parse(
                parts.read(posixpath.join(posixpath.dirname(main), "numbering.xml")), numbering_styles
            )
        except etree.XMLSyntaxError:
            numbering = Numbering()
            warnings.append(
                "its list numbering (numbering.xml) is damaged, so clause numbers Word adds automatically are "
                "missing: the text is read as it is written"
            )
        reader = _Reader(parts, numbering, styles, default)
        body = document.find(w("body"))
        if body is not None:
            reader.body(body)
        pages_recorded = reader.rendered_breaks > 0
        paragraphs = reader.paragraphs
        if not pages_recorded:
            paragraphs = [_without_page(p) for p in paragraphs]
        result = DocxDocument(
            path=path,
            title=_title(parts, path),
            paragraphs=paragraphs,
            changes=reader.changes,
            comments=_comments(parts, main, reader.comment_anchors),
            furniture=_furniture(parts, main),
            has_rendered_pages=pages_recorded,
            images=reader.images,
            warnings=warnings,
        )
    if not any(p.text for p in result.paragraphs):
        if result.images:
            raise NoText(
                f"{path} holds only images ({result.images}), no text: a scanned document pasted into Word? "
                "Export it as PDF and add that, so its pages can be read by OCR.",
                path=path,
            )
        raise NoText(f"{path} is an empty Word document: it has no text to add.", path=path)
    return result


def _without_page(paragraph: DocxParagraph) -> DocxParagraph:
    return dataclasses.replace(paragraph, page=None)


class DocxPages:
    """A Word document as ingest reads it: one "page" per paragraph or table row, numbered from 1."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.content_sha256 = file_sha256(path)
        self.document = read_docx(path)
        self.title = self.document.title
        self.page_count = len(self.document.paragraphs)

    def pages(self, start: int = 1) -> Iterator[PageText]:
        for paragraph in self.document.paragraphs[start - 1 :]:
            yield PageText(number=paragraph.index, text=paragraph.display_text)

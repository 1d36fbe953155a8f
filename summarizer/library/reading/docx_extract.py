"""Reading a Word document (.docx): its paragraphs in order, each with its style, heading level, the
number Word displays before it and the page Word last laid it out on; tables as rows; headers,
footers and footnotes apart from the body; tracked changes read as accepted and kept; comments kept
with the paragraph they are anchored to.

The XML is read with lxml: python-docx does not compute numbering, and reading the parts directly
keeps tracked changes (``w:ins``/``w:del``) and content controls (``w:sdt``) that it skips.
``read_docx`` puts the document together from its jobs: the file's parts (``docx_package``), the
styles and the numbers they give (``docx_styles``, ``docx_numbering``), the walk of the body
(``docx_body``) and here the parts beside the body (title, headers, footers, notes, comments).
``DocxPages`` gives ingest one "page" per paragraph or table row, so a passage's page range is
its paragraph range (``summarizer.library.reading.docx_locator`` names it for a reader).
"""

from __future__ import annotations

import dataclasses
import posixpath
import zipfile
from collections.abc import Iterator
from pathlib import Path

from lxml import etree

from summarizer.errors import DocumentError, NoText
from summarizer.library.reading.docx_body import BodyReader, author, clean, date
from summarizer.library.reading.docx_document import Comment, DocxDocument, DocxParagraph, Furniture
from summarizer.library.reading.docx_limits import check_text
from summarizer.library.reading.docx_numbering import Numbering, w
from summarizer.library.reading.docx_package import PartReader, main_part
from summarizer.library.reading.docx_styles import ParagraphStyles, read_styles
from summarizer.library.reading.pdf_extract import PageText, file_sha256
from summarizer.library.storage.metadata_text import clean_metadata_text

_DC = "http://purl.org/dc/elements/1.1/"


def _text_of(element: etree._Element) -> str:
    pieces: list[str] = []
    for p in element.iter(w("p")):
        text = "".join(t.text or "" for t in p.iter(w("t")))
        if text.strip():
            pieces.append(clean(text))
    return "\n".join(pieces)


def _title(parts: PartReader, path: Path) -> str:
    core = parts.xml("docProps/core.xml")
    title = ""
    if core is not None:
        element = core.find(f"{{{_DC}}}title")
        if element is not None and element.text:
            title = clean_metadata_text(element.text)
    return title if sum(ch.isalpha() for ch in title) >= 3 else path.stem


def _furniture(parts: PartReader, main: str) -> list[Furniture]:
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


def _comments(parts: PartReader, main: str, anchors: dict[str, int]) -> list[Comment]:
    root = parts.xml(posixpath.join(posixpath.dirname(main), "comments.xml"))
    if root is None:
        return []
    return [
        Comment(
            comment_id=str(c.get(w("id"), "")),
            author=author(c),
            date=date(c),
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
        parts = PartReader(archive, path)
        main = parts.main = main_part(parts)
        document = parts.xml(main)
        if document is None:
            raise DocumentError(f"{path} has no document part ({main}): it is not a Word document.", path=path)
        warnings: list[str] = []
        styles, default, numbering_styles = read_styles(
            parts.xml(posixpath.join(posixpath.dirname(main), "styles.xml"))
        )
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
        reader = BodyReader(ParagraphStyles(numbering, styles, default))
        body = document.find(w("body"))
        if body is not None:
            try:
                reader.body(body)
            except RecursionError:  # lxml allows 2,048 levels with huge_tree; the walk recurses per level
                raise DocumentError(
                    f"{path} was not added: its content is nested deeper than Pagewise reads (content controls "
                    "or links inside one another hundreds of times, which real documents never are). Export it "
                    "as PDF and add that.",
                    path=path,
                ) from None
        check_text([p.display_text for p in reader.paragraphs], path)
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

"""What a Word document is read as (``docx_extract.read_docx``): its paragraphs and table rows in
order, each with what Word shows of it, its tracked changes and comments with the paragraph they
fall in, and the parts apart from the body (headers, footers, footnotes)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

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

"""Page and paragraph labels ("p. 3", "pp. 3–7", "¶ 51", "¶ 95–97"): the one place they are written.

The style a reader sees, in the window and in every export (Word memo, Excel, Markdown, CSV), is
``DISPLAY``: an en dash between the numbers of a range and a no-break space after the mark, so
"pp. 3–7" and "¶ 95–97". The en dash is what legal citation uses for a span (The Bluebook
writes "at 3–7", "¶¶ 40–42"); the no-break space keeps "pp." from ending one line with
"3–7" at the start of the next, in a pane as narrow as a table cell. A paragraph range keeps the
single "¶" of the labels already stored with the documents of a library (Word locators,
summarizer/library/reading/docx_locator.py), so an old document and a new one read alike.

``TEXT`` is the same glyphs with ordinary spaces, for what the commands print themselves
(search, summarize, ask: a terminal wraps by column, not by word; ``pagewise review`` prints the
exports' labels) and for the Word locators stored in the library, which are searched as text and
given their no-break spaces where they are shown (app/services/answering.py: CitationView.where). ``PROMPT`` is
what the model reads: a hyphen and ordinary spaces, as the citation forms the prompts teach it
("[pp. 3-4]", summarizer/answers/answer_wording.py), every character one it has seen often.

tests/summarizer/test_page_labels.py fails on a label built anywhere else.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class LabelStyle:
    dash: str  # between the first and the last number of a range
    space: str  # after the mark ("p.", "pp.", "¶")


DISPLAY = LabelStyle("\u2013", "\u00a0")
"""The window and the exports: "pp. 3–7" with a no-break space."""
TEXT = LabelStyle("\u2013", " ")
"""Terminal output and stored Word locators: "pp. 3–7"."""
PROMPT = LabelStyle("-", " ")
"""Text given to the model: "pp. 3-7"."""

PAGE_MARK = "p."
PAGES_MARK = "pp."
PARAGRAPH_MARK = "¶"


def _range(first: int, last: int | None, style: LabelStyle) -> str:
    return str(first) if last is None or last <= first else f"{first}{style.dash}{last}"


def page_label(first: int, last: int | None = None, style: LabelStyle = DISPLAY) -> str:
    """``p. 3`` for one page, ``pp. 3–7`` for a run of them (``last`` before ``first``: one page)."""
    mark = PAGE_MARK if last is None or last <= first else PAGES_MARK
    return f"{mark}{style.space}{_range(first, last, style)}"


def paragraph_label(first: int, last: int | None = None, style: LabelStyle = DISPLAY) -> str:
    """``¶ 51`` for one paragraph, ``¶ 95–97`` for a run of them."""
    return f"{PARAGRAPH_MARK}{style.space}{_range(first, last, style)}"


def unit_label(first: int, last: int | None = None, *, word: bool = False, style: LabelStyle = DISPLAY) -> str:
    """A page label, or a paragraph label for a Word document (whose "pages" in the library are
    its paragraphs: summarizer/library/word_parts.py)."""
    return paragraph_label(first, last, style) if word else page_label(first, last, style)


def pages_list_label(pages: Iterable[int], *, word: bool = False, style: LabelStyle = DISPLAY) -> str:
    """Pages or paragraphs named one by one: ``p. 4``, ``pp. 4, 9`` (``¶ 4, 9`` for paragraphs)."""
    numbers = [str(page) for page in pages]
    mark = PARAGRAPH_MARK if word else PAGE_MARK if len(numbers) == 1 else PAGES_MARK
    return f"{mark}{style.space}{', '.join(numbers)}"

"""OCR lines laid out as pypdf lays out a text layer, so that a scan is cut like its original."""

from __future__ import annotations

import re

from summarizer.library.cutting.clauses import clause_starts
from summarizer.library.cutting.normalize import normalize
from summarizer.library.cutting.passages import split_passages
from summarizer.library.reading.ocr_engine import RawWord, assemble_page, turned_over
from summarizer.library.reading.pdf_extract import PdfPages
from summarizer.library.vectors.chunk_tokenizer import chunk_tokenizer
from tests.conftest import CONTRACTS

LINE_PX = 40
_MARKER = re.compile(r"(?:\d{1,3}(?:\.\d{1,3})*\.?|\([a-z]{1,2}\)|ARTICLE [IVX]+)\s+")


def _words(text: str, left: float, top: float) -> list[RawWord]:
    """A box per word, 12 pixels a character, as RapidOCR gives a run of words."""
    words: list[RawWord] = []
    for match in re.finditer(r"\S+", text):
        x0 = left + 12 * match.start()
        words.append((match.group(), 0.99, (x0, top, x0 + 12 * len(match.group()), top + 30)))
    return words


def scanned_lines(text: str) -> list[list[RawWord]]:
    """The lines a detector finds on a printed page of ``text``: a clause number stands apart
    from its words (its own box, listed after them), a clause or a sentence that ends a line is
    set apart by 0.4 of a line's space, and an empty line of the text is a line's space."""
    lines: list[list[RawWord]] = []
    top = 100.0
    previous = ""
    for line in text.splitlines():
        if not line.strip():
            top += LINE_PX  # an empty line (pypdf gives its no-break space: a paragraph break)
            continue
        marker = _MARKER.match(line)
        if previous.rstrip().endswith((".", ":")) or marker:
            top += 0.4 * LINE_PX  # the space a paragraph is set apart by
        if marker:
            lines.append(_words(line[marker.end() :], 300, top + 2))  # 2 pixels lower, listed first
            lines.append(_words(marker.group().strip(), 150, top))
        else:
            lines.append(_words(line, 150, top))
        top += LINE_PX
        previous = line
    return lines


def test_a_clause_number_in_a_box_of_its_own_starts_the_clause_on_its_line() -> None:
    lines = [
        [
            ("Order", 0.99, (300, 102, 360, 132)),
            ("and", 0.99, (370, 102, 400, 132)),
            ("Priority.", 0.99, (410, 102, 500, 132)),
        ],
        [("4.", 0.99, (150, 100, 170, 130))],
        [("The", 0.99, (150, 140, 190, 170)), ("Parties", 0.99, (200, 140, 280, 170))],
    ]
    page = assemble_page(lines, points_per_pixel=1.0)
    assert page.text == "4.   Order and Priority.\nThe Parties"  # far apart: a run of spaces, as pypdf gives
    assert [page.text[w.start : w.end] for w in page.words] == ["4.", "Order", "and", "Priority.", "The", "Parties"]
    assert page.words[0].box == (150.0, 100.0, 170.0, 130.0)
    clauses = clause_starts(normalize(page.text), page.text)
    assert [(c.label, c.title) for c in clauses] == [("4", "Order and Priority")]


def test_a_clause_number_read_into_its_first_word_is_split_from_it() -> None:
    lines = [
        [
            ("4.Order", 0.95, (100, 100, 170, 130)),
            ("of", 0.99, (180, 100, 200, 130)),
            ("Priority.", 0.99, (210, 100, 300, 130)),
        ],
        [("(a)The", 0.95, (100, 140, 160, 170)), ("Party", 0.99, (170, 140, 220, 170))],
    ]
    page = assemble_page(lines, points_per_pixel=1.0)
    assert page.text == "4. Order of Priority.\n(a) The Party"
    assert [page.text[w.start : w.end] for w in page.words][:2] == ["4.", "Order"]
    assert page.words[0].box == (100.0, 100.0, 120.0, 130.0)  # the first 2 of 7 characters
    assert page.words[1].box == (120.0, 100.0, 170.0, 130.0)
    labels = [c.label for c in clause_starts(normalize(page.text), page.text)]
    assert labels == ["4", "(a)"]
    assert assemble_page([[("2014.", 0.99, (100, 100, 150, 130))]], 1.0).text == "2014."  # a year, not a clause


def test_only_an_empty_line_is_a_paragraph_break() -> None:
    """pypdf gives a blank line only for an empty line of the page, not for the space a paragraph
    is set apart by: a scan's blank line elsewhere would cut passages its original does not."""
    tops = [100, 140, 180, 236, 276, 356, 396]  # lines 40 pixels apart; 1.4 and 2 lines' space
    lines = [[(f"line{n}", 0.99, (150, top, 400, top + 30))] for n, top in enumerate(tops)]
    page = assemble_page(lines, points_per_pixel=1.0)
    assert page.text == "line0\nline1\nline2\nline3\nline4\n\nline5\nline6"


def test_a_scanned_contract_is_cut_into_the_same_passages_as_its_text_layer() -> None:
    # Runs of spaces made one, as OCR reads them: a passage is also held to 2,000 raw characters,
    # and endorsement-8p's text layer has lines of no-break spaces that a scan cannot give back.
    pages = [(p.number, re.sub(r"[ \xa0]+", " ", p.text)) for p in PdfPages(CONTRACTS / "endorsement-8p.pdf").pages()]
    scanned = [(number, assemble_page(scanned_lines(text), 0.24).text) for number, text in pages]

    def cut(pages: list[tuple[int, str]]) -> list[tuple[int, str, str]]:
        return [(p.page_start, p.heading, p.search_text) for p in split_passages(pages, chunk_tokenizer())]

    original, scan = cut(pages), cut(scanned)
    assert len(original) > 10
    assert scan == original


def test_a_page_read_turned_over_keeps_its_reading_order_and_its_boxes_go_back_on_the_page() -> None:
    read_turned = [_words("First line.", 100, 100), _words("Second line.", 100, 140)]  # in the turned image
    page = turned_over(assemble_page(read_turned, 0.5), width=500.0, height=400.0)
    assert page.text == "First line.\nSecond line."
    assert page.words[0].box == (500.0 - 0.5 * 160, 400.0 - 0.5 * 130, 500.0 - 0.5 * 100, 400.0 - 0.5 * 100)  # "First"


def test_a_list_letter_read_as_a_capital_is_small_again_after_the_letter_before_it() -> None:
    rows = ["b. Company shall track sales.", "C. CSA may audit them.", "iv. Engages in conduct;", "V. Engages in more;"]
    rows += ["C. Smith signs for the Company."]  # after "v.": an initial, not a list letter
    page = assemble_page([_words(text, 100, 100 + 40 * n) for n, text in enumerate(rows)], 1.0)
    assert page.text.splitlines() == [
        "b. Company shall track sales.",
        "c. CSA may audit them.",
        "iv. Engages in conduct;",
        "v. Engages in more;",
        "C. Smith signs for the Company.",
    ]
    assert [c.label for c in clause_starts(normalize(page.text), page.text)] == ["b.", "c.", "v."]


def test_a_table_of_contents_read_by_ocr_starts_no_clause() -> None:
    """Its page numbers stand far from their titles: a run of spaces, as in the text layer."""
    entries = ["1. DEFINITIONS", "2. RESEARCH PROJECTS", "3. MANAGEMENT COMMITTEE", "4. EXCLUSIVITY", "5. TERM"]
    lines = []
    for n, entry in enumerate(entries):
        top = 100 + 40 * n
        lines += [_words(entry, 100, top), _words(str(n + 3), 1000, top)]
    page = assemble_page(lines, 1.0)
    assert page.text.splitlines()[0] == "1. DEFINITIONS   3"
    assert clause_starts(normalize(page.text), page.text) == []
    assert assemble_page([_words("1. Term of the Agreement", 100, 100)], 1.0).text == "1. Term of the Agreement"

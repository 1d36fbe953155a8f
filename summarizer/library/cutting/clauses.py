"""Where a contract's clauses start, and the heading path each one sits under.

Contracts are numbered: ``ARTICLE VI`` / ``TERM AND TERMINATION``, ``6.3. Termination for
Breach.``, ``(a) By Licensor. …``, ``Section 5``, ``2A. ADDITIONAL DUTIES``. PDF text keeps
those markers at the start of a line, so a clause start is a line (in the raw page text) that
begins with a marker, or a short all-capitals heading line. Each start has a *level* (an
article is above a section, a section above its sub-clause) and a *title* where the text
gives one (``Termination for Breach``); ``HeadingTracker`` keeps the path of titles that the
text under it belongs to, across pages.

Only what the text shows is used: a document with no markers has no clause starts and is cut
at paragraphs and sentences as before.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from summarizer.library.cutting.normalize import PARAGRAPH_BREAK, NormalizedText

# Levels: lower is higher in the document's outline.
LEVEL_ARTICLE = 0  # ARTICLE / PART / EXHIBIT / SCHEDULE ...
LEVEL_HEADING = 1  # an unnumbered heading line in capitals
LEVEL_SECTION = 1  # "5." / "Section 5"; each ".N" adds one
LEVEL_LETTER = 6  # "(a)", "a."
LEVEL_ROMAN = 7  # "(iv)"
LEVEL_NUMBER_IN_PARENS = 8  # "(3)"

_ARTICLE = re.compile(
    r"(?:ARTICLE|Article|PART|Part|SCHEDULE|Schedule|EXHIBIT|Exhibit|ANNEX|Annex|APPENDIX|Appendix|ATTACHMENT|Attachment)"
    r"\s+(?:[IVXLC]+|\d{1,3}|[A-Z])\b\.?(?=\s|$)"
)
_ATTACHMENT = re.compile(r"(?:EXHIBIT|Exhibit|SCHEDULE|Schedule|ANNEX|Annex|APPENDIX|Appendix|ATTACHMENT|Attachment)\s")
_SECTION_WORD = re.compile(r"(?:SECTION|Section|§)\s*(\d{1,3}(?:\.\d{1,3})*)[.:]?(?=\s|$)")
# "5.", "6.3", "6.3.", "10.11", "2A." followed by a capital, a quote or an opening bracket.
_NUMBERED = re.compile(r"(\d{1,3}[A-Z]?(?:\.\d{1,3})*)(?:\.|\))?\s+(?=[A-Z“\"‘'(\[])")
_LETTER_IN_PARENS = re.compile(r"\(([a-z]{1,2}|[ivx]{1,5}|\d{1,2})\)\s+")
_LETTER_DOT = re.compile(r"([a-z])[.)]\s+(?=[A-Z“\"(])")
# A table-of-contents line: a title and then a page number at the end of the raw line.
_TOC_LINE = re.compile(r"\S.*?(?:\s{2,}|\.{3,}\s*)\d{1,4}\s*$")
_SMALL_WORDS = frozenset("a an and as at by for from in into of on or the to with without under upon".split())
# A line ending in a word a cross-reference's number follows ("… the breaching Party, Article").
_REFERENCE_WORD_END = re.compile(
    r"(?:\b(?:articles?|sections?|clauses?|paragraphs?|sub-?sections?|schedules?|exhibits?|annex(?:es)?"
    r"|appendix|appendices|attachments?)|§§?)\s*$",
    re.IGNORECASE,
)
MAX_TITLE_WORDS = 12
PREAMBLE = "Preamble"
PREAMBLE_PAGES = 5
# A page is a table of contents when this many lines, and this share of its lines, end in a
# page number: its lines name clauses but start none.
TOC_PAGE_MIN_LINES = 5
TOC_PAGE_SHARE = 0.3
MAX_HEADING_LINE_WORDS = 10


@dataclass(frozen=True, slots=True)
class ClauseStart:
    """A clause starting at normalized offset ``start`` of a page."""

    start: int
    level: int
    label: str  # the marker as written: "6.3", "ARTICLE VI", "(a)"; empty for a heading line
    title: str  # "Termination for Breach", or empty
    number: tuple[str, ...] = ()  # "6.3" -> ("6", "3"): numbered clauses only

    @property
    def heading(self) -> str:
        return " ".join(part for part in (self.label, self.title) if part)


def is_attachment_heading(heading: str) -> bool:
    """True for a heading path that starts in an exhibit, schedule, annex or appendix."""
    return bool(_ATTACHMENT.match(heading.removeprefix(PREAMBLE + " > ")))


def line_starts(norm: NormalizedText, raw: str) -> list[int]:
    """Normalized offsets that begin a line of the raw text (paragraph starts included)."""
    text = norm.text
    starts = [0] if text else []
    for i in range(1, len(text)):
        if text[i - 1] not in " \n" or text[i] in " \n":
            continue
        if "\n" in raw[norm.raw_index[i - 1] : norm.raw_index[i]]:
            starts.append(i)
    return starts


def page_lines(norm: NormalizedText, raw: str) -> Iterator[tuple[int, str, str]]:
    """``(start, normalized line, raw line)`` for each line of the page."""
    text = norm.text
    starts = line_starts(norm, raw)
    for n, start in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(text)
        line = text[start:end].replace(PARAGRAPH_BREAK, " ").strip()
        raw_start = norm.raw_index[start]
        raw_end = raw.find("\n", raw_start)
        yield start, line, raw[raw_start : raw_end if raw_end >= 0 else len(raw)]


def is_caps(text: str) -> bool:
    letters = [c for c in text if c.isalpha()]
    return len(letters) >= 3 and all(c.isupper() for c in letters)


def _is_heading_line(line: str) -> bool:
    """A short line in capitals ("TERM AND TERMINATION", "RECITALS:")."""
    words = line.split()
    return 0 < len(words) <= MAX_HEADING_LINE_WORDS and is_caps(line) and not line.rstrip().endswith(",")


def _title_of(rest: str) -> str:
    """The title a clause's text begins with: a whole line in capitals, or a short phrase in
    title case ending with a full stop ("Termination for Breach. Either Party …")."""
    rest = rest.strip()
    if not rest:
        return ""
    if _is_heading_line(rest):
        return rest.rstrip(" .:")
    match = re.match(r"([^.;:]{2,120}?)[.:](?:\s|$)", rest)
    if match is None:
        return ""
    phrase = match.group(1).strip()
    words = phrase.split()
    if not words or len(words) > MAX_TITLE_WORDS or not (words[0][0].isupper() or words[0][0] in "“\"'‘("):
        return ""
    capitalized = [w for w in words if w[0].isupper() or w[0] in "“\"'‘("]
    lower = [w for w in words if not (w[0].isupper() or w[0] in "“\"'‘(") and w.lower() not in _SMALL_WORDS]
    if lower or not capitalized:
        return ""
    return phrase


def ends_sentence(line: str) -> bool:
    """True after a line that closes a sentence, a heading or a list item (or at the top of a page)."""
    line = line.rstrip()
    return not line or line[-1] in ".:;)]" or _is_heading_line(line)


def numbered_start(line: str, after_sentence: bool) -> ClauseStart | None:
    match = _ARTICLE.match(line)
    if match:
        rest = line[match.end() :].strip()
        title = _title_of(rest)
        # "Article 4 and on USE AND …" at the start of a line is a reference, not a heading.
        if title or not rest or rest[0] in "-–—:.":
            return ClauseStart(0, LEVEL_ARTICLE, match.group(0).rstrip("."), title or rest.strip(" -–—:."))
        return None
    match = _SECTION_WORD.match(line)
    if match:
        number = tuple(match.group(1).split("."))
        label = match.group(0).rstrip(".:")
        return ClauseStart(0, LEVEL_SECTION + len(number) - 1, label, _title_of(line[match.end() :]), number)
    match = _NUMBERED.match(line)
    if match and (after_sentence or "." in match.group(0) or ")" in match.group(0)):
        number = tuple(match.group(1).split("."))
        return ClauseStart(0, LEVEL_SECTION + len(number) - 1, match.group(1), _title_of(line[match.end() :]), number)
    match = _LETTER_IN_PARENS.match(line)
    if match:
        marker = match.group(1)
        rest = line[match.end() :]
        if marker.isdigit():
            # "(30) days after …" is a number written twice, not a clause.
            if not rest[:1].isupper() and rest[:1] not in '“"(':
                return None
            level = LEVEL_NUMBER_IN_PARENS
        elif set(marker) <= set("ivx"):
            level = LEVEL_ROMAN
        else:
            level = LEVEL_LETTER
        return ClauseStart(0, level, f"({marker})", _title_of(rest))
    match = _LETTER_DOT.match(line)
    if match:
        return ClauseStart(0, LEVEL_LETTER, f"{match.group(1)}.", _title_of(line[match.end() :]))
    return None


def is_toc_line(line: str, raw_line: str) -> bool:
    return bool(_TOC_LINE.fullmatch(raw_line.rstrip("\r"))) and not line.rstrip()[-1:].isalpha()


def is_toc_page(lines: list[tuple[int, str, str]]) -> bool:
    """True for a table-of-contents page (``lines`` as ``page_lines`` gives them, blanks left out)."""
    toc_lines = sum(is_toc_line(line, raw_line) for _, line, raw_line in lines)
    return toc_lines >= TOC_PAGE_MIN_LINES and toc_lines >= TOC_PAGE_SHARE * len(lines)


def clause_starts(norm: NormalizedText, raw: str) -> list[ClauseStart]:
    """The clause starts of one page, in order (none on a table-of-contents page)."""
    lines = [(start, line, raw_line) for start, line, raw_line in page_lines(norm, raw) if line]
    if is_toc_page(lines):
        return []
    found: list[ClauseStart] = []
    previous: ClauseStart | None = None
    previous_line = ""
    for start, line, raw_line in lines:
        if is_toc_line(line, raw_line):
            previous, previous_line = None, line
            continue
        after_sentence = ends_sentence(previous_line)
        clause = numbered_start(line, after_sentence)
        if clause is not None and not after_sentence and _REFERENCE_WORD_END.search(previous_line):
            clause = None  # "… as set out in Article" then "14.1. …": the reference's number
        if clause is not None:
            clause = ClauseStart(start, clause.level, clause.label, clause.title, clause.number)
        elif _is_heading_line(line) and after_sentence:
            if previous is not None and previous.level == LEVEL_ARTICLE and not previous.title:
                # "ARTICLE VI" then "TERM AND TERMINATION": one heading on two lines.
                found[-1] = ClauseStart(previous.start, previous.level, previous.label, line.rstrip(" .:"))
                previous, previous_line = None, line
                continue
            if _is_heading_line(previous_line):
                previous_line = line  # a heading that runs over two lines starts once
                continue
            clause = ClauseStart(start, LEVEL_HEADING, "", line.rstrip(" .:"))
        if clause is not None:
            found.append(clause)
        previous, previous_line = clause, line
    return found


class HeadingTracker:
    """The path of headings in effect, updated clause by clause through a document.

    Text before the first numbered clause (or article) on the first ``PREAMBLE_PAGES`` pages is
    under ``PREAMBLE``: a contract's title, parties and date are there (``preamble=False``: no
    such heading, for documents that are not contracts).
    """

    def __init__(self, preamble: bool = True) -> None:
        self._stack: list[ClauseStart] = []
        self._numbered_seen = not preamble

    def path(self, page: int) -> tuple[str, ...]:
        path = tuple(c.heading for c in self._stack if c.heading)
        if not self._numbered_seen and page <= PREAMBLE_PAGES:
            return (PREAMBLE, *path)
        return path

    def enter(self, clause: ClauseStart, page: int) -> tuple[str, ...]:
        if clause.number or clause.level == LEVEL_ARTICLE:
            self._numbered_seen = True
        stack = [c for c in self._stack if c.level < clause.level]
        if clause.number:
            # A numbered clause sits under numbered clauses whose number is a prefix of its own
            # ("6" and "6.3" above "6.3.1"); any other numbered entry is a heading the PDF
            # extracted out of place, or a list that has ended.
            stack = [c for c in stack if not c.number or clause.number[: len(c.number)] == c.number]
        stack.append(clause)
        self._stack = stack
        return self.path(page)

"""Page citations in an answer: found, checked against what the model was given, linked.

Recognised forms (square brackets or parentheses, any case): ``[p. 12]``, ``[p.12]``,
``[pp. 3-4]``, ``[pp. 3–4]``, ``[p. 12, 14]``, ``[pp. 3-4, 7]``, ``[p. 3; p. 5]``,
``[page 12]``, ``[pages 3 and 5]``, and with a document id first, ``[a062c0d4fdaa p. 12]``.
A range gives one citation per page (capped at ``MAX_RANGE`` pages).

A Word document is stored with one "page" per paragraph (``summarizer.library.word_parts``), and
is cited by paragraph or by clause: ``[¶ 91]``, ``[¶¶ 91-93]``, ``[para. 91]``, ``[§ 7.2(a)]``,
``[§ 7.2(a), ¶ 91]``, ``[Section 7.2]``. A paragraph citation is checked as a page of a Word
source (and is invalid against a PDF: a PDF has no paragraph numbers); a clause citation alone is
valid when a Word source given holds that clause or one of its sub-clauses (its
``CitableSource.clauses``), and links to the clause's first paragraph there. ``[p. N]`` of a Word
document still means its paragraph N (what older prompts asked for).

A cited page is valid when it lies in the page range of a passage given to the model (of the
named document, when one is named), or, in whole-document mode, on a page of the given
document that has text (``answer_prompt.pages_given``: one source per run of such pages). A
valid citation links to its passage: its id and the character offsets, in that page's raw text,
of the passage's part on that page, so the viewer can highlight it. Invalid ones are kept in the
list with ``valid=False`` and a reason; none is dropped.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

MAX_RANGE = 20
PAGE_NOT_GIVEN = "page not in the text given"
PARAGRAPH_NOT_GIVEN = "paragraph not in the text given"

_PAGE_WORD = r"(?:pp?\.?|pages?)"
_NUMBERS = r"\d+(?:\s*[-–—]\s*\d+)?"
_SEPARATOR = rf"\s*(?:,|;|&|\band\b)\s*(?:{_PAGE_WORD}\s*)?"
_CITATION_RE = re.compile(
    rf"[\[(]\s*(?:(?P<doc>[A-Za-z0-9_-]{{1,64}})[,:]?\s+)?{_PAGE_WORD}\s*(?P<pages>{_NUMBERS}(?:{_SEPARATOR}{_NUMBERS})*)\s*[\])]",
    re.IGNORECASE,
)
_NUMBER_RE = re.compile(r"(\d+)(?:\s*[-–—]\s*(\d+))?")
_PARAGRAPH_WORD = r"(?:¶¶?|paras?\.?|paragraphs?)"
_PARAGRAPHS = rf"{_NUMBERS}(?:\s*(?:,|;|&|\band\b)\s*(?:{_PARAGRAPH_WORD}\s*)?{_NUMBERS})*"
# "7.2(a)", "7.2.", "12 (b)(ii)": digits first, so that words are never taken for clauses.
_CLAUSE = r"\d+(?:\.\d+)*\.?(?:\s?\([A-Za-z0-9]{1,5}\))*"
_DOC = r"(?:(?P<doc>[A-Za-z0-9_-]{1,64})[,:]?\s+)?"
_WORD_CITATION_RE = re.compile(
    rf"[\[(]\s*{_DOC}(?:"
    rf"(?:§§?|sections?|clauses?|art(?:icle)?\.?)\s*(?P<clause>{_CLAUSE})"
    rf"(?:\s*,?\s*{_PARAGRAPH_WORD}\s*(?P<after>{_PARAGRAPHS}))?"
    rf"|{_PARAGRAPH_WORD}\s*(?P<paragraphs>{_PARAGRAPHS})"
    rf")\s*[\])]",
    re.IGNORECASE,
)


def clause_key(clause: str) -> str:
    """A clause number as compared: "7.2 (a)" and "7.2(A)." → "7.2(a)"."""
    return re.sub(r"\s+", "", clause).rstrip(".").lower()


@dataclass(frozen=True, slots=True)
class CitableSource:
    """Something the model was given: a passage, or a whole document (``passage_id=None``)."""

    doc_id: str
    page_start: int
    page_end: int
    passage_id: int | None = None
    spans: tuple[tuple[int, int, int], ...] = ()
    word: bool = False
    """A Word document's source: its pages are paragraphs, citable as ``[¶ N]``."""
    clauses: tuple[tuple[str, int], ...] = ()
    """A Word source's clauses: (``clause_key`` of the clause a paragraph sits in, paragraph), one
    per paragraph given."""


@dataclass(frozen=True, slots=True)
class Citation:
    doc_id: str | None
    page: int
    passage_id: int | None
    text: str
    """The citation as written in the answer, e.g. ``[pp. 3-4]``."""
    valid: bool
    answer_start: int
    answer_end: int
    """Where ``text`` is in the answer."""
    char_start: int | None = None
    char_end: int | None = None
    """The cited passage's part of ``page``: offsets in the page's raw text."""
    reason: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "doc_id": self.doc_id,
            "page": self.page,
            "passage_id": self.passage_id,
            "text": self.text,
            "valid": self.valid,
            "answer_start": self.answer_start,
            "answer_end": self.answer_end,
            "char_start": self.char_start,
            "char_end": self.char_end,
            "reason": self.reason,
        }


def _pages(numbers: str) -> list[int] | None:
    """The pages of ``3-4, 7`` → [3, 4, 7]; None when a range is reversed or too long."""
    pages: list[int] = []
    for match in _NUMBER_RE.finditer(numbers):
        first = int(match.group(1))
        last = int(match.group(2)) if match.group(2) else first
        if last < first or last - first >= MAX_RANGE:
            return None
        pages.extend(range(first, last + 1))
    return pages


def _resolve_doc(name: str | None, doc_ids: Sequence[str]) -> tuple[str | None, bool]:
    """(document named, whether a name was given that matches no document)."""
    if not name:
        return None, False
    lowered = name.lower()
    matches = [d for d in doc_ids if d.lower() == lowered or (len(lowered) >= 6 and d.lower().startswith(lowered))]
    if len(matches) == 1:
        return matches[0], False
    # A word that is not a document id ("see p. 4", "Section p. 4"): not a document name.
    looks_like_id = any(ch.isdigit() for ch in name) and len(name) >= 8
    return None, looks_like_id


def _link(page: int, doc_id: str | None, sources: Sequence[CitableSource]) -> CitableSource | None:
    for source in sources:
        if doc_id is not None and source.doc_id != doc_id:
            continue
        if source.page_start <= page <= source.page_end:
            return source
    return None


def _offsets(source: CitableSource, page: int) -> tuple[int | None, int | None]:
    for span_page, start, end in source.spans:
        if span_page == page:
            return start, end
    return None, None


def _check(
    page: int, named: str | None, unknown_name: str | None, single_doc: str | None, sources: Sequence[CitableSource]
) -> tuple[str | None, int | None, bool, tuple[int | None, int | None], str]:
    """(doc_id, passage_id, valid, (char_start, char_end), reason) for one cited page."""
    if unknown_name:
        return None, None, False, (None, None), f"unknown document {unknown_name!r}"
    source = _link(page, named, sources)
    if source is None:
        return named or single_doc, None, False, (None, None), PAGE_NOT_GIVEN
    offsets = _offsets(source, page) if source.passage_id is not None else (None, None)
    return source.doc_id, source.passage_id, True, offsets, ""


def _link_clause(clause: str, doc_id: str | None, sources: Sequence[CitableSource]) -> tuple[CitableSource, int] | None:
    """The first source given that holds ``clause`` or a sub-clause of it, with the clause's
    first paragraph there."""
    key = clause_key(clause)
    for source in sources:
        if doc_id is not None and source.doc_id != doc_id:
            continue
        for held, paragraph in source.clauses:
            if held == key or (held.startswith(key) and held[len(key) : len(key) + 1] in (".", "(")):
                return source, paragraph
    return None


_Checked = tuple[str | None, int | None, bool, tuple[int | None, int | None], str]


def _word_checks(
    match: re.Match[str],
    named: str | None,
    unknown_name: str | None,
    single_doc: str | None,
    sources: Sequence[CitableSource],
) -> list[tuple[int, _Checked]]:
    """The checked paragraphs of a Word citation (``_WORD_CITATION_RE``)."""
    word_sources = [source for source in sources if source.word]
    numbers = match.group("paragraphs") or match.group("after")
    if numbers:
        paragraphs = _pages(numbers)
        if paragraphs is None:
            first = int(re.findall(r"\d+", numbers)[0])
            return [(first, (named or single_doc, None, False, (None, None), "paragraph range reversed or too long"))]
        checked = []
        for paragraph in paragraphs:
            result = _check(paragraph, named, unknown_name, single_doc, word_sources)
            if not result[2] and not unknown_name:
                reason = PARAGRAPH_NOT_GIVEN if word_sources else "paragraphs are cited only in Word documents"
                result = (result[0], None, False, (None, None), reason)
            checked.append((paragraph, result))
        return checked
    if unknown_name:
        return [(0, (None, None, False, (None, None), f"unknown document {unknown_name!r}"))]
    found = _link_clause(match.group("clause"), named, word_sources)
    if found is None:
        return [(0, (named or single_doc, None, False, (None, None), "clause not in the text given"))]
    source, paragraph = found
    offsets = _offsets(source, paragraph) if source.passage_id is not None else (None, None)
    return [(paragraph, (source.doc_id, source.passage_id, True, offsets, ""))]


def _in_paragraphs(result: _Checked, sources: Sequence[CitableSource]) -> _Checked:
    """A page citation ("[p. 9]") of a Word document reads as its paragraph: one not given is
    "paragraph not in the text given", not a page."""
    doc_id, passage_id, valid, offsets, reason = result
    if not valid and reason == PAGE_NOT_GIVEN and any(s.word for s in sources if s.doc_id == doc_id):
        return doc_id, passage_id, valid, offsets, PARAGRAPH_NOT_GIVEN
    return result


def find_citations(answer: str, sources: Sequence[CitableSource]) -> list[Citation]:
    """Every page, paragraph or clause citation in ``answer``, in order, each checked against
    ``sources``. A clause citation that matches nothing has page 0."""
    doc_ids = list(dict.fromkeys(source.doc_id for source in sources))
    single_doc = doc_ids[0] if len(doc_ids) == 1 else None
    citations: list[Citation] = []
    matches = sorted(
        [(m, False) for m in _CITATION_RE.finditer(answer)] + [(m, True) for m in _WORD_CITATION_RE.finditer(answer)],
        key=lambda pair: pair[0].start(),
    )
    for match, word in matches:
        named, unknown = _resolve_doc(match.group("doc"), doc_ids)
        unknown_name = match.group("doc") if unknown else None
        checked: list[tuple[int, _Checked]]
        if word:
            checked = _word_checks(match, named, unknown_name, single_doc, sources)
        else:
            pages = _pages(match.group("pages"))
            if pages is None:
                first = int(re.findall(r"\d+", match.group("pages"))[0])
                checked = [(first, (named or single_doc, None, False, (None, None), "page range reversed or too long"))]
            else:
                checked = [(page, _check(page, named, unknown_name, single_doc, sources)) for page in pages]
                checked = [(page, _in_paragraphs(result, sources)) for page, result in checked]
        for page, (doc_id, passage_id, valid, (char_start, char_end), reason) in checked:
            citations.append(
                Citation(
                    doc_id=doc_id,
                    page=page,
                    passage_id=passage_id,
                    text=match.group(0),
                    valid=valid,
                    answer_start=match.start(),
                    answer_end=match.end(),
                    char_start=char_start,
                    char_end=char_end,
                    reason=reason,
                )
            )
    return citations

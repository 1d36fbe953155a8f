"""The wording of the answer's prompt: its instructions, each document's summary or full text,
the passages, and the question.

It is laid out for the engine's prefix reuse: the instructions and the super-summaries come
first and are byte-identical for every question on the same documents; the conversation
follows, then the passages and the question, which change every time. Answers are not stored
by their prompt, so this wording has no version number (the summaries' prompts have theirs:
``summarizer.summaries.summary_prompts.PROMPT_VERSION``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

from inference.engines.engine import ChatMessage
from summarizer.library.storage.document_text import llm_text
from summarizer.library.word_parts import labelled_paragraphs
from summarizer.page_labels import PROMPT, page_label
from summarizer.summaries.summary_prompts import LabelledSummary, part_label_text
from summarizer.summaries.table_layout import aligned_table

NOT_IN_DOCUMENT = "The document does not say."
# Shown under a reply the engine ended because it fell into a loop (inference.engines.loop_guard).
LOOP_NOTICE = "(Cut here: the model began repeating itself.)"
# Shown under a reply that reached the answer's token limit: it ends mid-thought, not where the
# model chose to stop, so the reader must not take it as complete.
LENGTH_NOTICE = "(Cut here: the answer reached its length limit of {tokens} tokens and may be incomplete.)"


@dataclass(frozen=True, slots=True)
class DocumentLabel:
    doc_id: str
    title: str
    pages: int
    word: bool = False  # a Word document: its "pages" are paragraphs (walk 2026-12-06, finding 10)

    @property
    def length(self) -> str:
        """ "12 pages", or "150 paragraphs" for a Word document."""
        return f"{self.pages} paragraphs" if self.word else f"{self.pages} pages"


CiteForm = Literal["pages", "paragraphs", "both"]
"""What the documents asked about are cited by: pages (PDFs), paragraphs and clauses (Word
documents, whose "pages" are paragraphs: summarizer/library/word_parts.py), or both."""


def _cite_instruction(several: bool, form: CiteForm = "pages") -> str:
    if form == "paragraphs":
        if several:
            return (
                "After every fact, cite its document and paragraph like [DOC_ID ¶ 12] or [DOC_ID ¶ 3-4], "
                "using the DOC_ID shown with the source."
            )
        return "After every fact, cite its paragraph like [¶ 12] or [¶ 3-4]."
    pages = (
        "After every fact, cite its document and page like [DOC_ID p. 12] or [DOC_ID pp. 3-4], "
        "using the DOC_ID shown with the source."
        if several
        else "After every fact, cite its page like [p. 12] or [pp. 3-4]."
    )
    if form == "both":
        return pages + " A Word document has paragraphs (¶) instead of pages: cite them like [DOC_ID ¶ 12]."
    return pages


def answer_instructions(several: bool, whole_document: bool, summaries: bool = True, form: CiteForm = "pages") -> str:
    """``summaries=False``: the passages alone (no summary of any document is stored yet)."""
    sources = (
        "the full text of the document below"
        if whole_document and not several
        else "the full text of the documents below"
        if whole_document
        else "the summaries below and the passages quoted with the question"
        if summaries
        else "the passages quoted with the question"
    )
    cited = "paragraphs" if form == "paragraphs" else "pages"
    return (
        f"You answer questions using only {sources}. Never use outside knowledge. "
        f"{_cite_instruction(several, form)} Cite only {cited} of the text you were given. "
        f'If the answer is not there, say plainly: "{NOT_IN_DOCUMENT}" Be brief and exact.'
    )


def summary_block(document: DocumentLabel, super_summary: str) -> str:
    return f'Summary of "{document.title}" (DOC_ID {document.doc_id}, {document.length}):\n{super_summary.strip()}'


def segment_summaries_block(document: DocumentLabel, parts: Sequence[LabelledSummary]) -> str:
    """The summaries of the segments stored so far, for a document whose summary is not finished."""
    body = "".join(part_label_text(replace(part, word=document.word)) for part in parts).strip()
    return (
        f'Summaries of some parts of "{document.title}" (DOC_ID {document.doc_id}, {document.length}; '
        f"the other parts are not summarized yet):\n\n{body}"
    )


def whole_document_block(document: DocumentLabel, pages: dict[int, str], word: bool = False, notes: str = "") -> str:
    """``word``: a Word document, whose "pages" are its paragraphs, each labelled ``[¶ N]``, followed
    by ``notes``, its tracked changes and comments (``summarizer.library.word_parts.document_notes``)."""
    if word:
        body = labelled_paragraphs(sorted(pages.items()))
        block = f'Full text of "{document.title}" (DOC_ID {document.doc_id}, {document.pages} paragraphs):\n\n{body}'
        return f"{block}\n\n{notes}" if notes else block
    body = "\n\n".join(f"[Page {page}]\n{llm_text(text)}" for page, text in sorted(pages.items()))
    return f'Full text of "{document.title}" (DOC_ID {document.doc_id}, {document.length}):\n\n{body}'


def answer_system_message(
    blocks: Sequence[str], several: bool, whole_document: bool, form: CiteForm = "pages"
) -> ChatMessage:
    """The stable prefix: instructions, then each document's summary (or full text); the
    instructions alone when there is no block (passages only)."""
    instructions = answer_instructions(several, whole_document, summaries=bool(blocks), form=form)
    return ChatMessage("system", "\n\n".join([instructions, *blocks]))


@dataclass(frozen=True, slots=True)
class PassageForPrompt:
    doc_id: str
    page_start: int
    page_end: int
    text: str
    notes: str = ""  # a Word passage's tracked changes and comments (summarizer/library/word_parts.py)
    locator: str = ""  # a Word passage's clause and paragraphs, "§ 7.2(a), ¶ 51–53", in place of its pages
    paragraphs: tuple[tuple[int, str], ...] = ()
    """A Word passage's paragraphs (number, its part of ``text``), each shown with its label."""


def passages_block(passages: Sequence[PassageForPrompt], several: bool) -> str:
    if not passages:
        return "Passages: none found for this question."
    parts = []
    for number, passage in enumerate(passages, start=1):
        where = passage.locator or page_label(passage.page_start, passage.page_end, PROMPT)
        source = f"DOC_ID {passage.doc_id}, {where}" if several else where
        text = llm_text(passage.text)
        body = labelled_paragraphs(passage.paragraphs) if passage.paragraphs else aligned_table(text) or text
        parts.append(f"Passage {number} ({source}):\n{body}" + (f"\n{passage.notes}" if passage.notes else ""))
    return "Passages:\n\n" + "\n\n".join(parts)


ANSWER_REMINDER = "Answer in one to three sentences from the text above, citing the page of each fact like [p. 12]."


PARAGRAPH_REMINDER = (
    "Answer in one to three sentences from the text above, citing the paragraph of each fact like [¶ 12]."
)


def question_message(question: str, passages: str | None, form: CiteForm = "pages") -> ChatMessage:
    """The last user message: the passages (retrieval and passages modes), the question, and a
    reminder of the rules (small models follow the last instruction best)."""
    reminder = PARAGRAPH_REMINDER if form == "paragraphs" else ANSWER_REMINDER
    text = f"Question: {question.strip()}\n{reminder}"
    return ChatMessage("user", f"{passages}\n\n{text}" if passages else text)

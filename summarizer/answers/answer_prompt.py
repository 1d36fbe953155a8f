"""Building the prompt for a question: which mode, which passages, which past turns.

Retrieval mode: the super-summary of each document (the whole picture), the top passages
from hybrid retrieval, preferring passages from different places (the details), each
labelled with its pages (a Word passage with its clause, and each of its paragraphs with its own
"[¶ N]"), then the question. Passages mode: the same passages when a
document's summary is not stored yet (the first question need not wait for it); such a
document contributes the summaries of the segments stored so far, if any, in place of its
super-summary. Whole-document mode: when every page of the documents fits the context with
room for the answer, the full text replaces both.

The passages come from the search step (``summarizer.answers.answer.top_passages``); what is
asked (question, documents, past turns, options) comes as one ``AnswerRequest``.

Message order keeps the prefix stable for the engine's prefix reuse: the system message
(instructions + summaries, or the full text) is byte-identical for every question on the same
documents; the past turns follow, oldest first; the passages and the question come last.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from inference.engines.engine import ChatMessage, Engine, render_plain
from inference.errors import PlanError
from summarizer.answers.answer_wording import (
    CiteForm,
    DocumentLabel,
    PassageForPrompt,
    answer_system_message,
    passages_block,
    question_message,
    segment_summaries_block,
    summary_block,
    whole_document_block,
)
from summarizer.answers.citations import CitableSource, clause_key
from summarizer.answers.conversations import HistoryTurn
from summarizer.library.cutting.passages import text_by_page
from summarizer.library.storage.document_text import llm_text, read_pages
from summarizer.library.storage.queries import passage_tokens_of
from summarizer.library.storage.store import Library
from summarizer.library.word_parts import (
    WORD,
    document_notes,
    file_types,
    locators_of,
    paragraph_clauses,
    review_notes,
)
from summarizer.search.retrieval import SearchResult
from summarizer.summaries.summary_prompts import LabelledSummary, part_label_text

Mode = Literal["retrieval", "passages", "whole-document"]

MESSAGE_TOKENS = 8  # chat-template tokens per message
MARGIN_TOKENS = 32


@dataclass(frozen=True, slots=True)
class AnswerOptions:
    k: int = 3
    """Passages given to the model."""
    candidates: int = 12
    """Passages retrieved before picking ``k`` from different places."""
    answer_tokens: int = 512
    history_turns: int = 4
    """Past turns carried into a follow-up (the most recent ones)."""
    history_tokens: int = 1024
    temperature: float = 0.0
    whole_document: bool = True
    """Use the full text when it fits the context."""
    use_vectors: bool = True


@dataclass(frozen=True, slots=True)
class AnswerRequest:
    """What is asked: the question, about which documents (checked already), after which past
    turns (oldest first), with which options."""

    question: str
    doc_ids: tuple[str, ...]
    history: tuple[HistoryTurn, ...] = ()
    options: AnswerOptions = field(default_factory=AnswerOptions)


@dataclass(slots=True)
class PreparedPrompt:
    messages: list[ChatMessage]
    mode: Mode
    doc_ids: list[str]
    passages: list[SearchResult] = field(default_factory=list)
    sources: list[CitableSource] = field(default_factory=list)
    history: list[HistoryTurn] = field(default_factory=list)
    prompt_tokens: int = 0


def prompt_tokens(engine: Engine, messages: Sequence[ChatMessage]) -> int:
    return engine.count_tokens(render_plain(messages)) + MESSAGE_TOKENS * len(messages)


def pick_diverse(results: Sequence[SearchResult], k: int) -> list[SearchResult]:
    """The best ``k`` results, skipping those whose pages overlap a better one's in the same
    document while others remain (then filling up with the best of the rest)."""

    def near(a: SearchResult, b: SearchResult) -> bool:
        return a.doc_id == b.doc_id and a.page_start <= b.page_end and b.page_start <= a.page_end

    chosen: list[SearchResult] = []
    for result in results:
        if len(chosen) < k and not any(near(result, c) for c in chosen):
            chosen.append(result)
    for result in results:
        if len(chosen) < k and result not in chosen:
            chosen.append(result)
    return chosen


def recent_history(history: Sequence[HistoryTurn], options: AnswerOptions, engine: Engine) -> list[HistoryTurn]:
    """The most recent turns within the turn and token limits (oldest dropped first)."""
    kept = list(history)[-options.history_turns :] if options.history_turns > 0 else []
    while kept and sum(engine.count_tokens(t.question + "\n" + t.answer) for t in kept) > options.history_tokens:
        kept.pop(0)
    return kept


def _history_messages(history: Sequence[HistoryTurn]) -> list[ChatMessage]:
    messages: list[ChatMessage] = []
    for turn in history:
        messages.append(ChatMessage("user", f"Question: {turn.question.strip()}"))
        messages.append(ChatMessage("assistant", turn.answer.strip()))
    return messages


def _labels(library: Library, doc_ids: Sequence[str]) -> list[DocumentLabel]:
    labels = []
    for doc_id in doc_ids:
        record = library.document(doc_id)
        labels.append(DocumentLabel(record.doc_id, record.title, record.pages, record.file_type == "docx"))
    return labels


def _word_documents(library: Library, doc_ids: Sequence[str]) -> set[str]:
    return {doc_id for doc_id, kind in file_types(library, doc_ids).items() if kind == WORD}


def _cite_form(doc_ids: Sequence[str], word: set[str]) -> CiteForm:
    if not word:
        return "pages"
    return "paragraphs" if all(doc_id in word for doc_id in doc_ids) else "both"


def _word_source(library: Library, source: CitableSource) -> CitableSource:
    """``source`` of a Word document, marked so and with the clauses of its paragraphs."""
    clauses = paragraph_clauses(library, source.doc_id, source.page_start, source.page_end)
    return dataclasses.replace(source, word=True, clauses=tuple((clause_key(c), p) for c, p in clauses))


def _document_tokens_estimate(library: Library, doc_ids: Sequence[str]) -> int:
    """A cheap lower bound of the documents' LLM tokens: half their passages' word pieces."""
    return passage_tokens_of(library, doc_ids) // 2


def whole_document_prompt(library: Library, engine: Engine, request: AnswerRequest) -> PreparedPrompt | None:
    """The whole-document prompt, or None when the documents do not fit with room to answer."""
    question, doc_ids, options = request.question, request.doc_ids, request.options
    room = engine.n_ctx - options.answer_tokens - MARGIN_TOKENS
    if _document_tokens_estimate(library, doc_ids) > room:
        return None
    labels = _labels(library, doc_ids)
    several = len(labels) > 1
    pages = {label.doc_id: read_pages(library, label.doc_id) for label in labels}
    word = _word_documents(library, doc_ids)
    form = _cite_form(doc_ids, word)
    blocks = [
        whole_document_block(label, pages[label.doc_id], True, document_notes(library, label.doc_id))
        if label.doc_id in word
        else whole_document_block(label, pages[label.doc_id])
        for label in labels
    ]
    system = answer_system_message(blocks, several, whole_document=True, form=form)
    kept = recent_history(request.history, options, engine)
    while True:
        messages = [system, *_history_messages(kept), question_message(question, None, form)]
        tokens = prompt_tokens(engine, messages)
        if tokens <= room:
            break
        if not kept:
            return None
        kept.pop(0)
    sources = [source for label in labels for source in pages_given(label.doc_id, pages[label.doc_id])]
    sources = [_word_source(library, s) if s.doc_id in word else s for s in sources]
    return PreparedPrompt(messages, "whole-document", list(doc_ids), [], sources, kept, tokens)


def pages_given(doc_id: str, pages: Mapping[int, str]) -> list[CitableSource]:
    """The pages of a document given whole that have text, as runs of consecutive pages: what its
    citations are checked against (a blank or unread page gave the model nothing to cite)."""
    runs: list[CitableSource] = []
    for page in sorted(number for number, text in pages.items() if llm_text(text)):
        if runs and runs[-1].page_end == page - 1:
            runs[-1] = CitableSource(doc_id, runs[-1].page_start, page)
        else:
            runs.append(CitableSource(doc_id, page, page))
    return runs


def _summary_blocks(
    labels: Sequence[DocumentLabel],
    super_summaries: Mapping[str, str],
    segment_summaries: Mapping[str, Sequence[LabelledSummary]],
) -> list[str]:
    blocks = []
    for label in labels:
        if label.doc_id in super_summaries:
            blocks.append(summary_block(label, super_summaries[label.doc_id]))
        elif segment_summaries.get(label.doc_id):
            blocks.append(segment_summaries_block(label, segment_summaries[label.doc_id]))
    return blocks


def _drop_segment_summaries(engine: Engine, parts: dict[str, list[LabelledSummary]], tokens: int) -> None:
    """Drop segment summaries until about ``tokens`` are freed: the last one of the document
    that has the most, each time."""
    freed = 0
    while freed < tokens and parts:
        doc_id = max(parts, key=lambda d: len(parts[d]))
        freed += engine.count_tokens(part_label_text(parts[doc_id].pop()))
        if not parts[doc_id]:
            del parts[doc_id]


def passages_prompt(
    library: Library,
    engine: Engine,
    request: AnswerRequest,
    passages: Sequence[SearchResult],
    super_summaries: Mapping[str, str],
    segment_summaries: Mapping[str, Sequence[LabelledSummary]],
) -> PreparedPrompt:
    """The summaries + the passages found for the question (best first) + the question.

    Retrieval mode when every document has its super-summary; passages mode otherwise: a document
    whose summary is not stored yet contributes the summaries of its stored segments
    (``segment_summaries``, dropped first when the prompt is too long)."""
    question, doc_ids, options = request.question, request.doc_ids, request.options
    mode: Mode = "retrieval" if all(doc_id in super_summaries for doc_id in doc_ids) else "passages"
    labels = _labels(library, doc_ids)
    several = len(labels) > 1
    parts = {
        doc_id: list(found)
        for doc_id, found in segment_summaries.items()
        if found and doc_id in doc_ids and doc_id not in super_summaries
    }
    given = list(passages)
    notes = review_notes(library, given)
    word = _word_documents(library, doc_ids)
    form = _cite_form(doc_ids, word)
    locators = locators_of(library, [(p.doc_id, p.page_start, p.page_end) for p in given], short=True)
    kept = recent_history(request.history, options, engine)
    room = engine.n_ctx - options.answer_tokens - MARGIN_TOKENS
    while True:
        system = answer_system_message(
            _summary_blocks(labels, super_summaries, parts), several, whole_document=False, form=form
        )
        shown = [
            PassageForPrompt(
                p.doc_id,
                p.page_start,
                p.page_end,
                p.text,
                notes.get(p.passage_id, ""),
                locators.get((p.doc_id, p.page_start, p.page_end), ""),
                tuple(text_by_page(p.text, p.spans)) if p.doc_id in word else (),
            )
            for p in given
        ]
        question_text = question_message(question, passages_block(shown, several), form)
        messages = [system, *_history_messages(kept), question_text]
        tokens = prompt_tokens(engine, messages)
        if tokens <= room:
            break
        # Too long: drop segment summaries (a partial picture anyway), then the oldest turn,
        # then the weakest passage.
        if parts:
            _drop_segment_summaries(engine, parts, tokens - room)
        elif kept:
            kept.pop(0)
        elif given:
            given = given[:-1]
        else:
            raise PlanError(
                f"The summaries of {len(labels)} documents and the question do not fit the model's context of "
                f"{engine.n_ctx} tokens. Ask about fewer documents, or load the model with a larger context."
            )
    sources = [CitableSource(p.doc_id, p.page_start, p.page_end, p.passage_id, tuple(p.spans)) for p in given]
    sources = [_word_source(library, s) if s.doc_id in word else s for s in sources]
    return PreparedPrompt(messages, mode, list(doc_ids), given, sources, kept, tokens)

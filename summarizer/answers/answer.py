"""Answering a question about one or several documents, streamed, with checked citations.

    stream = answer_question(library, engine, "Who may terminate?", doc_ids=[doc_id],
                             model_sha256=sha, history=history(list_turns(library, doc_id)))
    for piece in stream:          # text as the model writes it; Cancelled if cancelled
        show(piece)
    answer = stream.answer        # Answer: text, mode, citations, passages, stats

``answer_question`` chooses the mode: the full text when the documents fit the context with
room to answer ("whole-document"); otherwise the stored super-summaries plus the top
passages ("retrieval") when every document has one (``summarizer.summaries.compress``); otherwise
at once from the top passages, with whatever summaries are stored ("passages": nothing is
summarized, so a first question on a CPU takes seconds, not minutes). ``with_summary=True``
computes and stores the missing summaries first, then answers in retrieval mode.
``ask`` does the same with the summaries given by the caller. Either way, one ``AnswerRequest``
(question, documents, past turns, options) goes through two steps: the search
(``top_passages``), then the prompt builder (``summarizer.answers.answer_prompt``) with those passages.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inference.cancel import NEVER_CANCELLED, CancelToken
from inference.engines.engine import Engine, GenerationStats
from inference.engines.loop_guard import cut_loop
from inference.progress import ProgressCallback, no_progress
from summarizer.answers.answer_prompt import (
    AnswerOptions,
    AnswerRequest,
    Mode,
    PreparedPrompt,
    passages_prompt,
    pick_diverse,
    whole_document_prompt,
)
from summarizer.answers.answer_wording import LENGTH_NOTICE, LOOP_NOTICE
from summarizer.answers.citations import CitableSource, Citation, find_citations
from summarizer.answers.conversations import HistoryTurn
from summarizer.errors import DocumentNotFound, NoText
from summarizer.library.reading.page_status import OCR_ADVICE
from summarizer.library.storage.store import DocumentRecord, Library
from summarizer.search.retrieval import SearchResult, search
from summarizer.summaries.compress import cached_summary, compress, default_params, stored_segment_summaries
from summarizer.summaries.summary_prompts import LabelledSummary
from summarizer.summaries.tree import SummaryParams

__all__ = [
    "Answer",
    "AnswerOptions",
    "AnswerRequest",
    "AnswerStream",
    "answer_question",
    "ask",
    "no_text_notice",
    "resolve_doc_ids",
    "stored_summaries",
    "top_passages",
]


@dataclass(slots=True)
class Answer:
    text: str
    mode: Mode
    citations: list[Citation]
    passages: list[SearchResult]
    stats: GenerationStats
    doc_ids: list[str] = field(default_factory=list)
    sources: list[CitableSource] = field(default_factory=list)
    """What the citations were checked against: the passages given, or in whole-document mode
    the runs of pages with text."""

    @property
    def invalid_citations(self) -> list[Citation]:
        return [c for c in self.citations if not c.valid]

    def to_json(self) -> dict[str, Any]:
        return {
            "answer": self.text,
            "mode": self.mode,
            "citations": [c.to_json() for c in self.citations],
            "passages": [p.to_json() for p in self.passages],
            "sources": [
                {"doc_id": s.doc_id, "page_start": s.page_start, "page_end": s.page_end, "passage_id": s.passage_id}
                for s in self.sources
            ],
            "stats": {
                "prompt_tokens": self.stats.prompt_tokens,
                "completion_tokens": self.stats.completion_tokens,
                "ttft_s": round(self.stats.ttft_s, 4),
                "prefill_tok_s": round(self.stats.prefill_tok_s, 2),
                "decode_tok_s": round(self.stats.decode_tok_s, 2),
                "cached_tokens": self.stats.cached_tokens,
            },
        }


class AnswerStream:
    """Iterate for the answer's text pieces; then ``answer`` holds the whole result."""

    def __init__(self, engine: Engine, prompt: PreparedPrompt, options: AnswerOptions, cancel: CancelToken) -> None:
        self.prompt = prompt
        self._engine = engine
        self._options = options
        self._cancel = cancel
        self._answer: Answer | None = None
        self._started = False

    @property
    def mode(self) -> Mode:
        return self.prompt.mode

    @property
    def passages(self) -> list[SearchResult]:
        return self.prompt.passages

    @property
    def answer(self) -> Answer:
        if self._answer is None:
            raise RuntimeError("The answer is not finished: iterate over the stream first.")
        return self._answer

    def __iter__(self) -> Iterator[str]:
        if self._started:
            raise RuntimeError("An AnswerStream can be iterated once.")
        self._started = True
        texts: list[str] = []
        stats: GenerationStats | None = None
        pieces = self._engine.generate(
            self.prompt.messages,
            max_tokens=self._options.answer_tokens,
            temperature=self._options.temperature,
            cancel=self._cancel,
        )
        for piece in pieces:
            if piece.text:
                texts.append(piece.text)
                yield piece.text
            if piece.stats is not None:
                stats = piece.stats
        text = "".join(texts).strip()
        if stats is not None and stats.stop_reason == "loop":
            # The engine ended a reply that fell into a loop: keep its first turn and say so.
            text = (cut_loop(text) or text) + "\n\n" + LOOP_NOTICE
            yield "\n\n" + LOOP_NOTICE
        elif stats is not None and stats.stop_reason == "length" and text:
            # Ended by the token limit, not by the model: say the text is cut, or it reads as whole.
            notice = LENGTH_NOTICE.format(tokens=self._options.answer_tokens)
            text += "\n\n" + notice
            yield "\n\n" + notice
        self._answer = Answer(
            text=text,
            mode=self.prompt.mode,
            citations=find_citations(text, self.prompt.sources),
            passages=self.prompt.passages,
            stats=stats or GenerationStats(),
            doc_ids=self.prompt.doc_ids,
            sources=list(self.prompt.sources),
        )

    def run(self) -> Answer:
        """Consume the stream and return the answer."""
        for _ in self:
            pass
        return self.answer


def no_text_notice(record: DocumentRecord) -> str | None:
    """Why a question about ``record`` cannot be answered from its text, or None when it can."""
    if record.passages > 0 or record.state != "ready":
        return None
    scanned = record.status == "needs_ocr"
    return (
        f"{Path(record.path).name} has no text to answer from"
        + (" (its pages are images: a scanned PDF)" if scanned else "")
        + ". Nothing was asked: an answer would not come from the document. "
        + (OCR_ADVICE if scanned else "Add it again.")
    )


def resolve_doc_ids(library: Library, doc_ids: Sequence[str] | None) -> list[str]:
    """The given documents (checked; those without text left out, ``NoText`` when none has
    any), or every document in the library with text when None/empty."""
    if doc_ids:
        records = [library.document(doc_id) for doc_id in dict.fromkeys(doc_ids)]
        with_text = [r.doc_id for r in records if no_text_notice(r) is None]
        if not with_text:
            notice = no_text_notice(records[0]) or ""
            raise NoText(notice, path=records[0].path)
        return with_text
    found = [record.doc_id for record in library.documents() if record.passages > 0]
    if not found:
        raise DocumentNotFound("The library has no documents to ask about. Add some with `pagewise ingest`.")
    return found


def top_passages(library: Library, request: AnswerRequest) -> list[SearchResult]:
    """The search step: the best ``options.k`` passages for the question in its documents, taken
    from the first ``options.candidates`` found, preferring passages from different places."""
    options = request.options
    results = search(
        library,
        request.question,
        doc_ids=request.doc_ids,
        k=max(options.candidates, options.k),
        use_vectors=options.use_vectors,
    )
    return pick_diverse(results, options.k)


def _summaries_prompt(
    library: Library,
    engine: Engine,
    request: AnswerRequest,
    super_summaries: Mapping[str, str],
    segment_summaries: Mapping[str, Sequence[LabelledSummary]],
) -> PreparedPrompt:
    """Search, then the prompt of those passages with the summaries: retrieval mode when every
    document has its super-summary, passages mode otherwise."""
    passages = top_passages(library, request)
    return passages_prompt(library, engine, request, passages, super_summaries, segment_summaries)


def stored_summaries(
    library: Library,
    doc_ids: Sequence[str],
    *,
    model_sha256: str,
    params: SummaryParams | None = None,
    engine: Engine | None = None,
) -> tuple[dict[str, str], dict[str, list[LabelledSummary]]]:
    """(super-summaries, segment summaries) stored for this model and parameters (by default, per
    document, the ones ``compress`` would use with ``engine``): the super-summary of each document
    that has one, the segment summaries stored so far of each that has not."""
    super_summaries: dict[str, str] = {}
    segment_summaries: dict[str, list[LabelledSummary]] = {}
    for doc_id in doc_ids:
        chosen = params or default_params(engine, library, doc_id, model_sha256)
        found = cached_summary(library, doc_id, model_sha256=model_sha256, params=chosen)
        if found is not None:
            super_summaries[doc_id] = found.super_summary.text
            continue
        parts = stored_segment_summaries(library, doc_id, model_sha256=model_sha256, params=chosen)
        if parts:
            segment_summaries[doc_id] = [node.labelled for node in parts]
    return super_summaries, segment_summaries


def ask(
    library: Library,
    engine: Engine,
    question: str,
    *,
    doc_ids: Sequence[str] | None = None,
    super_summaries: Mapping[str, str] | None = None,
    segment_summaries: Mapping[str, Sequence[LabelledSummary]] | None = None,
    history: Sequence[HistoryTurn] = (),
    options: AnswerOptions | None = None,
    cancel: CancelToken = NEVER_CANCELLED,
) -> AnswerStream:
    """A stream answering ``question`` from the full text when it fits, else from the given
    super-summaries (retrieval mode: one for every document) or, when one is missing, the
    passages with the given segment summaries (passages mode). Nothing is generated until the
    stream is iterated."""
    options = options or AnswerOptions()
    request = AnswerRequest(question, tuple(resolve_doc_ids(library, doc_ids)), tuple(history), options)
    prompt = None
    if options.whole_document:
        prompt = whole_document_prompt(library, engine, request)
    if prompt is None:
        prompt = _summaries_prompt(library, engine, request, super_summaries or {}, segment_summaries or {})
    return AnswerStream(engine, prompt, options, cancel)


def answer_from_passages(
    library: Library,
    engine: Engine,
    question: str,
    passages: Sequence[SearchResult],
    *,
    options: AnswerOptions | None = None,
    cancel: CancelToken = NEVER_CANCELLED,
) -> AnswerStream:
    """The answer from ``passages`` the caller chose (a library-wide question gives the best
    passage of each contract: ``summarizer.search.by_contract``), with the same prompt and
    citation check as a retrieved answer; no summaries (mode "passages")."""
    options = options or AnswerOptions()
    request = AnswerRequest(question, tuple(dict.fromkeys(p.doc_id for p in passages)), (), options)
    prompt = passages_prompt(library, engine, request, list(passages), {}, {})
    return AnswerStream(engine, prompt, options, cancel)


def answer_question(
    library: Library,
    engine: Engine,
    question: str,
    *,
    model_sha256: str,
    doc_ids: Sequence[str] | None = None,
    history: Sequence[HistoryTurn] = (),
    options: AnswerOptions | None = None,
    summary_params: SummaryParams | None = None,
    with_summary: bool = False,
    parallel: int = 1,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken = NEVER_CANCELLED,
) -> AnswerStream:
    """``ask`` with the summaries stored for this model (``summary_params``: by default the ones
    ``compress`` uses for this engine). A document without a stored summary is answered from the
    passages at once, unless ``with_summary``: then its summaries are computed and stored first
    (``progress`` and ``cancel`` reach ``compress``; ``parallel`` segments at a time)."""
    options = options or AnswerOptions()
    ids = resolve_doc_ids(library, doc_ids)
    request = AnswerRequest(question, tuple(ids), tuple(history), options)
    if options.whole_document:
        prompt = whole_document_prompt(library, engine, request)
        if prompt is not None:
            return AnswerStream(engine, prompt, options, cancel)
    params = summary_params  # None: per document, as compress chooses (default_params)
    if with_summary:
        super_summaries = {
            doc_id: compress(
                library,
                engine,
                doc_id,
                model_sha256=model_sha256,
                params=params,
                parallel=parallel,
                progress=progress,
                cancel=cancel,
            ).super_summary.text
            for doc_id in ids
        }
        segment_summaries: dict[str, list[LabelledSummary]] = {}
    else:
        super_summaries, segment_summaries = stored_summaries(
            library, ids, model_sha256=model_sha256, params=params, engine=engine
        )
    prompt = _summaries_prompt(library, engine, request, super_summaries, segment_summaries)
    return AnswerStream(engine, prompt, options, cancel)

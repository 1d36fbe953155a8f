"""The app's one adapter onto answers, summaries and conversations (issue 4's summarizer).

Everything the window needs from ``summarizer.answers.answer``, ``summarizer.summaries.compress``,
``summarizer.answers.citations`` and ``summarizer.answers.conversations`` goes through the functions here
(``ask``, ``summarize``, ``cached_summary``, ``load_turns``, ``save_turn``), which return the
small view types below, so a change in the summarizer's API is a change to this file only.

No Qt here: the job runner calls these in its LLM worker thread (``cached_summary`` and
``load_turns`` also on the GUI thread: they only read the library).
"""

from __future__ import annotations

# The summarizer modules the window's jobs use are imported with this module, at start-up: a
# first import on the GUI thread mid-session stalled it (PySide's import hook reads each new
# module's source; scripts/bench_gui_stall.py --from-start --trace-stalls).
import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from app.services.known_models import known_identity, model_identity
from inference.cancel import NEVER_CANCELLED, Cancelled, CancelToken
from inference.engines.engine import Engine, GenerationStats
from inference.errors import PagewiseError, shorten_message
from inference.progress import Progress, ProgressCallback, Stage, no_progress
from summarizer.answers.conversations import HistoryTurn, append_turn, list_turns
from summarizer.library.storage.queries import passage_spans
from summarizer.library.storage.store import Library
from summarizer.page_labels import page_label, paragraph_label, unit_label
from summarizer.review.export import generated_at
from summarizer.summaries.compress import cached_summary as stored
from summarizer.summaries.compress import compress


@dataclass(frozen=True, slots=True)
class CitationView:
    """One cited page of an answer. ``spans`` are the cited passage's (page, start, end) into
    the raw page texts (one per page it covers); empty when invalid or when the whole
    document was given (then the page is shown without a highlight)."""

    number: int
    doc_id: str
    page: int
    passage_id: int | None
    text: str
    valid: bool
    spans: tuple[tuple[int, int, int], ...] = ()
    answer_start: int = -1
    answer_end: int = -1
    """Where ``text`` is in the answer (-1: unknown)."""
    reason: str = ""
    page_end: int = 0
    """The last page of a run of pages read whole (whole-document mode); 0: ``page`` alone."""
    label: str = ""
    """How to name it for a reader when not "p. N": a Word document's clause and paragraph
    ("§ 7.2(a), ¶ 51", summarizer/library/reading/docx_locator.py)."""

    @property
    def where(self) -> str:
        """ "p. 7" or the label, with no-break spaces (a link is not broken across lines)."""
        return self.label.replace(" ", "\u00a0") if self.label else page_label(self.page)


@dataclass(slots=True)
class AnswerView:
    question: str
    text: str
    mode: str = "retrieval"
    """How it was answered: "whole-document", "retrieval" or "passages" (no summary stored yet)."""
    citations: list[CitationView] = field(default_factory=list)
    stats: GenerationStats | None = None
    raw: Any = None
    """The summarizer's ``Answer`` (stored with the turn)."""
    sources: list[CitationView] = field(default_factory=list)
    """What the answer can be checked against, cited or not: the passages given to the model, or
    in whole-document mode the runs of pages read (``page`` to ``page_end``, no passage)."""
    model: str = ""
    """The model that wrote it ("" for a turn stored before models were recorded)."""
    asked_at: str = ""
    """When it was answered (ISO 8601, UTC; "" when not known)."""


@dataclass(frozen=True, slots=True)
class SegmentView:
    page_start: int
    page_end: int
    text: str


@dataclass(frozen=True, slots=True)
class SummaryView:
    super_summary: str
    segments: tuple[SegmentView, ...]
    word: bool = False
    """A Word document's: its segments are runs of paragraphs ("¶ 1–40"), not pages."""


# --- citations ----------------------------------------------------------------------------


def _citation_view(
    number: int, data: dict[str, Any], doc_id: str, spans: tuple[tuple[int, int, int], ...]
) -> CitationView:
    page = int(data["page"])
    if not spans and data.get("char_start") is not None and data.get("char_end") is not None:
        spans = ((page, int(data["char_start"]), int(data["char_end"])),)
    return CitationView(
        number=number,
        doc_id=str(data.get("doc_id") or doc_id),
        page=page,
        passage_id=data.get("passage_id"),
        text=str(data.get("text", "")),
        valid=bool(data.get("valid", False)),
        spans=spans if data.get("valid") else (),
        answer_start=int(data.get("answer_start", -1)),
        answer_end=int(data.get("answer_end", -1)),
        reason=str(data.get("reason", "")),
    )


def _views(
    library: Library, doc_id: str, citations: Sequence[dict[str, Any]], passages: dict[int, Any]
) -> list[CitationView]:
    views = []
    for number, data in enumerate(citations, start=1):
        pid = data.get("passage_id")
        if pid is None:
            spans: tuple[tuple[int, int, int], ...] = ()
        elif pid in passages:
            spans = tuple(tuple(s) for s in passages[pid].spans)
        else:
            spans = passage_spans(library, int(pid))
        views.append(_citation_view(number, data, doc_id, spans))
    return with_word_labels(library, views)


def with_word_labels(library: Library, views: list[CitationView]) -> list[CitationView]:
    """A Word document's citations named by clause and paragraph, its "pages" being paragraphs."""
    from dataclasses import replace

    from summarizer.library.word_parts import locators_of

    labels = locators_of(library, [(v.doc_id, v.page, v.page) for v in views], short=True)
    # page 0: a clause citation that matched no clause given; it is named as written.
    return [replace(v, label=labels.get((v.doc_id, v.page, v.page), v.text if v.page == 0 else v.label)) for v in views]


def _source_views(library: Library, doc_id: str, passages: Sequence[dict[str, Any]]) -> list[CitationView]:
    """The passages given to the model, as valid citations of their first page (``spans`` from
    the passage itself when it has them, else from the library)."""
    views = []
    for number, data in enumerate(passages, start=1):
        pid = data.get("passage_id")
        spans = tuple(tuple(s) for s in data.get("spans") or ()) or (
            passage_spans(library, int(pid)) if pid is not None else ()
        )
        page = int(data.get("page_start") or (spans[0][0] if spans else 0))
        if page > 0:
            views.append(CitationView(number, str(data.get("doc_id") or doc_id), page, pid, str(data.get("text", "")),
                                      True, spans))  # fmt: skip
    return with_word_labels(library, views)


def _read_views(library: Library, doc_id: str, read: Sequence[dict[str, Any]] | None) -> list[CitationView]:
    """The runs of pages a whole-document answer was given (``read``: the answer's ``sources``;
    None for a turn stored before they were kept: then the document's pages)."""
    if read is None:
        try:
            read = [{"doc_id": doc_id, "page_start": 1, "page_end": max(1, library.document(doc_id).pages)}]
        except PagewiseError:
            return []
    views = []
    for number, data in enumerate(read, start=1):
        first = int(data["page_start"])
        last = int(data.get("page_end") or first)
        views.append(CitationView(number, str(data.get("doc_id") or doc_id), first, None, "", True, page_end=last))
    from summarizer.library.word_parts import WORD, file_types

    word = {d for d, kind in file_types(library, {v.doc_id for v in views}).items() if kind == WORD}

    def paragraphs(view: CitationView) -> str:  # a Word document's "pages" are its paragraphs
        return paragraph_label(view.page, view.page_end)

    return [replace(v, label=paragraphs(v)) if v.doc_id in word else v for v in views]


def _given_views(library: Library, doc_id: str, mode: str, data: dict[str, Any]) -> list[CitationView]:
    """What an answer (the dict of its ``to_json()``) can be checked against, the same in every
    mode: the passages given, or the pages read whole."""
    if mode == "whole-document":
        return _read_views(library, doc_id, data.get("sources"))
    return _source_views(library, doc_id, data.get("passages", []))


# --- answers ------------------------------------------------------------------------------


class AnswerStopped(Cancelled):
    """The user stopped an answer: ``partial`` is what was written, with its citations checked."""

    def __init__(self, partial: AnswerView) -> None:
        super().__init__("The answer was stopped.")
        self.partial = partial


def warm_up_search(library: Library) -> bool:
    """Load the vector index and the query encoder now, if the library has vectors.

    Done as the first question's retrieval instead, reading the index and the encoder's weights
    holds the GIL long enough to stall the window while the answer starts. The window runs this
    in the LLM thread at startup and after documents are added. The encoder is the one retrieval
    uses (``summarizer.library.vectors.query_encoder``: NumPy for MiniLM-style models), so torch is not imported
    into the window's process for it. True if it loaded anything.
    """
    from summarizer.library.vectors.query_encoder import load_query_encoder
    from summarizer.library.vectors.vector_index import load_index

    index = load_index(library)
    if index.size == 0:
        return False
    load_query_encoder(index.model).encode_query("warm up")
    return True


def ask(
    engine: Engine,
    library: Library,
    doc_id: str,
    question: str,
    history: Sequence[AnswerView] = (),
    on_piece: Callable[[str], None] = lambda _: None,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken = NEVER_CANCELLED,
) -> AnswerView:
    """Answer ``question`` about ``doc_id`` (``summarizer.answers.answer.answer_question``: the whole
    text when it fits, else the top passages with the stored super-summary, or, while that is not
    made, with the segment summaries stored so far: mode "passages"), streaming text through
    ``on_piece``. Never summarizes: a first question is answered in seconds, and the summary is
    made by its own job. A library-wide question's passages: ``app.services.library_question``."""
    from summarizer.answers.answer import answer_question
    from summarizer.llm.model_identity import lookup_identity

    stream = answer_question(
        library,
        engine,
        question,
        # Not model_identity: a model never hashed, whose size no stored summary of this
        # document was made at, is not read before the first token (its digest is made
        # beside the load).
        model_sha256=known_identity(engine) or lookup_identity(library, engine, [doc_id], progress, cancel),
        doc_ids=[doc_id],
        history=[HistoryTurn(turn.question, turn.text) for turn in history],
        progress=progress,
        cancel=cancel,
    )
    return streamed_answer(library, doc_id, question, stream, on_piece, progress)


def streamed_answer(
    library: Library,
    doc_id: str,
    question: str,
    stream: Any,
    on_piece: Callable[[str], None] = lambda _: None,
    progress: ProgressCallback = no_progress,
) -> AnswerView:
    """The answer ``stream`` (an ``AnswerStream``) written through ``on_piece``, as the view the
    window shows, its citations checked; ``AnswerStopped`` with what was written when stopped."""
    progress(Progress(Stage.READ_DOCUMENT if stream.mode == "whole-document" else Stage.READ_PASSAGES, 0, None))
    pieces: list[str] = []
    try:
        for text in stream:
            pieces.append(text)
            on_piece(text)
    except Cancelled as stop:
        raise AnswerStopped(_partial(library, doc_id, question, "".join(pieces).strip(), stream)) from stop
    answer = stream.answer
    citations = _views(library, doc_id, [c.to_json() for c in answer.citations],
                       {p.passage_id: p for p in answer.passages})  # fmt: skip
    given = {"passages": [{**p.to_json(), "spans": p.spans} for p in answer.passages],
             "sources": answer.to_json()["sources"]}  # fmt: skip
    sources = _given_views(library, doc_id, str(answer.mode), given)
    return AnswerView(question, answer.text, str(answer.mode), citations, answer.stats, answer, sources)


def _partial(library: Library, doc_id: str, question: str, text: str, stream: Any) -> AnswerView:
    """A stopped answer's text with its citations checked against the passages given."""
    from summarizer.answers.citations import find_citations

    citations = _views(library, doc_id, [c.to_json() for c in find_citations(text, stream.prompt.sources)],
                       {p.passage_id: p for p in stream.passages})  # fmt: skip
    read = [{"doc_id": s.doc_id, "page_start": s.page_start, "page_end": s.page_end} for s in stream.prompt.sources]
    given = {"passages": [{**p.to_json(), "spans": p.spans} for p in stream.passages], "sources": read}
    sources = _given_views(library, doc_id, str(stream.mode), given)
    return AnswerView(question, text, str(stream.mode), citations, sources=sources)


# --- summaries ----------------------------------------------------------------------------


def _summary_view(library: Library, summary: Any) -> SummaryView:
    from summarizer.library.word_parts import WORD, file_types

    return SummaryView(
        summary.super_summary.text,
        tuple(SegmentView(n.page_start, n.page_end, n.text) for n in summary.segments),
        file_types(library, [summary.doc_id]).get(summary.doc_id) == WORD,
    )


def cached_summary(library: Library, doc_id: str, engine: Engine | None) -> SummaryView | None:
    """The stored summary for the loaded model, without calling it (None if not computed)."""
    from summarizer.summaries.context_reuse import summary_params_for

    identity = known_identity(engine)
    if identity is None or engine is None:
        return None
    params = summary_params_for(library, doc_id, model_sha256=identity, n_ctx=engine.n_ctx)
    found = stored(library, doc_id, model_sha256=identity, params=params)
    return _summary_view(library, found) if found is not None else None


def summarize(
    engine: Engine,
    library: Library,
    doc_id: str,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken = NEVER_CANCELLED,
) -> SummaryView:
    """Segment summaries and the super-summary (``summarizer.summaries.compress``), stored and resumable."""

    identity = model_identity(library, engine, progress, cancel)
    summary = compress(library, engine, doc_id, model_sha256=identity, parallel=engine.parallel, progress=progress,
                       cancel=cancel)  # fmt: skip
    return _summary_view(library, summary)


# --- conversations ------------------------------------------------------------------------


def load_turns(library: Library, doc_id: str) -> list[AnswerView]:

    views = []
    for turn in list_turns(library, doc_id):
        data = turn.answer_json
        citations = _views(library, doc_id, data.get("citations", []), {})
        mode = str(data.get("mode", "retrieval"))
        sources = _given_views(library, doc_id, mode, data)
        model = str(data.get("model", ""))
        views.append(
            AnswerView(turn.question, turn.answer, mode, citations, sources=sources, model=model,
                       asked_at=turn.created_at)
        )  # fmt: skip
    return views


def save_turn(library: Library, doc_id: str, turn: AnswerView) -> None:
    """Store ``turn`` with the name of the model that wrote it; ``turn.asked_at`` becomes its time."""
    raw = turn.raw
    data = dict(raw) if isinstance(raw, dict) else raw.to_json() if raw is not None else {"answer": turn.text}
    if turn.model:
        data["model"] = turn.model
    turn.asked_at = append_turn(library, doc_id, turn.question, data).created_at


def page_run_label(source: CitationView) -> str:
    """``p. 3`` or ``pp. 1–8`` (no-break spaces) for a run of pages read whole; a Word
    document's paragraphs by their label (``¶ 1–40``)."""
    if source.label:
        return source.where
    last = max(source.page, source.page_end)
    return page_label(source.page, last)


def pages_label(sources: Sequence[CitationView]) -> str:
    """The runs of pages read, e.g. ``pp. 1–4, 6–8``."""
    return ", ".join(page_run_label(s) for s in sources)


def _quoted(text: str, limit: int = 400) -> str:
    return shorten_message(" ".join(text.split()), limit)


CONVERSATION_CONFIDENTIAL = "CONFIDENTIAL — contains text of the document."
CONVERSATION_NOTICE = "Machine-generated: verify every answer against the {units} it cites."


@dataclass(frozen=True, slots=True)
class CitedUnits:
    """What a document's citations name: a PDF's pages, a Word document's paragraphs (its
    "pages" in the library: summarizer/library/word_parts.py)."""

    one: str
    many: str
    mark: str  # before a number: "p." or "¶"
    word: bool = False

    def name(self, number: int) -> str:
        return unit_label(number, word=self.word)


PAGES = CitedUnits("page", "pages", "p.")
PARAGRAPHS = CitedUnits("paragraph", "paragraphs", "¶", word=True)


def cited_units(word: bool) -> CitedUnits:
    return PARAGRAPHS if word else PAGES


def read_whole(units: CitedUnits) -> str:
    """What a whole-document answer was given: "the pages read", "the paragraphs read"."""
    return f"the {units.many} read"


def _when(iso: str) -> str:
    """An ISO time as a reader writes it (``5 December 2026, 09:50 UTC``); "" when not known."""
    try:
        return generated_at(dt.datetime.fromisoformat(iso)) if iso else ""
    except ValueError:
        return ""


def answered_by(turn: AnswerView) -> str:
    """ "Answered by qwen2.5-1.5b, 5 December 2026, 09:50 UTC" (what is known of it)."""
    parts = [f"by {turn.model}" if turn.model else "", _when(turn.asked_at)]
    known = ", ".join(p for p in parts if p)
    return f"Answered {known}" if known else ""


def to_markdown(
    title: str,
    turns: Sequence[AnswerView],
    *,
    header: bool = True,
    exported: dt.datetime | None = None,
    word: bool = False,
) -> str:
    """A conversation as Markdown: each answer with its citations (page and the passage cited)
    and the passages given to the model, so a reader can check it without the app; ``header``:
    under a confidentiality line, with the export's date, the models and a machine-generated
    notice, as the review memo. ``word``: a Word document's, whose citations name paragraphs."""
    units = cited_units(word)
    lines = [f"**{CONVERSATION_CONFIDENTIAL}**", ""] if header else []
    lines += [f"# {title}", ""]
    if header:
        models = sorted({t.model for t in turns if t.model})
        lines.append(f"- exported {generated_at(exported)}")
        if models:
            lines.append(f"- answered by {', '.join(models)}")
        lines += [f"- {CONVERSATION_NOTICE.format(units=units.many)}", ""]
    for turn in turns:
        lines += [f"## {turn.question}", ""]
        if by := answered_by(turn):
            lines += [f"*{by}*", ""]
        lines += [turn.text, ""]
        whole = turn.mode == "whole-document"
        given = read_whole(units) if whole else "the passages given to the model"
        if turn.citations:
            lines.append("Citations:")
            for c in turn.citations:
                where = c.label or units.name(c.page)  # a Word document's clause and paragraph
                if c.valid:
                    lines.append(f"- [{c.number}] {where}: “{_quoted(c.text)}”" if c.text else f"- {where}")
                else:
                    lines.append(f"- {where} (not in {given})")
            lines.append("")
        if turn.sources and not any(c.valid for c in turn.citations):
            against = read_whole(units) if whole else "the passages"
            lines += [f"*This answer cites no {units.one}: check it against {against} below.*", ""]
        if turn.sources and whole:
            lines += [f"Read: the whole document, {pages_label(turn.sources)}.", ""]
        elif turn.sources:
            lines.append("Passages given to the model:")
            lines += [f"- {s.label or units.name(s.page)}: “{_quoted(s.text, 300)}”" for s in turn.sources]
            lines.append("")
    return "\n".join(lines)

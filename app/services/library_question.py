"""One question across the library, for the window (issue 46): the contracts whose best passage
matches, each named with that passage and its page (``summarizer.search.by_contract``), then the
model's answer from the best passage of the first few of them, each citation naming its contract.

No Qt here: the answer controller runs ``find_contracts`` and ``answer_across`` in its LLM thread.
A library-wide question is kept for the session only (the stored conversations are per document).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from app.services.answering import AnswerView, CitationView, streamed_answer, with_word_labels
from inference.cancel import NEVER_CANCELLED, CancelToken
from inference.engines.engine import Engine
from inference.progress import Progress, ProgressCallback, Stage, no_progress
from summarizer.library.storage.store import Library
from summarizer.page_labels import TEXT, page_label
from summarizer.search.retrieval import SearchResult

CONTRACTS_GIVEN = 6
"""Contracts whose best passage the model reads for its answer: the first of the list, the rest of
the list is shown without being read (a small model's context holds about six passages)."""


@dataclass(frozen=True, slots=True)
class ContractHit:
    """A contract in a library-wide answer: its best passage, as a citation to open."""

    doc_id: str
    title: str
    best: CitationView
    passages: int  # its passages among those ranked
    passage: SearchResult  # the best passage as the search found it (given to the model)


@dataclass(slots=True)
class LibraryTurn:
    """A library-wide question: the contracts found, and the model's answer when there is one."""

    question: str
    contracts: list[ContractHit] = field(default_factory=list)
    answer: AnswerView | None = None
    note: str = ""


def find_contracts(library: Library, question: str, progress: ProgressCallback = no_progress) -> list[ContractHit]:
    """The contracts that best match ``question``, each with its best passage (the library's order
    when nothing matches: an empty list)."""
    from summarizer.search.by_contract import best_passage_per_contract

    progress(Progress(Stage.READ_PASSAGES, 0, None, "Searching every document…"))
    matches = best_passage_per_contract(library, question)
    views = [
        CitationView(n, m.doc_id, m.best.page_start, m.best.passage_id, m.best.text, True, tuple(m.best.spans))
        for n, m in enumerate(matches, start=1)
    ]
    views = with_word_labels(library, views)
    return [ContractHit(m.doc_id, m.title, view, m.passages, m.best) for m, view in zip(matches, views, strict=True)]


def named(citation: CitationView, titles: dict[str, str]) -> CitationView:
    """The citation labelled with its contract: "Supply Agreement, p. 4"."""
    title = titles.get(citation.doc_id)
    if not title:
        return citation
    return replace(citation, label=f"{title}, {citation.label or page_label(citation.page, style=TEXT)}")


def answer_across(
    engine: Engine,
    library: Library,
    question: str,
    contracts: Sequence[ContractHit],
    on_piece: Callable[[str], None] = lambda _: None,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken = NEVER_CANCELLED,
) -> AnswerView:
    """The model's answer from the first ``CONTRACTS_GIVEN`` contracts' passages (one each at
    best), each citation and passage named by its contract."""
    from summarizer.answers.answer import AnswerOptions, answer_from_passages

    given = list(contracts[:CONTRACTS_GIVEN])
    options = AnswerOptions(k=len(given), whole_document=False)
    passages = [hit.passage for hit in given]
    stream = answer_from_passages(library, engine, question, passages, options=options, cancel=cancel)
    answer = streamed_answer(library, given[0].doc_id, question, stream, on_piece, progress)
    titles = {hit.doc_id: hit.title for hit in contracts}
    answer.citations = [named(c, titles) for c in answer.citations]
    answer.sources = [named(s, titles) for s in answer.sources]
    return answer

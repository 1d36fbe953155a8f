"""SmolLM2-135M on the CPU through the whole flow, with small segments.

A 135M model rarely cites well, so these check invariants (tokens stream, citations are
parsed and checked, the cache is used, follow-ups reuse the prefix), not answer quality.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from pypdf import PdfReader

from summarizer.answers.answer import AnswerOptions, answer_question, ask
from summarizer.answers.conversations import HistoryTurn
from summarizer.library.storage.store import Library
from summarizer.llm.local_model import LocalModel, open_local_model
from summarizer.summaries.compress import compress
from summarizer.summaries.tree import SummaryParams
from tests.conftest import CONTRACTS
from tests.summarizer.doc_factory import add_document

pytestmark = pytest.mark.slow

PARAMS = SummaryParams(segment_tokens=512, summary_tokens=48, super_tokens=64)
OPTIONS = AnswerOptions(use_vectors=False, answer_tokens=48, whole_document=False)
MARKER = re.compile(r"[\[(]\s*(?:[\w-]+\s+)?(?:pp?\.?|pages?)\s*\d", re.IGNORECASE)


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory, smollm2_path: Path) -> Iterator[tuple[Library, LocalModel, str]]:
    folder = tmp_path_factory.mktemp("e2e")
    pages = [page.extract_text() for page in PdfReader(CONTRACTS / "license-17p.pdf").pages[:3]]
    with Library.open(folder / "library.sqlite") as library:
        doc_id = add_document(library, pages, title="License Agreement", words_per_passage=60, overlap_chars=40)
        # One thread: on a shared 2-core machine, two llama.cpp threads spin on each other.
        with open_local_model(library, smollm2_path, n_ctx=2048, n_threads=1, max_parallel=2) as model:
            yield library, model, doc_id


def test_compress_batched_then_cached(setup: tuple[Library, LocalModel, str]) -> None:
    library, model, doc_id = setup
    assert model.parallel == 2
    first = compress(library, model.engine, doc_id, model_sha256=model.sha256, params=PARAMS, parallel=2)
    assert len(first.segments) >= 2 and first.stats.model_calls > len(first.segments)
    assert first.segments[0].page_start == 1 and first.segments[-1].page_end == 3
    assert all(node.text for node in first.segments) and first.super_summary.text
    again = compress(library, model.engine, doc_id, model_sha256=model.sha256, params=PARAMS, parallel=2)
    assert again.stats.model_calls == 0 and again.super_summary.text == first.super_summary.text


def test_answer_streams_and_checks_every_citation(setup: tuple[Library, LocalModel, str]) -> None:
    library, model, doc_id = setup
    stream = answer_question(
        library,
        model.engine,
        "What may the licensee do with the software? Cite pages like [p. 2].",
        model_sha256=model.sha256,
        doc_ids=[doc_id],
        options=OPTIONS,
        summary_params=PARAMS,
        with_summary=True,  # retrieval mode even when run alone (the test above stores the summary)
    )
    pieces = list(stream)
    answer = stream.answer
    assert answer.mode == "retrieval" and len(answer.passages) == 3
    assert pieces and "".join(pieces).strip() == answer.text
    assert answer.stats.prompt_tokens > 100 and answer.stats.ttft_s > 0 and answer.stats.completion_tokens > 0
    # Every citation-looking marker was parsed; each is valid exactly when its page was given.
    assert len({c.answer_start for c in answer.citations}) == len(MARKER.findall(answer.text))
    given = {(p.doc_id, page) for p in answer.passages for page in range(p.page_start, p.page_end + 1)}
    for citation in answer.citations:
        assert citation.valid == ((citation.doc_id, citation.page) in given)


def test_follow_up_reuses_the_summary_prefix(setup: tuple[Library, LocalModel, str]) -> None:
    library, model, doc_id = setup
    summary = compress(library, model.engine, doc_id, model_sha256=model.sha256, params=PARAMS)
    assert summary.stats.model_calls == 0
    summaries = {doc_id: summary.super_summary.text}
    first = ask(
        library, model.engine, "Who are the parties?", doc_ids=[doc_id], super_summaries=summaries, options=OPTIONS
    ).run()
    follow_up = ask(
        library,
        model.engine,
        "When does it end?",
        doc_ids=[doc_id],
        super_summaries=summaries,
        history=[HistoryTurn("Who are the parties?", first.text)],
        options=OPTIONS,
    ).run()
    with open(model.engine.log_path, encoding="utf-8", errors="replace") as log:
        tail = [line for line in log.read().splitlines() if line.startswith("[pagewise]")][-4:]
    diagnosis = f"first: {first.stats}; engine notice: {model.engine.notice!r}; worker log: {tail}"
    assert follow_up.stats.cached_tokens >= model.engine.count_tokens(summary.super_summary.text) // 2, diagnosis
    assert follow_up.stats.prompt_tokens > follow_up.stats.cached_tokens


def test_invalid_citations_are_flagged_with_the_real_model(setup: tuple[Library, LocalModel, str]) -> None:
    library, model, doc_id = setup
    # Past answers citing a page the document does not have (it has 3): asked again, the model
    # cites a page beyond the document (it repeats [p. 250], or copies the prompt's example
    # [p. 12]), and such citations must come back flagged.
    history = [
        HistoryTurn("What is the fee?", "The fee is due [p. 250]."),
        HistoryTurn("And the fee?", "The fee is due [p. 250]."),
    ]
    answer = ask(
        library,
        model.engine,
        "What is the fee?",
        doc_ids=[doc_id],
        super_summaries={doc_id: "A software license. The fee is due [p. 250]."},
        history=history,
        options=OPTIONS,
    ).run()
    outside = [c for c in answer.citations if c.page > 3]  # the document has 3 pages
    assert outside, f"the model cited no page beyond the document: {answer.text!r}"
    assert all(not c.valid and c.passage_id is None and c.reason for c in outside)

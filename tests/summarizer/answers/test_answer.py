from __future__ import annotations

from collections.abc import Iterator

import pytest

from inference.cancel import Cancelled, CancelToken
from inference.engines.engine import ChatMessage, Prompt, render_plain
from inference.engines.fake import FakeEngine
from inference.errors import EngineError
from summarizer.answers.answer import AnswerOptions, answer_question, ask
from summarizer.answers.answer_prompt import PreparedPrompt, pick_diverse
from summarizer.answers.answer_wording import ANSWER_REMINDER, LENGTH_NOTICE, LOOP_NOTICE, NOT_IN_DOCUMENT
from summarizer.answers.conversations import HistoryTurn
from summarizer.library.storage.store import Library
from summarizer.search.retrieval import SearchResult
from summarizer.summaries.compress import compress
from summarizer.summaries.store import count_summaries
from summarizer.summaries.tree import SummaryParams
from tests.summarizer.doc_factory import add_document, numbered_pages

OPTIONS = AnswerOptions(use_vectors=False, answer_tokens=200)
PARAMS = SummaryParams(segment_tokens=600, summary_tokens=40, super_tokens=60)
SUPER = "The Seller supplies widgets to the Buyer for 100 dollars a month (pp. 1-30)."


@pytest.fixture
def library() -> Iterator[Library]:
    with Library.open() as lib:
        yield lib


@pytest.fixture
def long_doc(library: Library) -> str:
    return add_document(library, numbered_pages(30, words_per_page=110), title="Supply Agreement", words_per_passage=30)


def messages(prompt: Prompt) -> list[ChatMessage]:
    assert not isinstance(prompt, str)
    return list(prompt)


def test_retrieval_prompt_is_summary_then_passages_then_question(library: Library, long_doc: str) -> None:
    engine = FakeEngine(["Payment is monthly [p. 7]."], n_ctx=2048)
    stream = ask(
        library,
        engine,
        "clause7 clause3 clause12",
        doc_ids=[long_doc],
        super_summaries={long_doc: SUPER},
        options=OPTIONS,
    )
    assert stream.mode == "retrieval"
    pieces = list(stream)
    answer = stream.answer
    assert "".join(pieces).strip() == answer.text == "Payment is monthly [p. 7]."
    system, user = messages(engine.last_prompt)
    assert system.role == "system" and SUPER in system.content
    assert "[p. 12]" in system.content and NOT_IN_DOCUMENT in system.content and "only" in system.content
    assert user.content.startswith("Passages:")
    assert user.content.endswith(f"Question: clause7 clause3 clause12\n{ANSWER_REMINDER}")
    assert len(answer.passages) == 3
    for number, passage in enumerate(answer.passages, start=1):
        assert f"Passage {number} (p. {passage.page_start})" in user.content
        assert passage.text.strip() in user.content
    assert sorted(p.page_start for p in answer.passages) == [3, 7, 12]
    (citation,) = answer.citations
    assert citation.valid and citation.passage_id == next(p.passage_id for p in answer.passages if p.page_start == 7)
    assert answer.stats.prompt_tokens > 0 and answer.stats.completion_tokens == 5


def test_passages_come_from_different_places() -> None:
    def result(pid: int, page: int, score: float) -> SearchResult:
        return SearchResult(pid, "d", f"t{pid}", page, page, score, [(page, 0, 5)])

    ranked = [result(1, 5, 0.9), result(2, 5, 0.8), result(3, 5, 0.7), result(4, 9, 0.6), result(5, 2, 0.5)]
    assert [r.passage_id for r in pick_diverse(ranked, 3)] == [1, 4, 5]
    assert [r.passage_id for r in pick_diverse(ranked[:3], 3)] == [1, 2, 3]  # filled up when nothing else


def test_retrieval_prefers_passages_on_other_pages(library: Library, long_doc: str) -> None:
    engine = FakeEngine(["ok"], n_ctx=2048)
    # "w5" is in every passage of page 5; clause9 and clause12 only on pages 9 and 12.
    stream = ask(
        library, engine, "w5 clause9 clause12", doc_ids=[long_doc], super_summaries={long_doc: SUPER}, options=OPTIONS
    )
    pages = [p.page_start for p in stream.passages]
    assert sorted(pages) == [5, 9, 12]


def test_follow_up_keeps_the_prefix_and_carries_bounded_history(library: Library, long_doc: str) -> None:
    engine = FakeEngine(["First [p. 7].", "Second [p. 9]."], n_ctx=2048)
    summaries = {long_doc: SUPER}
    first = ask(library, engine, "clause7", doc_ids=[long_doc], super_summaries=summaries, options=OPTIONS).run()
    history = [HistoryTurn("old question", "old answer"), HistoryTurn("clause7", first.text)]
    follow_up = ask(
        library,
        engine,
        "clause9",
        doc_ids=[long_doc],
        super_summaries=summaries,
        history=history,
        options=AnswerOptions(use_vectors=False, answer_tokens=200, history_turns=1),
    )
    second = follow_up.run()
    first_prompt, second_prompt = (messages(p) for p in engine.prompts)
    assert first_prompt[0] == second_prompt[0], "the system message (summary) is the reused prefix"
    roles = [m.role for m in second_prompt]
    assert roles == ["system", "user", "assistant", "user"]  # only the most recent turn
    assert second_prompt[1].content == "Question: clause7" and second_prompt[2].content == "First [p. 7]."
    assert "old question" not in str(second_prompt)
    assert second.stats.cached_tokens > len(SUPER.split())
    assert second.citations[0].valid and second.citations[0].page == 9


def test_history_is_dropped_oldest_first_when_over_its_token_budget(library: Library, long_doc: str) -> None:
    engine = FakeEngine(["ok"], n_ctx=2048)
    history = [HistoryTurn(f"question {i}", "answer " + "word " * 40) for i in range(3)]
    options = AnswerOptions(use_vectors=False, answer_tokens=200, history_turns=5, history_tokens=100)
    ask(
        library,
        engine,
        "clause3",
        doc_ids=[long_doc],
        super_summaries={long_doc: SUPER},
        history=history,
        options=options,
    ).run()
    contents = [m.content for m in messages(engine.last_prompt)]
    assert "Question: question 2" in contents and "Question: question 0" not in contents


def test_whole_document_mode_when_the_document_fits(library: Library) -> None:
    doc_id = add_document(
        library, ["The Buyer pays 10 dollars.", "Either party may end it on 30 days notice."], title="Short"
    )
    engine = FakeEngine(["Thirty days [p. 2]; also [p. 3]."], n_ctx=2048)
    answer = ask(library, engine, "How to terminate?", doc_ids=[doc_id], options=OPTIONS).run()
    assert answer.mode == "whole-document" and answer.passages == []
    system = messages(engine.last_prompt)[0].content
    assert "[Page 1]\nThe Buyer pays 10 dollars." in system and "[Page 2]" in system
    assert [(c.page, c.valid, c.passage_id) for c in answer.citations] == [(2, True, None), (3, False, None)]
    assert answer.to_json()["mode"] == "whole-document"


def test_whole_document_citations_are_checked_against_the_pages_given(library: Library) -> None:
    """Walk 2026-12-05, finding 2: a whole-document answer's citations are checked like a
    passages answer's: a page outside the document, or one whose text was not given (blank, or a
    scan not read), is invalid; the pages given are kept with the answer, to show what was read."""
    pages = ["The Buyer pays 10 dollars.", "", "Either party may end it on 30 days notice.", "Signed."]
    doc_id = add_document(library, pages, title="Short")
    engine = FakeEngine(["Ten dollars [p. 1], blank [p. 2], notice [pp. 3-4], none [p. 9]."], n_ctx=2048)
    answer = ask(library, engine, "How much?", doc_ids=[doc_id], options=OPTIONS).run()
    assert answer.mode == "whole-document"
    assert [(c.page, c.valid) for c in answer.citations] == [(1, True), (2, False), (3, True), (4, True), (9, False)]
    assert {c.reason for c in answer.invalid_citations} == {"page not in the text given"}
    assert [(s.doc_id, s.page_start, s.page_end) for s in answer.sources] == [(doc_id, 1, 1), (doc_id, 3, 4)]
    read = [(s["page_start"], s["page_end"], s["passage_id"]) for s in answer.to_json()["sources"]]
    assert read == [(1, 1, None), (3, 4, None)]


def test_whole_document_mode_can_be_turned_off(library: Library) -> None:
    doc_id = add_document(library, ["The Buyer pays 10 dollars."], title="Short")
    engine = FakeEngine(["ok"], n_ctx=2048)
    options = AnswerOptions(use_vectors=False, whole_document=False)
    assert (
        ask(library, engine, "pays", doc_ids=[doc_id], super_summaries={doc_id: "S"}, options=options).mode
        == "retrieval"
    )


def test_several_documents_label_passages_and_citations(library: Library, long_doc: str) -> None:
    other = add_document(library, numbered_pages(30, words_per_page=110)[::-1], title="Other", doc_id="77be01c2aa90")
    # The other document's pages are in reverse order: its clause7 is on page 24.
    engine = FakeEngine([f"Here [{other} p. 24] and [{long_doc} p. 7]."], n_ctx=4096)
    summaries = {long_doc: SUPER, other: "Other summary."}
    answer = ask(library, engine, "clause7", doc_ids=None, super_summaries=summaries, options=OPTIONS).run()
    system, user = messages(engine.last_prompt)
    assert f"DOC_ID {long_doc}" in system.content and f"DOC_ID {other}" in system.content
    assert "[DOC_ID p. 12]" in system.content
    assert {p.doc_id for p in answer.passages} == {long_doc, other}
    for p in answer.passages:
        assert f"DOC_ID {p.doc_id}, p. {p.page_start}" in user.content
    assert [(c.doc_id, c.valid) for c in answer.citations] == [(other, True), (long_doc, True)]


def test_answer_stream_can_be_cancelled(library: Library, long_doc: str) -> None:
    token = CancelToken()
    engine = FakeEngine(["one two three four five six"], n_ctx=2048, piece_delay_s=0.01)
    stream = ask(
        library, engine, "clause7", doc_ids=[long_doc], super_summaries={long_doc: SUPER}, options=OPTIONS, cancel=token
    )
    seen = []
    with pytest.raises(Cancelled):
        for piece in stream:
            seen.append(piece)
            if len(seen) == 2:
                token.cancel()
    assert len(seen) == 2
    with pytest.raises(RuntimeError):
        _ = stream.answer


def test_answer_question_with_summary_summarizes_once_then_reuses(library: Library, long_doc: str) -> None:
    engine = FakeEngine(default_reply="The seller supplies widgets [p. 7].", n_ctx=2048)
    first = answer_question(
        library,
        engine,
        "clause7",
        model_sha256="m",
        doc_ids=[long_doc],
        options=OPTIONS,
        summary_params=PARAMS,
        with_summary=True,
    ).run()
    assert first.mode == "retrieval" and len(engine.calls) > 2
    assert all(not render_plain(c.prompt).startswith("system: You answer") for c in engine.calls[:-1])
    system = messages(engine.last_prompt)[0].content
    assert 'Summary of "Supply Agreement"' in system
    engine.calls.clear()
    answer_question(
        library, engine, "clause9", model_sha256="m", doc_ids=[long_doc], options=OPTIONS, summary_params=PARAMS
    ).run()
    assert len(engine.calls) == 1, "the summary is stored: only the answer is generated"


def test_a_document_without_a_stored_summary_is_answered_from_the_passages_at_once(
    library: Library, long_doc: str
) -> None:
    """Issue 25: the first question waited for the whole summary (minutes on a CPU)."""
    engine = FakeEngine(["Payment is monthly [p. 7].", "Delivery [p. 9]."], n_ctx=2048)
    stream = answer_question(
        library,
        engine,
        "clause7 clause3 clause12",
        model_sha256="m",
        doc_ids=[long_doc],
        options=OPTIONS,
        summary_params=PARAMS,
    )
    assert stream.mode == "passages"
    answer = stream.run()
    assert len(engine.calls) == 1, "no summary was made: the answer is the only model call"
    assert count_summaries(library, long_doc) == 0
    system, user = messages(engine.last_prompt)
    assert system.content.startswith("You answer questions using only the passages quoted with the question.")
    assert "Summar" not in system.content
    assert sorted(p.page_start for p in answer.passages) == [3, 7, 12]
    for number, passage in enumerate(answer.passages, start=1):
        assert f"Passage {number} (p. {passage.page_start})" in user.content
        assert passage.text.strip() in user.content
    (citation,) = answer.citations
    assert citation.valid and citation.passage_id == next(p.passage_id for p in answer.passages if p.page_start == 7)
    assert answer.to_json()["mode"] == "passages"

    # Once the summary is stored, the next question uses it (retrieval), still in one call.
    compress(library, FakeEngine(default_reply="A summary.", n_ctx=2048), long_doc, model_sha256="m", params=PARAMS)
    engine.calls.clear()
    again = answer_question(
        library, engine, "clause9", model_sha256="m", doc_ids=[long_doc], options=OPTIONS, summary_params=PARAMS
    )
    assert again.mode == "retrieval"
    again.run()
    assert len(engine.calls) == 1 and 'Summary of "Supply Agreement"' in messages(engine.last_prompt)[0].content


def summarize_first_segments(library: Library, doc_id: str, replies: list[str]) -> None:
    """Store the summaries of the first segments only: the summarizer stops after them."""
    summarizer = FakeEngine([*replies, EngineError("stopped")], n_ctx=2048)
    with pytest.raises(EngineError):
        compress(library, summarizer, doc_id, model_sha256="m", params=PARAMS)


def test_the_segment_summaries_stored_so_far_go_with_the_passages(library: Library, long_doc: str) -> None:
    summarize_first_segments(library, long_doc, ["The Seller supplies widgets to the Buyer."])
    assert count_summaries(library, long_doc, "segment") == 1 and count_summaries(library, long_doc, "super") == 0
    engine = FakeEngine(["Monthly [p. 7]."], n_ctx=2048)
    question = "clause7 clause3 clause12"
    answer = answer_question(
        library, engine, question, model_sha256="m", doc_ids=[long_doc], options=OPTIONS, summary_params=PARAMS
    ).run()
    assert answer.mode == "passages" and len(engine.calls) == 1
    system, user = messages(engine.last_prompt)
    assert "the summaries below and the passages quoted with the question" in system.content
    assert 'Summaries of some parts of "Supply Agreement"' in system.content
    assert "Summary of pp. 1-" in system.content and "The Seller supplies widgets to the Buyer." in system.content
    assert user.content.startswith("Passages:") and len(answer.passages) == 3
    assert answer.citations[0].valid
    # Another model's summaries are not this one's.
    other = answer_question(
        library, engine, "clause7", model_sha256="other", doc_ids=[long_doc], options=OPTIONS, summary_params=PARAMS
    )
    assert other.mode == "passages" and "Summar" not in other.prompt.messages[0].content


def test_segment_summaries_are_dropped_before_passages_when_the_prompt_is_too_long(
    library: Library, long_doc: str
) -> None:
    parts = [f"Part {n}: " + " ".join(f"fact{n}_{i}{chr(97 + i % 26)}" for i in range(30)) for n in range(1, 4)]
    summarize_first_segments(library, long_doc, parts)
    assert count_summaries(library, long_doc, "segment") == 3

    options = AnswerOptions(use_vectors=False, answer_tokens=200, whole_document=False)

    def prompt(n_ctx: int) -> PreparedPrompt:
        engine = FakeEngine(["ok"], n_ctx=n_ctx)
        question = "clause7 clause3 clause12"
        return answer_question(
            library, engine, question, model_sha256="m", doc_ids=[long_doc], options=options, summary_params=PARAMS
        ).prompt

    full = prompt(4096)
    assert full.mode == "passages" and full.messages[0].content.count("Part ") == 3 and len(full.passages) == 3
    tight = prompt(full.prompt_tokens + options.answer_tokens + 32 - 60)  # a little short of room
    assert tight.mode == "passages" and len(tight.passages) == 3
    assert "Part 1:" in tight.messages[0].content and tight.messages[0].content.count("Part ") < 3


def test_several_documents_use_the_stored_summaries_and_answer_from_passages_if_one_lacks_it(
    library: Library, long_doc: str
) -> None:
    other = add_document(library, numbered_pages(30, words_per_page=110)[::-1], title="Other", doc_id="77be01c2aa90")
    compress(library, FakeEngine(default_reply="Other summary.", n_ctx=4096), other, model_sha256="m", params=PARAMS)
    engine = FakeEngine([f"Here [{other} p. 24] and [{long_doc} p. 7]."], n_ctx=4096)
    answer = answer_question(library, engine, "clause7", model_sha256="m", options=OPTIONS, summary_params=PARAMS).run()
    assert answer.mode == "passages" and len(engine.calls) == 1
    system = messages(engine.last_prompt)[0].content
    assert 'Summary of "Other" (DOC_ID 77be01c2aa90' in system and "Other summary." in system
    assert "Supply Agreement" not in system  # no summary of it is stored yet
    assert [(c.doc_id, c.valid) for c in answer.citations] == [(other, True), (long_doc, True)]
    compress(library, FakeEngine(default_reply="A summary.", n_ctx=4096), long_doc, model_sha256="m", params=PARAMS)
    both = answer_question(library, engine, "clause7", model_sha256="m", options=OPTIONS, summary_params=PARAMS)
    assert both.mode == "retrieval"


def test_json_has_the_documented_keys(library: Library, long_doc: str) -> None:
    engine = FakeEngine(["Yes [p. 7]."], n_ctx=2048)
    data = (
        ask(library, engine, "clause7", doc_ids=[long_doc], super_summaries={long_doc: SUPER}, options=OPTIONS)
        .run()
        .to_json()
    )
    assert set(data) == {"answer", "mode", "citations", "passages", "sources", "stats"}
    assert {"doc_id", "page", "passage_id", "text", "valid"} <= set(data["citations"][0])
    assert set(data["passages"][0]) == {"passage_id", "doc_id", "heading", "text", "page_start", "page_end", "score"}
    assert {"prompt_tokens", "completion_tokens", "ttft_s", "prefill_tok_s", "decode_tok_s"} <= set(data["stats"])
    assert set(data["sources"][0]) == {"doc_id", "page_start", "page_end", "passage_id"}


def test_a_looping_answer_is_stopped_and_trimmed(library: Library, long_doc: str) -> None:
    loop = "Payment is due [p. 7]. " + "The answer to this question is: " * 40
    engine = FakeEngine([loop], n_ctx=2048)
    stream = ask(library, engine, "clause7", doc_ids=[long_doc], super_summaries={long_doc: SUPER}, options=OPTIONS)
    pieces = list(stream)
    answer = stream.answer
    assert len(pieces) < 30, "generation stops once the loop shows"
    assert answer.text.startswith("Payment is due [p. 7].") and answer.text.count("The answer to this") == 1
    assert answer.text.endswith(LOOP_NOTICE) and pieces[-1].strip() == LOOP_NOTICE  # the reader is told
    assert answer.stats.stop_reason == "loop" and answer.stats.completion_tokens > 0 and answer.stats.prompt_tokens > 0
    assert [c.page for c in answer.citations] == [7]


def test_an_answer_cut_by_its_token_limit_says_so(library: Library, long_doc: str) -> None:
    """Walk 2026-12-05, finding 7: an answer that ended at the token limit ("…to use the rights
    of the other party") read as complete, in the window and in the export."""
    words = ["notice", "party", "breach", "cure", "period", "written", "default", "material", "either", "may"]
    prose = " ".join(f"{words[n % 10]}{words[(n * 7) % 10]}{words[(n * 3 + n // 10) % 10]}" for n in range(300))
    long_reply = "The termination rights are in Article 9 [p. 7]. " + prose
    engine = FakeEngine([long_reply, "Payment is due in 30 days [p. 7]."], n_ctx=4096)
    stream = ask(library, engine, "clause7", doc_ids=[long_doc], super_summaries={long_doc: SUPER}, options=OPTIONS)
    pieces = list(stream)
    answer = stream.answer
    notice = LENGTH_NOTICE.format(tokens=OPTIONS.answer_tokens)
    assert answer.stats.stop_reason == "length"
    assert answer.text.endswith("\n\n" + notice) and pieces[-1].strip() == notice
    assert [c.page for c in answer.citations] == [7]
    whole = ask(library, engine, "clause7", doc_ids=[long_doc], super_summaries={long_doc: SUPER}, options=OPTIONS)
    whole.run()
    assert whole.answer.stats.stop_reason == "eos" and "Cut here" not in whole.answer.text  # whole: no notice


def test_a_numbered_loop_is_cut_too(library: Library, long_doc: str) -> None:
    """SmolLM2's "Part 1: Part 2: …": the same words but for their numbers."""
    loop = "The agreement has these parts. " + " ".join(f"Part {n}:" for n in range(1, 120))
    engine = FakeEngine([loop], n_ctx=4096)
    answer = ask(
        library, engine, "clause7", doc_ids=[long_doc], super_summaries={long_doc: SUPER}, options=OPTIONS
    ).run()
    assert answer.stats.stop_reason == "loop" and answer.stats.completion_tokens < 40
    assert answer.text == "The agreement has these parts. Part 1: …\n\n" + LOOP_NOTICE


def test_prompt_too_long_drops_oldest_turns_then_weakest_passages(library: Library, long_doc: str) -> None:
    history = [HistoryTurn(f"question {i}", "answer " * 30) for i in range(3)]
    options = AnswerOptions(use_vectors=False, answer_tokens=200, whole_document=False)
    question = "clause7 clause3 clause12"
    summaries = {long_doc: SUPER}

    def prompt(n_ctx: int) -> PreparedPrompt:
        engine = FakeEngine(["ok"], n_ctx=n_ctx)
        return ask(
            library, engine, question, doc_ids=[long_doc], super_summaries=summaries, history=history, options=options
        ).prompt

    full = prompt(4096)
    assert len(full.history) == 3 and len(full.passages) == 3
    short = full.prompt_tokens + options.answer_tokens + 32 - 60  # a little short of room
    tight = prompt(short)
    assert len(tight.passages) == 3 and 0 < len(tight.history) < 3 and tight.history[-1] == history[-1]
    tiny = prompt(short - 120)
    assert tiny.history == [] and 0 < len(tiny.passages) < 3
    assert tiny.prompt_tokens + options.answer_tokens <= short - 120

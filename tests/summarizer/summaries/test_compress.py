from __future__ import annotations

import itertools
from collections.abc import Iterator

import pytest

from inference.cancel import Cancelled, CancelToken
from inference.engines.engine import ChatMessage, Prompt, render_plain
from inference.engines.fake import FakeEngine
from inference.errors import EngineError, PlanError
from inference.progress import Progress, Stage
from summarizer.library.storage.store import Library
from summarizer.summaries import context_reuse
from summarizer.summaries.compress import cached_summary, compress
from summarizer.summaries.context_reuse import reusable_params, summaries_to_redo, summary_params_for
from summarizer.summaries.segments import build_segments
from summarizer.summaries.store import count_summaries
from summarizer.summaries.tree import CompressProgress, DocumentSummary, SummaryParams
from tests.summarizer.doc_factory import add_document, numbered_pages

PARAMS = SummaryParams(segment_tokens=130, summary_tokens=20, super_tokens=30)
N_CTX = 320


@pytest.fixture
def library() -> Iterator[Library]:
    with Library.open() as lib:
        yield lib


@pytest.fixture
def doc_id(library: Library) -> str:
    return add_document(library, numbered_pages(12, words_per_page=110), title="Supply Agreement")


def n_segments(library: Library, doc_id: str) -> int:
    engine = FakeEngine(n_ctx=N_CTX)
    return len(
        build_segments(library, doc_id, count_tokens=engine.count_tokens, tokenizer_id="model-a", segment_tokens=130)
    )


def replies(n: int, tag: str = "S") -> list[str]:
    return [f"{tag}{i} the seller pays the buyer 100 dollars by March {i}" for i in range(n)]


def user_text(prompt: Prompt) -> str:
    assert not isinstance(prompt, str)
    return "\n".join(m.content for m in prompt if isinstance(m, ChatMessage) and m.role == "user")


def run(library: Library, doc_id: str, engine: FakeEngine, **kwargs: object) -> DocumentSummary:
    return compress(library, engine, doc_id, model_sha256="model-a", params=PARAMS, **kwargs)  # type: ignore[arg-type]


def test_segment_prompts_hold_the_text_the_pages_and_the_bounds(library: Library, doc_id: str) -> None:
    n = n_segments(library, doc_id)
    engine = FakeEngine(n_ctx=N_CTX, default_reply="short summary")
    result = run(library, doc_id, engine)
    segments = build_segments(library, doc_id, count_tokens=None, tokenizer_id="model-a", segment_tokens=130)
    map_calls = engine.calls[:n]
    for segment, call, node in zip(segments, map_calls, result.segments, strict=True):
        text = user_text(call.prompt)
        assert segment.text in text
        assert '"Supply Agreement"' in text
        label = f"p. {segment.page_start}" if segment.page_start == segment.page_end else f"pp. {segment.page_start}-"
        assert label in text
        assert call.max_tokens == PARAMS.summary_tokens
        system = call.prompt[0].content  # type: ignore[index]
        for kept in ("parties", "dates", "amounts", "obligations", "conditions", "defined terms", "exceptions"):
            assert kept in system
        assert (node.page_start, node.page_end) == (segment.page_start, segment.page_end)
    assert all(c.max_tokens == PARAMS.super_tokens for c in engine.calls[n:])


def test_reduction_tree_groups_recursively_and_keeps_page_ranges(library: Library, doc_id: str) -> None:
    n = n_segments(library, doc_id)
    engine = FakeEngine(replies(n) + replies(20, "R"), n_ctx=N_CTX)
    result = run(library, doc_id, engine)
    assert len(result.segments) == n
    assert result.levels, "the summaries do not fit one reduce prompt: an intermediate level is expected"
    # Each level covers the document's pages in order, without gaps.
    for level in [result.segments, *result.levels]:
        assert level[0].page_start == 1 and level[-1].page_end == 12
        for before, after in itertools.pairwise(level):
            assert after.page_start >= before.page_end
    assert (result.super_summary.page_start, result.super_summary.page_end) == (1, 12)
    assert len(result.levels[-1]) < len(result.segments)
    # A reduce prompt lists its parts with their page ranges.
    first_reduce = user_text(engine.calls[n].prompt)
    assert "Summary of p" in first_reduce and "S0 the seller" in first_reduce and "S1 the seller" in first_reduce
    assert result.super_summary.text.startswith("R")
    assert result.stats.model_calls == len(engine.calls) and engine.pending == 20 - (len(engine.calls) - n)


def test_second_run_makes_no_model_call(library: Library, doc_id: str) -> None:
    n = n_segments(library, doc_id)
    first = run(library, doc_id, FakeEngine(replies(n) + replies(20, "R"), n_ctx=N_CTX))
    idle = FakeEngine(n_ctx=N_CTX)  # any call would raise: nothing is scripted
    again = run(library, doc_id, idle)
    assert idle.calls == []
    assert again.super_summary.text == first.super_summary.text
    assert [s.text for s in again.segments] == [s.text for s in first.segments]
    assert [[x.text for x in level] for level in again.levels] == [[x.text for x in level] for level in first.levels]
    assert all(node.cached for node in again.segments) and again.stats.model_calls == 0
    opened = cached_summary(library, doc_id, model_sha256="model-a", params=PARAMS)
    assert opened is not None and opened.super_summary.text == first.super_summary.text
    assert cached_summary(library, doc_id, model_sha256="model-b", params=PARAMS) is None


@pytest.mark.parametrize("parallel", [1, 4], ids=["one-by-one", "batched"])
def test_cancel_mid_way_resumes_after_the_last_finished_segment(library: Library, doc_id: str, parallel: int) -> None:
    """Batched summaries too are stored as each finishes: a cancel or a crash in the middle of a
    batch keeps the ones already done."""
    n = n_segments(library, doc_id)
    token = CancelToken()

    def cancel_after_three(progress: Progress) -> None:
        if progress.stage == Stage.SUMMARIZE_SEGMENTS and progress.done == 3:
            token.cancel()

    engine = FakeEngine(replies(n), n_ctx=N_CTX)
    with pytest.raises(Cancelled):
        run(library, doc_id, engine, progress=cancel_after_three, cancel=token, parallel=parallel)
    assert all(c.batch == (parallel > 1) for c in engine.calls)
    assert count_summaries(library, doc_id, "segment") == 3
    if parallel == 1:
        assert len(engine.calls) == 3

    # A crash (the engine fails) after two more segments: those two are kept too.
    crashing = FakeEngine([*replies(n)[3:5], EngineError("worker crashed")], n_ctx=N_CTX)
    with pytest.raises(EngineError):
        run(library, doc_id, crashing, parallel=parallel)
    assert count_summaries(library, doc_id, "segment") == 5

    resumed = FakeEngine(replies(n)[5:] + replies(20, "R"), n_ctx=N_CTX)
    result = run(library, doc_id, resumed, parallel=parallel)
    map_calls = [c for c in resumed.calls if c.max_tokens == PARAMS.summary_tokens]
    assert len(map_calls) == n - 5
    assert [s.text for s in result.segments] == replies(n)
    assert [s.cached for s in result.segments] == [True] * 5 + [False] * (n - 5)


def test_batched_map_uses_generate_batch_and_gives_the_same_result(library: Library, doc_id: str) -> None:
    n = n_segments(library, doc_id)
    sequential = run(library, doc_id, FakeEngine(replies(n) + replies(20, "R"), n_ctx=N_CTX))
    library.db.execute("DELETE FROM summaries")
    engine = FakeEngine(replies(n) + replies(20, "R"), n_ctx=N_CTX)
    batched = run(library, doc_id, engine, parallel=4)
    map_calls = engine.calls[:n]
    assert [c.batch for c in map_calls] == [True] * n  # one generate_batch call; the engine schedules
    assert [s.text for s in batched.segments] == [s.text for s in sequential.segments]
    assert batched.super_summary.text == sequential.super_summary.text


def test_model_prompt_version_and_params_invalidate_only_what_they_should(
    library: Library, doc_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    n = n_segments(library, doc_id)
    run(library, doc_id, FakeEngine(replies(n) + replies(20, "R"), n_ctx=N_CTX))

    other_model = FakeEngine(default_reply="other model summary", n_ctx=N_CTX)
    compress(library, other_model, doc_id, model_sha256="model-b", params=PARAMS)
    assert len([c for c in other_model.calls if c.max_tokens == PARAMS.summary_tokens]) > 0

    # Back to the first model: its summaries were kept.
    idle = FakeEngine(n_ctx=N_CTX)
    assert run(library, doc_id, idle).super_summary.text.startswith("R") and idle.calls == []

    # A longer super-summary: the segment summaries are reused, only the reductions rerun.
    reduce_only = FakeEngine(default_reply="longer combined summary", n_ctx=N_CTX)
    wider = SummaryParams(segment_tokens=130, summary_tokens=20, super_tokens=31)
    compress(library, reduce_only, doc_id, model_sha256="model-a", params=wider)
    assert reduce_only.calls and all(c.max_tokens == 31 for c in reduce_only.calls)

    # A new prompt version recomputes everything.
    monkeypatch.setattr(context_reuse, "PROMPT_VERSION", context_reuse.PROMPT_VERSION + 1)
    fresh = FakeEngine(default_reply="new prompt summary", n_ctx=N_CTX)
    run(library, doc_id, fresh)
    assert len([c for c in fresh.calls if c.max_tokens == PARAMS.summary_tokens]) == n


def test_progress_reports_stage_counts_rate_and_eta(library: Library, doc_id: str) -> None:
    n = n_segments(library, doc_id)
    events: list[Progress] = []
    run(library, doc_id, FakeEngine(replies(n) + replies(20, "R"), n_ctx=N_CTX), progress=events.append)
    stages = [e.stage for e in events]
    assert Stage.COUNT_TOKENS not in stages  # counted by n_segments above, and cached
    mapping = [e for e in events if e.stage == Stage.SUMMARIZE_SEGMENTS]
    # 0 done, the estimate from the first segment's prefill (still 0 done), then one per segment
    assert [e.done for e in mapping] == [0, *range(n + 1)] and all(e.total == n for e in mapping)
    last = mapping[-1]
    assert isinstance(last, CompressProgress)
    assert last.tokens_per_s and last.tokens_per_s > 0 and last.rate and last.eta_s == 0
    assert isinstance(mapping[2], CompressProgress) and mapping[2].eta_s is not None and mapping[2].eta_s >= 0
    assert Stage.REDUCE in stages and stages[-1] == Stage.SUMMARIZED


def test_single_segment_document_needs_no_reduction(library: Library) -> None:
    doc_id = add_document(library, ["The buyer pays 10 dollars on 1 May."], title="Short")
    engine = FakeEngine(["Buyer pays 10 dollars [p. 1]."], n_ctx=N_CTX)
    result = compress(library, engine, doc_id, model_sha256="m", params=PARAMS)
    assert len(engine.calls) == 1 and result.levels == []
    assert result.super_summary.text == "Buyer pays 10 dollars [p. 1]." and result.super_summary.page_end == 1


def test_context_too_small_for_the_segments_says_what_to_do(library: Library, doc_id: str) -> None:
    engine = FakeEngine(default_reply="x", n_ctx=150)
    with pytest.raises(PlanError, match="smaller segments"):
        run(library, doc_id, engine)


def test_default_params_follow_the_context() -> None:
    assert SummaryParams.for_context(10240).segment_tokens == 8192
    small = SummaryParams.for_context(4096)
    assert small.segment_tokens + small.summary_tokens + 256 <= 4096


def test_reduction_that_cannot_progress_stops_with_an_error(library: Library, doc_id: str) -> None:
    n = n_segments(library, doc_id)

    class ShrinkingContext(FakeEngine):
        """Reports a smaller context once the segments are done (as if reloaded smaller)."""

        @property
        def n_ctx(self) -> int:
            return N_CTX if len(self.calls) < n else 150

    engine = ShrinkingContext(default_reply="a summary of this part", n_ctx=N_CTX)
    with pytest.raises(PlanError, match="cannot hold two summaries"):
        run(library, doc_id, engine)
    assert len(engine.calls) == n


def test_an_estimate_comes_from_the_first_segments_prefill(library: Library, doc_id: str) -> None:
    """Issue 25: no rate or estimate until the first segment ended (minutes on a CPU)."""
    n = n_segments(library, doc_id)
    engine = FakeEngine(replies(n) + replies(20, "R"), n_ctx=N_CTX)
    engine.first_piece_delay_s = 0.2  # the prompt takes this long to read
    seen: list[Progress] = []
    run(library, doc_id, engine, progress=seen.append)
    first_done = next(i for i, p in enumerate(seen) if p.stage == Stage.SUMMARIZE_SEGMENTS and p.done >= 1)
    early = [p for p in seen[:first_done] if isinstance(p, CompressProgress) and p.eta_s is not None]
    assert early, "no estimate before the first segment finished"
    assert early[0].done == 0 and early[0].tokens_per_s and "tok/s reading" in early[0].message
    assert early[0].eta_s > 0.2 * (n - 1) * 0.5  # about the remaining segments' reading time, at least


def test_a_larger_context_keeps_the_stored_summaries_a_smaller_one_they_do_not_fit_makes_them_again(
    library: Library,
) -> None:
    """Issue 25, finding 9: a new context size threw every stored summary away."""
    doc_id = add_document(library, numbered_pages(12, words_per_page=1700), title="Long Lease")
    at_8k = compress(library, FakeEngine(default_reply="made at 8K", n_ctx=8192), doc_id, model_sha256="model-a")
    assert at_8k.params == SummaryParams.for_context(8192) and len(at_8k.segments) > 1
    assert SummaryParams.for_context(16384) != at_8k.params  # 16K would cut other segments

    idle = FakeEngine(n_ctx=16384)  # nothing scripted: any model call raises
    at_16k = compress(library, idle, doc_id, model_sha256="model-a")
    assert idle.calls == [] and at_16k.stats.model_calls == 0
    assert at_16k.params == at_8k.params and at_16k.super_summary.text == at_8k.super_summary.text
    assert [s.text for s in at_16k.segments] == [s.text for s in at_8k.segments]
    params = summary_params_for(library, doc_id, model_sha256="model-a", n_ctx=16384)
    shown = cached_summary(library, doc_id, model_sha256="model-a", params=params)
    assert shown is not None and shown.super_summary.text == at_8k.super_summary.text
    assert summaries_to_redo(library, model_sha256="model-a", n_ctx=16384) == []

    # 4K: the 8K segments do not fit, so they are made again (and said so beforehand).
    assert reusable_params(library, doc_id, model_sha256="model-a", n_ctx=4096) is None
    assert summaries_to_redo(library, model_sha256="model-a", n_ctx=4096) == [doc_id]
    assert summaries_to_redo(library, model_sha256="model-b", n_ctx=4096) == []
    small = FakeEngine(default_reply="made at 4K", n_ctx=4096)
    at_4k = compress(library, small, doc_id, model_sha256="model-a")
    assert at_4k.params == SummaryParams.for_context(4096) and len(at_4k.segments) > len(at_8k.segments)
    assert len([c for c in small.calls if c.max_tokens == at_4k.params.summary_tokens]) == len(at_4k.segments)
    assert at_4k.super_summary.text == "made at 4K"

    # Both are kept: each context takes the one closest to what it would make now.
    assert summaries_to_redo(library, model_sha256="model-a", n_ctx=4096) == []
    assert reusable_params(library, doc_id, model_sha256="model-a", n_ctx=16384) == at_8k.params
    assert reusable_params(library, doc_id, model_sha256="model-a", n_ctx=4096) == at_4k.params
    # Other summary lengths are not what a caller asking for them wants.
    longer = SummaryParams.for_context(16384, summary_tokens=300)
    assert reusable_params(library, doc_id, model_sha256="model-a", n_ctx=16384, wanted=longer) is None


def test_a_stored_summary_of_an_older_text_is_not_kept(library: Library) -> None:
    doc_id = add_document(library, numbered_pages(12, words_per_page=1700), title="Long Lease")
    compress(library, FakeEngine(default_reply="made at 8K", n_ctx=8192), doc_id, model_sha256="model-a")
    library.db.execute("UPDATE documents SET content_sha256 = 'changed' WHERE doc_id = ?", [doc_id])
    assert reusable_params(library, doc_id, model_sha256="model-a", n_ctx=16384) is None
    assert summaries_to_redo(library, model_sha256="model-a", n_ctx=4096) == []  # nothing stored to lose


def test_a_reduce_step_that_does_not_fit_the_new_context_makes_the_summary_again(library: Library) -> None:
    """The segments may fit a smaller context while a reduce prompt made for a larger one does not."""
    doc_id = add_document(library, numbered_pages(12, words_per_page=110), title="Supply Agreement")
    wide = SummaryParams(segment_tokens=130, summary_tokens=40, super_tokens=30)
    # Words that differ in more than a counter (the engines end a "term1 term2 term3 …" loop).
    engine = FakeEngine(default_reply=" ".join(f"term{i}{chr(97 + i % 26)}" for i in range(40)), n_ctx=2000)
    made = compress(library, engine, doc_id, model_sha256="model-a", params=wide)
    assert made.levels == []  # one reduce step combined all the summaries
    reduce_prompt = max(engine.count_tokens(render_plain(c.prompt)) for c in engine.calls if c.max_tokens == 30)
    segments_need = wide.segment_tokens + 256 + wide.summary_tokens
    assert segments_need < reduce_prompt + wide.super_tokens - 1
    fits = reduce_prompt + wide.super_tokens
    assert reusable_params(library, doc_id, model_sha256="model-a", n_ctx=fits, wanted=wide) == wide
    assert reusable_params(library, doc_id, model_sha256="model-a", n_ctx=fits - 1, wanted=wide) is None


def test_a_word_documents_segments_and_reductions_are_labelled_by_paragraphs(library: Library, doc_id: str) -> None:
    """The walk of 2026-12-06, finding 10: a Word document's Summary tab read "Summary of pp.
    121-150" beside its section links "¶ 120–150": its parts are paragraphs."""
    library.db.execute("UPDATE documents SET file_type = 'docx' WHERE doc_id = ?", [doc_id])  # as a .docx is stored
    engine = FakeEngine(n_ctx=N_CTX, default_reply="short summary")
    run(library, doc_id, engine)
    prompts = [user_text(call.prompt) for call in engine.calls]
    assert len(prompts) > 2 and all("¶ " in text and "p. " not in text for text in prompts), prompts[0]

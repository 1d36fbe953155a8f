"""The scripted engine and the engine helpers (stop strings, collecting a stream)."""

from __future__ import annotations

import threading

import pytest

from inference.cancel import Cancelled, CancelToken
from inference.engines.engine import ChatMessage, Piece, StopScanner, collect
from inference.engines.fake import FakeEngine, split_pieces
from inference.errors import EngineError
from inference.planning.plan import Plan
from tests.prose import prose


def test_streams_word_pieces_with_stats_last() -> None:
    engine = FakeEngine(["The answer is 42."])
    pieces = list(engine.generate("Question?"))
    assert [p.text for p in pieces[:-1]] == ["The", " answer", " is", " 42."]
    assert pieces[-1].text == ""
    stats = pieces[-1].stats
    assert stats is not None
    assert stats.completion_tokens == 4
    assert stats.prompt_tokens == 2  # "Question" and "?"
    assert stats.stop_reason == "eos"
    assert all(p.stats is None for p in pieces[:-1])


def test_records_prompts_and_call_arguments() -> None:
    engine = FakeEngine(["one", "two"])
    messages = [ChatMessage("system", "Be brief."), ChatMessage("user", "Hi")]
    engine.complete("first", max_tokens=7, temperature=0.5, stop=["\n"])
    engine.complete(messages)
    assert engine.prompts == ["first", messages]
    assert engine.calls[0].max_tokens == 7
    assert engine.calls[0].temperature == 0.5
    assert engine.calls[0].stop == ("\n",)
    assert engine.last_prompt == messages
    assert engine.pending == 0


def test_max_tokens_truncates() -> None:
    result = FakeEngine(["a b c d e"]).complete("p", max_tokens=2)
    assert result.text == "a b"
    assert result.stats.stop_reason == "length"


def test_stop_strings_end_the_reply() -> None:
    result = FakeEngine(["Answer: yes\nUser: more"]).complete("p", stop=["\nUser:"])
    assert result.text == "Answer: yes"
    assert result.stats.stop_reason == "stop"


def test_count_tokens_rule() -> None:
    engine = FakeEngine()
    assert engine.count_tokens("Hello, world!") == 4
    assert engine.count_tokens("") == 0
    assert len(engine.tokenize("a b a")) == 3
    assert engine.tokenize("a")[0] == engine.tokenize("a b")[0]


def test_cached_tokens_emulate_prefix_reuse() -> None:
    engine = FakeEngine(default_reply="ok")
    first = engine.complete("Document text here. Question one?")
    second = engine.complete("Document text here. Question two?")
    assert first.stats.cached_tokens == 0
    assert second.stats.cached_tokens == 5  # "Document", "text", "here", ".", "Question"


def test_queued_exception_is_raised() -> None:
    engine = FakeEngine([EngineError("server down"), "fine"])
    with pytest.raises(EngineError, match="server down"):
        engine.complete("p")
    assert engine.complete("p").text == "fine"


def test_no_reply_left_says_what_to_do() -> None:
    with pytest.raises(EngineError, match="queue"):
        FakeEngine().complete("p")


def test_generate_batch_pops_one_reply_per_prompt() -> None:
    engine = FakeEngine(["r1", "r2 two", "r3"])
    seen = []
    finished: list[tuple[int, str]] = []
    results = engine.generate_batch(
        ["a", "b", "c"], progress=seen.append, on_result=lambda index, done: finished.append((index, done.text))
    )
    assert [r.text for r in results] == ["r1", "r2 two", "r3"]
    assert finished == [(0, "r1"), (1, "r2 two"), (2, "r3")]
    assert results[1].stats.completion_tokens == 2
    assert all(call.batch for call in engine.calls)
    assert [p.done for p in seen] == [1, 2, 3]


def test_cancel_token_stops_the_stream() -> None:
    engine = FakeEngine(["one two three four"], piece_delay_s=0.01)
    token = CancelToken()
    stream = engine.generate("p", cancel=token)
    assert next(stream).text == "one"
    token.cancel()
    with pytest.raises(Cancelled):
        list(stream)


def test_cancel_from_another_thread() -> None:
    engine = FakeEngine([prose(1000)], piece_delay_s=0.005)
    timer = threading.Timer(0.05, engine.cancel)
    timer.start()
    with pytest.raises(Cancelled):
        collect(engine.generate("p"))
    timer.join()


def test_load_unload_and_plan() -> None:
    engine = FakeEngine(autoload=False)
    assert not engine.loaded and engine.n_ctx == 0
    with pytest.raises(EngineError, match="Load a model"):
        engine.generate("p")
    report = engine.load(Plan(model_path="/models/x.gguf", n_gpu_layers=0, n_ctx=2048))
    assert report.n_ctx == 2048 and engine.n_ctx == 2048 and engine.load_count == 1
    engine.unload()
    assert not engine.loaded
    engine.load_error = EngineError("boom")
    with pytest.raises(EngineError, match="boom"):
        engine.load()


def test_context_overflow_is_an_engine_error() -> None:
    engine = FakeEngine(["x"], n_ctx=10)
    with pytest.raises(EngineError, match="context"):
        engine.complete("word " * 20, max_tokens=5)


def test_split_pieces_round_trip() -> None:
    text = "  Hello  world,\nnew line "
    assert "".join(split_pieces(text)) == text


def test_stop_scanner_holds_back_partial_stops() -> None:
    scanner = StopScanner(["</s>"])
    assert scanner.feed("abc<") == "abc"
    assert scanner.feed("/") == ""
    assert scanner.feed("x") == "</x"
    assert scanner.feed("tail</s>more") == "tail"
    assert scanner.stopped
    assert scanner.flush() == ""
    other = StopScanner(["END"])
    assert other.feed("abE") == "ab"
    assert other.flush() == "E"


def test_collect_joins_pieces() -> None:
    completion = collect([Piece("a"), Piece("b")])
    assert completion.text == "ab"


def test_the_engine_interface_carries_plan_parallel_and_restart() -> None:
    engine = FakeEngine(autoload=False)
    assert engine.plan is None and engine.model_path == "" and engine.parallel == 1 and engine.worker_pid is None
    plan = Plan(model_path="/models/x.gguf", n_gpu_layers=0, n_ctx=2048, n_seq_max=4)
    engine.load(plan)
    assert engine.plan is plan and engine.model_path == "/models/x.gguf" and engine.parallel == 4
    engine.restart()
    assert engine.load_count == 2 and engine.plans == [plan, plan]

"""The remote engine against a small fake OpenAI-compatible server on 127.0.0.1 (``openai_fake``)."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from inference.cancel import Cancelled, CancelToken
from inference.engines.engine import ChatMessage, collect
from inference.engines.json_replies import ReplyFormatError
from inference.engines.remote import RemoteEngine
from inference.errors import EngineError
from tests.inference.engines.openai_fake import FakeServer, serving


@pytest.fixture
def fake() -> Iterator[tuple[FakeServer, str]]:
    state = FakeServer()
    with serving(state) as url:
        yield state, url


def _engine(url: str) -> RemoteEngine:
    engine = RemoteEngine(url + "/v1")
    engine.load()
    return engine


def test_load_learns_model_and_context(fake: tuple[FakeServer, str]) -> None:
    _, url = fake
    engine = RemoteEngine(url)
    report = engine.load()
    assert report.model_name == "fake-7b" and engine.model_name == "fake-7b"
    assert report.n_ctx == 8192 and report.backend == "remote"


def test_chat_streams_pieces_and_stats(fake: tuple[FakeServer, str]) -> None:
    server, url = fake
    engine = _engine(url)
    pieces = list(engine.generate([ChatMessage("user", "Hi")], max_tokens=50, temperature=0.2))
    assert "".join(p.text for p in pieces) == "Hello there, friend."
    stats = pieces[-1].stats
    assert stats is not None
    assert stats.prompt_tokens == 12 and stats.completion_tokens == 5 and stats.cached_tokens == 3
    assert stats.decode_tok_s == 42.0 and stats.prefill_tok_s == 250.0
    path, body = server.requests[-1]
    assert path == "POST /v1/chat/completions"
    assert body["messages"] == [{"role": "user", "content": "Hi"}]
    assert body["stream"] is True and body["model"] == "fake-7b" and body["temperature"] == 0.2


def test_raw_prompt_uses_completions(fake: tuple[FakeServer, str]) -> None:
    server, url = fake
    result = _engine(url).complete("Once upon", max_tokens=2)
    assert result.text == "Hello there"
    assert server.requests[-1][0] == "POST /v1/completions"
    assert server.requests[-1][1]["prompt"] == "Once upon"


def test_stop_strings_are_applied_locally_too(fake: tuple[FakeServer, str]) -> None:
    server, url = fake
    result = _engine(url).complete("x", stop=[", fr"])
    assert result.text == "Hello there"
    assert result.stats.stop_reason == "stop"
    assert server.requests[-1][1]["stop"] == [", fr"]


def test_count_tokens_llama_cpp_and_estimate(fake: tuple[FakeServer, str]) -> None:
    server, url = fake
    engine = _engine(url)
    assert engine.count_tokens("one two three") == 3
    assert engine.tokenize("a b") == [0, 1]
    server.llama_cpp = False
    other = _engine(url)
    assert other.count_tokens("x" * 40) == 10  # 4 characters per token
    with pytest.raises(EngineError, match="estimated"):
        other.tokenize("x")


def test_cancel_closes_the_stream(fake: tuple[FakeServer, str]) -> None:
    server, url = fake
    server.words = [f" w{i}" for i in range(200)]
    server.word_delay_s = 0.02
    engine = _engine(url)
    token = CancelToken()
    stream = engine.generate("x", cancel=token)
    next(stream)
    token.cancel()
    with pytest.raises(Cancelled):
        collect(stream)
    assert server.disconnected.wait(5.0), "the server kept sending after the cancel"
    assert server.words_sent < len(server.words), "the whole reply was read before the cancel"


def test_cancel_while_waiting_for_the_first_token(fake: tuple[FakeServer, str]) -> None:
    server, url = fake
    server.first_delay_s = 3.0  # a long prefill on the server
    engine = _engine(url)
    threading.Timer(0.2, engine.cancel).start()
    with pytest.raises(Cancelled):
        collect(engine.generate("x"))
    assert server.words_sent == 0, "the cancel waited for the server's first token"


def test_generate_batch_runs_prompts_concurrently(fake: tuple[FakeServer, str]) -> None:
    server, url = fake
    server.wait_for_streams = 2  # one request at a time would wait 5 s each and see only itself
    engine = _engine(url)
    finished: list[int] = []
    results = engine.generate_batch(
        ["a", "b", "c", "d"], max_tokens=5, on_result=lambda index, _completion: finished.append(index)
    )
    assert [r.text for r in results] == ["Hello there, friend."] * 4
    assert sorted(finished) == [0, 1, 2, 3]
    assert server.most_streaming >= 2  # not one after the other


def test_an_error_in_on_result_stops_the_batch(fake: tuple[FakeServer, str]) -> None:
    _server, url = fake
    engine = _engine(url)

    def refuse(index: int, _completion: object) -> None:
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        engine.generate_batch(["a", "b", "c"], max_tokens=5, on_result=refuse)
    assert engine.complete("again", max_tokens=5).text == "Hello there, friend."


def test_server_down_says_what_to_do() -> None:
    engine = RemoteEngine("http://127.0.0.1:9")
    with pytest.raises(EngineError, match=r"Cannot reach the model server.*running"):
        engine.load()


def test_garbage_answers_are_engine_errors(fake: tuple[FakeServer, str]) -> None:
    server, url = fake
    engine = _engine(url)
    server.garbage = True
    with pytest.raises(EngineError, match="OpenAI-compatible"):
        engine.complete("x")
    with pytest.raises(EngineError, match="OpenAI-compatible"):
        RemoteEngine(url).load()


def test_http_error_status_is_reported(fake: tuple[FakeServer, str]) -> None:
    server, url = fake
    engine = _engine(url)
    server.status = 503
    with pytest.raises(EngineError, match=r"503.*model is loading.*try again"):
        engine.complete("x")


def test_bad_url() -> None:
    with pytest.raises(EngineError, match="not a server address"):
        RemoteEngine("localhost:8080")


def test_json_schema_goes_as_response_format(fake: tuple[FakeServer, str]) -> None:
    server, url = fake
    engine = _engine(url)
    schema = {"type": "object", "properties": {"found": {"type": "boolean"}}, "required": ["found"]}
    with pytest.raises(ReplyFormatError, match="does not follow the JSON schema"):  # the fake server ignores it
        engine.complete([ChatMessage("user", "Is there a cap?")], max_tokens=8, json_schema=schema)
    _, body = server.requests[-1]
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "reply", "schema": schema, "strict": True},
    }
    engine.complete([ChatMessage("user", "Plain")], max_tokens=8)
    assert "response_format" not in server.requests[-1][1]


def test_remote_restart_connects_again_and_reports_its_parallelism(fake: tuple[FakeServer, str]) -> None:
    _, url = fake
    engine = RemoteEngine(url, max_parallel=3)
    engine.load()
    report = engine.restart()
    assert engine.loaded and report.backend == "remote"
    assert engine.parallel == 3 and engine.plan is None and engine.model_path == "" and engine.worker_pid is None


# A server started with --api-key (issue 24, item 4). The errors are matched as EngineError (what
# every engine error is) and told apart by ApiKeyError's ``key_sent``.


def test_the_api_key_goes_as_a_bearer_token_on_every_request(fake: tuple[FakeServer, str]) -> None:
    server, url = fake
    server.api_key = "s3cret"
    engine = RemoteEngine(url, api_key="s3cret")
    engine.load()
    assert engine.count_tokens("one two") == 2
    assert engine.complete([ChatMessage("user", "Hi")], max_tokens=50).text == "Hello there, friend."
    assert len(server.authorizations) >= 4 and set(server.authorizations) == {"Bearer s3cret"}


def test_a_server_that_wants_a_key_says_so_when_none_was_sent(fake: tuple[FakeServer, str]) -> None:
    server, url = fake
    server.api_key = "s3cret"
    with pytest.raises(EngineError, match=r"needs an API key \(HTTP 401\) and none was sent") as refused:
        RemoteEngine(url).load()
    message = str(refused.value)
    assert url in message and "Settings ▸ API key" in message and "PAGEWISE_API_KEY" in message
    assert getattr(refused.value, "key_sent", None) is False
    assert refused.value.detail == "Invalid API key"  # the server's words, apart from the advice
    assert server.authorizations == [None]


def test_a_wrong_key_is_told_apart_from_a_missing_one(fake: tuple[FakeServer, str]) -> None:
    server, url = fake
    server.api_key = "s3cret"
    with pytest.raises(EngineError, match=r"refused the API key it was sent \(HTTP 401\)") as refused:
        RemoteEngine(url, api_key="wrong").load()
    assert "needs an API key" not in str(refused.value) and "PAGEWISE_API_KEY" in str(refused.value)
    assert getattr(refused.value, "key_sent", None) is True


def test_a_server_that_lists_its_models_to_anyone_refuses_at_load_not_at_the_first_question(
    fake: tuple[FakeServer, str],
) -> None:
    """llama.cpp's server answers /v1/models without the key: the load still fails on the key
    (at /props), rather than connecting and failing later."""
    server, url = fake
    server.api_key, server.public_models = "s3cret", True
    with pytest.raises(EngineError, match="needs an API key"):
        RemoteEngine(url).load()


def test_a_key_refused_mid_session_is_not_taken_for_a_missing_endpoint(fake: tuple[FakeServer, str]) -> None:
    """Token counts fall back to an estimate when the server has no /tokenize; a refused key is
    reported instead (the key was changed on the server since the load)."""
    server, url = fake
    server.api_key = "s3cret"
    engine = RemoteEngine(url, api_key="s3cret")
    engine.load()
    server.api_key = "rotated"
    with pytest.raises(EngineError, match="refused the API key"):
        engine.count_tokens("one two three")
    with pytest.raises(EngineError, match="refused the API key"):
        engine.complete("x")

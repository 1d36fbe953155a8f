"""The remote engine against a real OpenAI-compatible server we did not write: llama-cpp-python's
own ``llama_cpp.server`` (its ``[server]`` extra, a dev dependency) serving SmolLM2 on the CPU.
Then `pagewise ask` and `summarize` with ``--remote`` against it, and a server started with
``--api_key`` (its spelling of vLLM's and llama.cpp's ``--api-key``)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from app.cli import main
from inference.engines.engine import ChatMessage, collect
from inference.engines.remote import RemoteEngine
from inference.errors import EngineError
from summarizer.library.storage.store import Library
from tests.summarizer.doc_factory import add_document, numbered_pages


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def llama_cpp_server(model: Path, log: Path, *extra: str) -> Iterator[str]:
    """``python -m llama_cpp.server`` serving ``model`` on a free port (its address) until the block ends."""
    port = _free_port()
    with log.open("w") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--n_ctx", "4096",
             "--n_threads", "2", "--host", "127.0.0.1", "--port", str(port), *extra],
            stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):  # loading SmolLM2 takes a few seconds
            if process.poll() is not None:
                raise AssertionError(f"llama_cpp.server exited: {log.read_text()[-2000:]}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                time.sleep(0.1)
        else:
            raise AssertionError(f"llama_cpp.server did not start: {log.read_text()[-2000:]}")
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)


@pytest.fixture(scope="module")
def server(smollm2_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with llama_cpp_server(smollm2_path, tmp_path_factory.mktemp("server") / "server.log") as url:
        yield url


def test_load_stream_tokenize_and_json_against_llama_cpp_server(server: str, smollm2_path: Path) -> None:
    engine = RemoteEngine(server)
    report = engine.load()
    assert report.backend == "remote" and smollm2_path.name in engine.model_name
    assert engine.count_tokens("The buyer pays monthly.") == len(engine.tokenize("The buyer pays monthly."))
    completion = collect(engine.generate([ChatMessage("user", "Name a colour.")], max_tokens=12))
    assert completion.text.strip() and completion.stats.completion_tokens > 0
    schema = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}
    reply = engine.complete([ChatMessage("user", "Reply with an answer.")], max_tokens=48, json_schema=schema)
    assert "answer" in json.loads(reply.text)


def test_a_json_reply_cut_by_a_tiny_budget_is_closed_validly_by_the_remote_engine(server: str) -> None:
    """The server holds the reply to the schema but stops at max_tokens wherever it is: the
    remote engine closes it (single and batched)."""
    from inference.engines.json_replies import schema_errors
    from summarizer.review.item_answers import REPLY_SCHEMA

    # One request at a time: llama-cpp-python's server serves one (two at once, it ends one empty,
    # which the engine reports as that reply's error: test_json_replies.py).
    engine = RemoteEngine(server, max_parallel=1)
    engine.load()
    question = [ChatMessage("user", "Does the contract cap liability? Answer in JSON.")]
    single = engine.complete(question, max_tokens=5, json_schema=REPLY_SCHEMA)
    batch = engine.generate_batch([question, question], max_tokens=5, json_schema=REPLY_SCHEMA)
    for completion in (single, *batch):
        assert completion.error is None
        assert schema_errors(json.loads(completion.text), REPLY_SCHEMA) == [], completion.text
        assert completion.stats.json_closed


def test_ask_and_summarize_with_remote(server: str, capsys: pytest.CaptureFixture[str]) -> None:
    with Library.open() as library:
        doc_id = add_document(library, numbered_pages(3), title="Supply agreement")
    assert main(["summarize", doc_id, "--remote", server, "--json"]) == 0, capsys.readouterr().err
    summary = json.loads(capsys.readouterr().out)
    assert summary["model_sha256"].startswith("RemoteEngine:") and summary["plan"] is None
    assert summary["super_summary"]["text"].strip()
    assert main(["ask", doc_id, "When are invoices paid?", "--remote", server, "--answer-tokens", "48", "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["answer"].strip() and answer["mode"] == "whole-document"  # 3 pages fit the context


def test_a_server_started_with_an_api_key(
    smollm2_path: Path, tmp_path: Path, memory_keyring: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without the key: the 401 says one is needed; a wrong one: refused; the key kept in the
    keyring for this server (as the settings dialog keeps it): an answer from `pagewise ask`."""
    with Library.open() as library:
        doc_id = add_document(library, numbered_pages(2), title="Supply agreement")
    with llama_cpp_server(smollm2_path, tmp_path / "server.log", "--api_key", "secret") as url:
        with pytest.raises(EngineError, match=r"needs an API key \(HTTP 401\) and none was sent") as refused:
            RemoteEngine(url).load()
        assert refused.value.detail == "Invalid API key"  # llama-cpp-python's own words
        with pytest.raises(EngineError, match=r"refused the API key it was sent \(HTTP 401\)"):
            RemoteEngine(url, api_key="wrong").load()
        assert main(["ask", doc_id, "When are invoices paid?", "--remote", url, "--json"]) == 1
        assert "needs an API key" in json.loads(capsys.readouterr().out)["error"]
        memory_keyring.set_password("pagewise", url, "secret")
        code = main(["ask", doc_id, "When are invoices paid?", "--remote", url, "--answer-tokens", "24", "--json"])
        assert code == 0, capsys.readouterr()
        assert json.loads(capsys.readouterr().out)["answer"].strip()

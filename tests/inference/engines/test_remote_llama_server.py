"""The remote engine against a real OpenAI-compatible server we did not write: llama-cpp-python's
own ``llama_cpp.server`` (its ``[server]`` extra, a dev dependency) serving SmolLM2 on the CPU.
Then `pagewise ask` and `summarize` with ``--remote`` against it."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.cli import main
from inference.engines.engine import ChatMessage, collect
from inference.engines.remote import RemoteEngine
from summarizer.library.store import Library
from tests.summarizer.doc_factory import add_document, numbered_pages


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def server(smollm2_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = _free_port()
    log = tmp_path_factory.mktemp("server") / "server.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "llama_cpp.server", "--model", str(smollm2_path), "--n_ctx", "4096",
             "--n_threads", "2", "--host", "127.0.0.1", "--port", str(port)],
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
    from summarizer.review.answers import REPLY_SCHEMA

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

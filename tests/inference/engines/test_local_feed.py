"""The local engine's live feed (``generate_fed``) against the tiny random-weight GGUF on the CPU:
prompts sent while the worker decodes, a freed sequence taking the next one at once, cancel, a
killed worker, tokenizing from the producer, and replies the same as ``generate_batch``'s.

Random weights never stop early: every reply runs to ``max_tokens`` (or its JSON's end), which
keeps the sequences in step unless their prompts' lengths differ."""

from __future__ import annotations

import json
import os
import re
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from inference.cancel import Cancelled, CancelToken
from inference.engines.engine import Completion
from inference.engines.local import LocalEngine
from inference.engines.prompt_feed import PromptFeed
from inference.errors import EngineError
from inference.planning.plan import Plan

MODEL = Path(__file__).resolve().parents[3] / "assets" / "tiny-random.gguf"
SCHEMA = {
    "type": "object",
    "properties": {"found": {"type": "boolean"}, "value": {"type": "string"}},
    "required": ["found", "value"],
}


def _plan(**overrides: object) -> Plan:
    values: dict[str, object] = {
        "model_path": str(MODEL),
        "n_gpu_layers": int(os.environ.get("PAGEWISE_TEST_GPU_LAYERS", "0")),  # -1 on the device machine
        "n_ctx": 1024,
        "n_threads": 2,
        "n_seq_max": 2,
        "batch_n_ctx": 256,
    }
    values.update(overrides)
    return Plan(**values)  # type: ignore[arg-type]


@pytest.fixture
def engine() -> Iterator[LocalEngine]:
    with LocalEngine() as local:
        assert isinstance(local, LocalEngine)
        local.load(_plan())
        yield local


def _prompts(n: int) -> list[str]:
    return [f"Clause {i}: the supplier shall deliver " + "goods " * (3 + i % 5) for i in range(n)]


def _feed_log(engine: LocalEngine) -> list[str]:
    with open(engine.log_path, encoding="utf-8", errors="replace") as log:
        return [line.strip() for line in log if line.startswith("[pagewise] feed")]


def test_fed_replies_are_those_of_generate_batch(engine: LocalEngine) -> None:
    """Greedy replies held to a JSON schema: the same texts (and the same format errors) whether
    the prompts come in one batch or through the feed; each handed over once, with its tag."""
    prompts = _prompts(7)
    batch = engine.generate_batch(prompts, max_tokens=24, json_schema=SCHEMA)
    feed = PromptFeed(engine.parallel)
    for i, prompt in enumerate(prompts):
        feed.put(("tag", i), prompt, i)
    feed.exhaust()
    fed: dict[int, Completion] = {}

    def on_result(tag: Any, completion: Completion) -> None:
        assert tag[1] not in fed
        fed[tag[1]] = completion

    engine.generate_fed(feed, max_tokens=24, json_schema=SCHEMA, on_result=on_result)
    assert sorted(fed) == list(range(7))
    assert [fed[i].text for i in range(7)] == [c.text for c in batch]
    assert [type(fed[i].error) for i in range(7)] == [type(c.error) for c in batch]
    for completion in fed.values():
        if completion.error is None:
            assert set(json.loads(completion.text)) == {"found", "value"}
    share = feed.busy_share
    assert share is not None and 0.0 < share <= 1.0
    assert engine.generate_batch(prompts[:1], max_tokens=4)  # the engine takes requests again


def test_prompts_put_while_decoding_are_answered_and_the_producer_may_tokenize(engine: LocalEngine) -> None:
    """A producer that adds a prompt at each refill (tokenizing it first, through the running
    feed) and a follow-up for each of the first replies: every prompt is answered."""
    prompts = _prompts(6)
    counts: list[int] = []
    expected = [engine.count_tokens(prompt) for prompt in prompts]
    feed: PromptFeed

    def refill() -> bool:
        if len(counts) == len(prompts):
            feed.exhaust()
            return False
        counts.append(engine.count_tokens(prompts[len(counts)]))
        feed.put(("first", len(counts) - 1), prompts[len(counts) - 1], len(counts))
        return True

    feed = PromptFeed(engine.parallel, refill, low_water=1)
    answered: list[Any] = []

    def on_result(tag: Any, completion: Completion) -> None:
        answered.append(tag)
        assert completion.stats.completion_tokens >= 1
        if tag[0] == "first" and tag[1] < 3:
            feed.put(("again", tag[1]), prompts[tag[1]] + " again", 0)

    engine.generate_fed(feed, max_tokens=12, on_result=on_result)
    assert counts == expected
    assert sorted(answered) == sorted([("first", i) for i in range(6)] + [("again", i) for i in range(3)])
    assert feed.finished


def test_a_freed_sequence_takes_the_next_prompt_while_the_others_still_decode() -> None:
    """Two sequences, a short prompt beside a long one (decode tokens ride in the long one's
    prefill steps): the short reply ends first and its sequence takes the third prompt while the
    long one still runs; generate_batch's chunks would start it only when both were done."""
    long_prompt = "the quick brown fox jumps over the lazy dog " * 25  # ~450 tokens
    prompts = ["Short question:", long_prompt, "Another short one:"]
    with LocalEngine() as local:
        local.load(_plan(n_ubatch=32, batch_n_ctx=768, batch_mixed=True))
        feed = PromptFeed(local.parallel)
        for i, prompt in enumerate(prompts):
            feed.put(i, prompt, i)
        feed.exhaust()
        order: list[int] = []
        local.generate_fed(feed, max_tokens=6, on_result=lambda tag, _c: order.append(tag))
        lines = _feed_log(local)
    assert order[0] == 0 and sorted(order) == [0, 1, 2]
    starts = [re.search(r"prompt (\d+) in sequence (\d+), (\d+) live", line) for line in lines]
    taken = {int(m.group(1)): (int(m.group(2)), int(m.group(3))) for m in starts if m}
    assert taken[2] == (taken[0][0], 2)  # the first prompt's sequence, beside the long one still live


def test_cancel_mid_feed_stops_it_and_the_engine_goes_on(engine: LocalEngine) -> None:
    feed = PromptFeed(engine.parallel)
    for i, prompt in enumerate(_prompts(40)):
        feed.put(i, prompt, i)
    feed.exhaust()
    token = CancelToken()
    answered: list[int] = []

    def on_result(tag: Any, _completion: Completion) -> None:
        answered.append(tag)
        if len(answered) == 3:
            token.cancel()

    with pytest.raises(Cancelled):
        engine.generate_fed(feed, max_tokens=16, cancel=token, on_result=on_result)
    assert 3 <= len(answered) < 40
    # the prompts sent but not read (left in the pipe) do not disturb the next requests
    assert engine.count_tokens("hello world") == len(engine.tokenize("hello world"))
    assert len(engine.generate_batch(_prompts(3), max_tokens=4)) == 3


def test_an_error_in_on_result_stops_the_feed_and_keeps_the_model(engine: LocalEngine) -> None:
    feed = PromptFeed(engine.parallel)
    for i, prompt in enumerate(_prompts(20)):
        feed.put(i, prompt, i)
    feed.exhaust()

    def on_result(_tag: Any, _completion: Completion) -> None:
        raise ValueError("cannot store")

    with pytest.raises(ValueError, match="cannot store"):
        engine.generate_fed(feed, max_tokens=8, on_result=on_result)
    assert engine.complete("after", max_tokens=3).stats.completion_tokens == 3


def test_on_result_cannot_ask_the_engine_for_another_generation(engine: LocalEngine) -> None:
    feed = PromptFeed(engine.parallel)
    feed.put(0, "one", 0)
    feed.exhaust()

    def on_result(_tag: Any, _completion: Completion) -> None:
        engine.complete("nested", max_tokens=2)

    with pytest.raises(EngineError, match="generate_fed"):
        engine.generate_fed(feed, max_tokens=4, on_result=on_result)


def test_worker_killed_mid_feed_gives_the_crash_error_then_restart(engine: LocalEngine) -> None:
    feed = PromptFeed(engine.parallel)
    for i, prompt in enumerate(_prompts(60)):
        feed.put(i, prompt, i)
    feed.exhaust()
    pid = engine.worker_pid
    assert pid is not None

    def on_result(_tag: Any, _completion: Completion) -> None:
        os.kill(pid, signal.SIGKILL)

    with pytest.raises(EngineError, match="stopped while working") as caught:
        engine.generate_fed(feed, max_tokens=16, on_result=on_result)
    assert "killed" in str(caught.value)
    assert not engine.loaded
    engine.restart()
    assert engine.complete("back", max_tokens=3).stats.completion_tokens == 3


def test_a_prompt_longer_than_the_sequences_cells_makes_the_context_again() -> None:
    """Sequences planned for 512 tokens: a ~540-token prompt waits for the live ones, runs in a
    context of fewer, longer sequences, and the short prompts after it get two again."""
    long_prompt = "the quick brown fox jumps over the lazy dog " * 30  # ~540 tokens
    prompts = [*_prompts(3), long_prompt, *_prompts(3)]
    with LocalEngine() as local:
        local.load(_plan(n_seq_max=2, batch_n_ctx=512, n_ctx=1024))
        singles = local.generate_batch(prompts, max_tokens=8)
        feed = PromptFeed(local.parallel)
        for i, prompt in enumerate(prompts):
            feed.put(i, prompt, i)
        feed.exhaust()
        fed: dict[int, str] = {}
        local.generate_fed(feed, max_tokens=8, on_result=lambda tag, c: fed.__setitem__(tag, c.text))
        layouts = [line for line in _feed_log(local) if "at a time" in line]
    assert [fed[i] for i in range(len(prompts))] == [c.text for c in singles]
    assert "2 sequences at a time, 512 cells each" in layouts[0]
    assert any("1 sequence at a time, 768 cells each" in line for line in layouts[1:])
    assert "2 sequences at a time" in layouts[-1]  # the short prompts after it: two again

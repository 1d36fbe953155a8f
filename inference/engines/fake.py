"""A scripted engine for tests: queued replies, streamed word by word, with stats.

    engine = FakeEngine(["The answer is 42.", "Second reply."])
    engine.load()
    assert engine.complete("Question?").text == "The answer is 42."
    assert engine.prompts == ["Question?"]

Rules, so tests can predict everything:

* A reply is streamed as word-ish pieces: each piece is a run of whitespace followed by
  non-whitespace (``"The answer"`` -> ``"The"``, ``" answer"``); one piece is one token.
* ``count_tokens`` counts words and punctuation marks (``\\w+`` runs and single other
  non-space characters); ``tokenize`` returns stable ids for them.
* ``max_tokens`` truncates the reply to that many pieces (``stop_reason="length"``).
* ``stop`` strings end the reply and are not included.
* ``cached_tokens`` is the number of leading tokens shared with the previous prompt, as a
  real engine with prefix reuse would report.
* A queued ``Exception`` instance is raised by the call that would have used it.
* A queued ``InvalidOutput`` streams its text and ends with ``stop_reason="invalid"`` (a model
  whose output scores went NaN).
* With no reply queued, ``default_reply`` is used, or an ``EngineError`` says so.
"""

from __future__ import annotations

import re
import threading
import time
import zlib
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from inference.cancel import NEVER_CANCELLED, Cancelled, CancelToken
from inference.engines.engine import (
    Completion,
    Engine,
    GenerationStats,
    JsonSchema,
    LoadReport,
    Piece,
    Prompt,
    ResultCallback,
    StopReason,
    StopScanner,
    render_plain,
)
from inference.engines.json_replies import hold_completion, hold_stream
from inference.errors import EngineError
from inference.planning.plan import Plan
from inference.progress import Progress, ProgressCallback, Stage, no_progress

_TOKEN_RE = re.compile(r"\w+|[^\w\s]")
_PIECE_RE = re.compile(r"\s*\S+|\s+$")


@dataclass(frozen=True, slots=True)
class InvalidOutput:
    """A reply that ends because the model's output scores were NaN (``stop_reason="invalid"``)."""

    text: str = ""


Reply = str | InvalidOutput | BaseException


@dataclass(frozen=True, slots=True)
class FakeCall:
    """One call the fake received, for tests to assert on."""

    prompt: Prompt
    max_tokens: int
    temperature: float
    stop: tuple[str, ...]
    batch: bool = False
    json_schema: JsonSchema | None = None


def split_pieces(text: str) -> list[str]:
    """The pieces ``FakeEngine`` streams ``text`` as (they join back to ``text``)."""
    return _PIECE_RE.findall(text)


class FakeEngine(Engine):
    """A scripted ``Engine``. See the module docstring for its rules."""

    def __init__(
        self,
        replies: Iterable[Reply] = (),
        *,
        default_reply: str | None = None,
        piece_delay_s: float = 0.0,
        n_ctx: int = 4096,
        model_name: str = "fake-model",
        autoload: bool = True,
    ) -> None:
        self._replies: deque[Reply] = deque(replies)
        self.default_reply = default_reply
        self.piece_delay_s = piece_delay_s
        self.first_piece_delay_s = 0.0  # a prompt that takes this long to read (cancellable)
        self._n_ctx = n_ctx
        self._model_name = model_name
        self._loaded = autoload
        self._cancel_event = threading.Event()
        self._previous_tokens: list[int] = []
        self.calls: list[FakeCall] = []
        self.load_count = 0
        self.plans: list[Plan | None] = []
        self.load_error: BaseException | None = None
        """Set to make the next ``load`` raise it."""
        self.load_started = threading.Event()
        """Set when a ``load`` begins (tests wait for it)."""
        self.load_gate: threading.Event | None = None
        """An unset event holds every ``load`` until it is set (a slow load; ``cancel()`` and its
        token stop it)."""

    # Scripting

    def queue(self, *replies: Reply) -> FakeEngine:
        """Add replies (or exceptions to raise) to the end of the script."""
        self._replies.extend(replies)
        return self

    @property
    def pending(self) -> int:
        """Replies not used yet."""
        return len(self._replies)

    @property
    def prompts(self) -> list[Prompt]:
        """Every prompt received, in order (batch prompts included)."""
        return [call.prompt for call in self.calls]

    @property
    def last_prompt(self) -> Prompt:
        if not self.calls:
            raise AssertionError("FakeEngine has not received any prompt")
        return self.calls[-1].prompt

    # Engine

    @property
    def n_ctx(self) -> int:
        return self._n_ctx if self._loaded else 0

    @property
    def model_name(self) -> str:
        return self._model_name if self._loaded else ""

    @property
    def loaded(self) -> bool:
        return self._loaded

    @property
    def plan(self) -> Plan | None:
        return self.plans[-1] if self._loaded and self.plans else None

    def restart(self, progress: ProgressCallback = no_progress, cancel: CancelToken = NEVER_CANCELLED) -> LoadReport:
        return self.load(self.plans[-1] if self.plans else None, progress, cancel)

    def load(
        self,
        plan: Plan | None = None,
        progress: ProgressCallback = no_progress,
        cancel: CancelToken = NEVER_CANCELLED,
    ) -> LoadReport:
        cancel.raise_if_cancelled()
        self.plans.append(plan)
        if self.load_error is not None:
            error, self.load_error = self.load_error, None
            raise error
        progress(Progress(Stage.LOAD, 0, 1, "loading fake model"))
        self._cancel_event.clear()
        self.load_started.set()
        gate = self.load_gate
        while gate is not None and not gate.wait(0.01):
            cancel.raise_if_cancelled()
        if self._cancel_event.is_set():  # as ``LocalEngine.cancel`` during a load stops its worker
            raise Cancelled("Cancelled.")
        if plan is not None:
            self._n_ctx = plan.n_ctx
        self._loaded = True
        self.load_count += 1
        progress(Progress(Stage.LOAD, 1, 1, "loaded"))
        return LoadReport(
            model_path=plan.model_path if plan else "",
            model_name=self._model_name,
            n_ctx=self._n_ctx,
            n_gpu_layers=plan.n_gpu_layers if plan else 0,
            backend="fake",
        )

    def tokenize(self, text: str) -> list[int]:
        return [zlib.crc32(word.encode()) & 0x7FFFFFFF for word in _TOKEN_RE.findall(text)]

    def count_tokens(self, text: str) -> int:
        return len(_TOKEN_RE.findall(text))

    def generate(
        self,
        prompt: Prompt,
        *,
        max_tokens: int = 256,
        temperature: float = 0.0,
        stop: Sequence[str] = (),
        json_schema: JsonSchema | None = None,
        cancel: CancelToken = NEVER_CANCELLED,
    ) -> Iterator[Piece]:
        self._require_loaded()
        self._cancel_event.clear()
        self.calls.append(FakeCall(prompt, max_tokens, temperature, tuple(stop), json_schema=json_schema))
        reply = self._next_reply()
        return hold_stream(
            self._stream(prompt, reply, max_tokens, stop, cancel, loops=json_schema is None), json_schema, max_tokens
        )

    def generate_batch(
        self,
        prompts: Sequence[Prompt],
        *,
        max_tokens: int = 256,
        temperature: float = 0.0,
        stop: Sequence[str] = (),
        json_schema: JsonSchema | None = None,
        cancel: CancelToken = NEVER_CANCELLED,
        progress: ProgressCallback = no_progress,
        on_result: ResultCallback | None = None,
    ) -> list[Completion]:
        self._require_loaded()
        self._cancel_event.clear()
        results: list[Completion] = []
        for index, prompt in enumerate(prompts):
            self.calls.append(
                FakeCall(prompt, max_tokens, temperature, tuple(stop), batch=True, json_schema=json_schema)
            )
            reply = self._next_reply()
            texts: list[str] = []
            stats = GenerationStats()
            for piece in self._stream(prompt, reply, max_tokens, stop, cancel, loops=json_schema is None):
                texts.append(piece.text)
                stats = piece.stats or stats
            results.append(hold_completion(Completion("".join(texts), stats), json_schema, max_tokens))
            if on_result is not None:
                on_result(index, results[-1])
            progress(Progress(Stage.GENERATE, index + 1, len(prompts), "batch"))
        return results

    def cancel(self) -> None:
        self._cancel_event.set()

    def unload(self) -> None:
        self._loaded = False
        self._previous_tokens = []

    # Internals

    def _require_loaded(self) -> None:
        if not self._loaded:
            raise EngineError("No model is loaded. Load a model first.")

    def _next_reply(self) -> Reply:
        if self._replies:
            return self._replies.popleft()
        if self.default_reply is not None:
            return self.default_reply
        raise EngineError("FakeEngine has no scripted reply left: queue() one, or set default_reply.")

    def _check_cancel(self, cancel: CancelToken) -> None:
        if cancel.cancelled or self._cancel_event.is_set():
            raise Cancelled()

    def _stream(
        self,
        prompt: Prompt,
        reply: Reply,
        max_tokens: int,
        stop: Sequence[str],
        cancel: CancelToken,
        *,
        loops: bool = True,
    ) -> Iterator[Piece]:
        start = time.perf_counter()
        self._check_cancel(cancel)
        if isinstance(reply, BaseException):
            raise reply
        prompt_tokens = self.tokenize(render_plain(prompt))
        cached = 0
        for a, b in zip(prompt_tokens, self._previous_tokens, strict=False):
            if a != b:
                break
            cached += 1
        self._previous_tokens = prompt_tokens
        if len(prompt_tokens) + max_tokens > self._n_ctx:
            raise EngineError(
                f"The prompt ({len(prompt_tokens)} tokens) and reply ({max_tokens}) do not fit in the "
                f"context of {self._n_ctx} tokens. Shorten the prompt or load with a larger context."
            )
        reason: StopReason = "eos"
        if isinstance(reply, InvalidOutput):
            reply, reason = reply.text, "invalid"
        pieces = split_pieces(reply)
        if len(pieces) > max_tokens:
            pieces = pieces[:max_tokens]
            reason = "length"
        scanner = StopScanner(stop, loops=loops)
        reading_until = time.perf_counter() + self.first_piece_delay_s
        while (left := reading_until - time.perf_counter()) > 0:  # the prompt being read
            if cancel.wait(min(0.02, left)) or self._cancel_event.is_set():
                raise Cancelled()
        first_token_at: float | None = None
        emitted = 0
        for raw in pieces:
            if self.piece_delay_s and (cancel.wait(self.piece_delay_s) or self._cancel_event.is_set()):
                raise Cancelled()
            self._check_cancel(cancel)
            emitted += 1
            if first_token_at is None:
                first_token_at = time.perf_counter()
            text = scanner.feed(raw)
            if text:
                yield Piece(text)
            if scanner.stopped:
                reason = "loop" if scanner.looped else "stop"
                break
        tail = scanner.flush()
        if tail:
            yield Piece(tail)
        end = time.perf_counter()
        ttft = (first_token_at or end) - start
        decode_s = end - (first_token_at or end)
        yield Piece(
            "",
            GenerationStats(
                prompt_tokens=len(prompt_tokens),
                cached_tokens=cached,
                completion_tokens=emitted,
                ttft_s=ttft,
                prefill_tok_s=0.0,
                decode_tok_s=(emitted / decode_s) if decode_s > 0 and emitted > 1 else 0.0,
                total_s=end - start,
                stop_reason=reason,
            ),
        )

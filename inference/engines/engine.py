"""The engine interface: load a model, count tokens, stream a generation, cancel.

Three implementations share it: ``inference.engines.local.LocalEngine`` (llama.cpp in a
worker process), ``inference.engines.remote.RemoteEngine`` (an OpenAI-compatible server) and
``inference.engines.fake.FakeEngine`` (scripted replies, for tests). Callers hold an ``Engine`` and
never know which one they have.

Conventions every implementation follows:

* ``generate`` returns an iterator of ``Piece``; the last piece carries ``stats`` (its
  ``text`` may be empty). Consuming the iterator drives the generation; abandoning it
  early (``close()`` or garbage collection) stops the generation.
* Cancellation (``cancel()`` from any thread, or the ``CancelToken`` passed in) makes the
  iterator raise ``inference.cancel.Cancelled``.
* Failures are ``EngineError`` / ``ModelError`` with a message for the user.
* Calls do not overlap: one generation at a time per engine (``cancel()`` excepted).
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal

from inference.cancel import NEVER_CANCELLED, CancelToken
from inference.engines.loop_guard import LoopGuard
from inference.planning.plan import Plan
from inference.progress import ProgressCallback, no_progress

if TYPE_CHECKING:
    from inference.engines.prompt_feed import PromptFeed

StopReason = Literal["stop", "length", "eos", "invalid", "loop"]
"""Why a reply ended. ``invalid``: the model's output scores were not numbers (NaN), so no token
could be chosen; the reply ends there (a broken or incompatible model file)."""


@dataclass(frozen=True, slots=True)
class ChatMessage:
    """One turn of a conversation; ``role`` is "system", "user" or "assistant"."""

    role: str
    content: str

    def to_json(self) -> dict[str, str]:
        return {"role": self.role, "content": self.content}


Prompt = str | Sequence[ChatMessage]
JsonSchema = Mapping[str, Any]
"""A JSON schema the reply must follow (constrained decoding: llama.cpp grammars locally,
``response_format`` on an OpenAI-compatible server). The reply is the JSON text."""
"""A raw prompt (sent as is) or chat messages (rendered with the model's chat template)."""


@dataclass(frozen=True, slots=True)
class GenerationStats:
    """What one generation cost. Rates are tokens per second; 0.0 when not measurable."""

    prompt_tokens: int = 0
    cached_tokens: int = 0
    """Prompt tokens reused from the previous prompt's KV cache (not recomputed)."""
    completion_tokens: int = 0
    ttft_s: float = 0.0
    """Time to first token: from the call until the first generated token."""
    prefill_tok_s: float = 0.0
    """Prompt tokens actually computed (prompt - cached) per second of prefill."""
    decode_tok_s: float = 0.0
    total_s: float = 0.0
    stop_reason: StopReason = "stop"
    drafted_tokens: int = 0
    """Prompt-lookup drafting: tokens proposed as drafts, and how many the model accepted."""
    accepted_tokens: int = 0
    json_closed: bool = False
    """A reply held to a JSON schema ran out of tokens inside the JSON and was completed by the
    shortest valid ending (``inference.engines.json_replies``): its last value may be cut short."""

    def to_json(self) -> dict[str, Any]:
        return {
            "prompt_tokens": self.prompt_tokens,
            "cached_tokens": self.cached_tokens,
            "completion_tokens": self.completion_tokens,
            "ttft_s": round(self.ttft_s, 4),
            "prefill_tok_s": round(self.prefill_tok_s, 2),
            "decode_tok_s": round(self.decode_tok_s, 2),
            "total_s": round(self.total_s, 4),
            "stop_reason": self.stop_reason,
        }


@dataclass(frozen=True, slots=True)
class Piece:
    """A streamed piece of generated text. The last piece of a stream carries ``stats``."""

    text: str
    stats: GenerationStats | None = None
    cached_tokens: int | None = None
    """On the first piece, where the engine knows it: prompt tokens reused from the cache (so a
    stream its reader stops early, without the last piece's stats, can still report them)."""


@dataclass(frozen=True, slots=True)
class Completion:
    """A finished generation: all the text and its stats. In a batch, a reply held to a JSON
    schema that no ending can make valid carries its error instead of failing the batch."""

    text: str
    stats: GenerationStats
    error: Exception | None = None


ResultCallback = Callable[[int, Completion], None]
FED_CHUNK_SLOTS = 4
"""``generate_fed`` on an engine that runs a batch per call: prompts per call, in slots."""
"""``generate_batch``'s ``on_result``: a prompt's index and its finished reply."""


@dataclass(frozen=True, slots=True)
class LoadReport:
    """What ``load`` did."""

    model_path: str
    model_name: str
    n_ctx: int
    n_gpu_layers: int = 0
    backend: str = "CPU"
    """"CPU", "CUDA", "remote" or "fake"."""
    load_s: float = 0.0
    worker_pid: int | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)

    def to_json(self) -> dict[str, Any]:
        return {
            "model_path": self.model_path,
            "model_name": self.model_name,
            "n_ctx": self.n_ctx,
            "n_gpu_layers": self.n_gpu_layers,
            "backend": self.backend,
            "load_s": round(self.load_s, 3),
            "worker_pid": self.worker_pid,
            "notes": list(self.notes),
        }


class Engine(abc.ABC):
    """A language model that streams text. Small on purpose: see ``FakeEngine``."""

    @property
    @abc.abstractmethod
    def n_ctx(self) -> int:
        """The context length in tokens (prompt + reply); 0 before ``load``."""

    @property
    @abc.abstractmethod
    def model_name(self) -> str:
        """A short name for the loaded model ("" before ``load``)."""

    @property
    @abc.abstractmethod
    def loaded(self) -> bool: ...

    @property
    def plan(self) -> Plan | None:
        """The plan the model was loaded with (None: not loaded, or no plan, as for a server)."""
        return None

    @property
    def model_path(self) -> str:
        """The model file the engine runs ("" for a server or before ``load``): with the file's
        sha256, the identity summaries are stored under."""
        plan = self.plan
        return plan.model_path if plan is not None else ""

    @property
    def parallel(self) -> int:
        """How many sequences ``generate_batch`` runs at once."""
        plan = self.plan
        return max(1, plan.n_seq_max) if plan is not None else 1

    @property
    def worker_pid(self) -> int | None:
        """The process that holds the model's memory, when it is not this one."""
        return None

    @abc.abstractmethod
    def restart(self, progress: ProgressCallback = no_progress, cancel: CancelToken = NEVER_CANCELLED) -> LoadReport:
        """Load the model again as it was last loaded (after a worker crash, or a server restart)."""

    @abc.abstractmethod
    def load(
        self,
        plan: Plan | None = None,
        progress: ProgressCallback = no_progress,
        cancel: CancelToken = NEVER_CANCELLED,
    ) -> LoadReport:
        """Load the model as ``plan`` says (a remote engine needs no plan)."""

    @abc.abstractmethod
    def tokenize(self, text: str) -> list[int]:
        """The model's tokens for ``text`` as a raw prompt (special tokens parsed)."""

    def count_tokens(self, text: str) -> int:
        return len(self.tokenize(text))

    @abc.abstractmethod
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
        """Stream the reply to ``prompt``; the last piece carries the stats.

        ``temperature`` 0 is greedy (deterministic). ``stop`` strings end the reply and are
        not included in it. With ``json_schema`` the reply is JSON text that follows it: one cut
        by ``max_tokens`` is closed by the shortest valid ending (``stats.json_closed``), and
        one that cannot be raises ``inference.engines.json_replies.ReplyFormatError`` at its end.
        """

    @abc.abstractmethod
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
        """Generate replies to several independent prompts at once; returns them in order.

        ``on_result(index, completion)`` is called, in the caller's thread, as soon as each
        reply is finished (in the order they finish), so a caller can store it before the rest
        are done: a cancel or a crash then loses only the unfinished ones. An exception raised
        by ``on_result`` stops the batch and propagates. ``on_result`` must not call the engine
        (the batch is still running). With ``json_schema`` each reply is held as ``generate``'s
        is, except that one no ending can make valid comes back with ``error`` set.
        """

    def generate_fed(
        self,
        feed: PromptFeed,
        *,
        max_tokens: int = 256,
        json_schema: JsonSchema | None = None,
        cancel: CancelToken = NEVER_CANCELLED,
        on_result: Callable[[Any, Completion], None],
    ) -> None:
        """Replies to the prompts of ``feed`` (``inference.engines.prompt_feed``) until it is
        finished, keeping the engine's ``parallel`` slots busy across the producer's prompts:
        ``on_result(tag, completion)`` in the caller's thread as each reply is finished (it may put
        follow-ups), and the feed's ``refill`` there too when the engine may be called (here:
        between batches of up to four times ``parallel`` prompts). Replies are held to
        ``json_schema`` as ``generate_batch``'s are; temperature 0."""
        from inference.engines.prompt_feed import run_fed_batches

        def batch(prompts: Sequence[Prompt], handed: Callable[[int, Completion], None]) -> None:
            self.generate_batch(
                prompts, max_tokens=max_tokens, json_schema=json_schema, cancel=cancel, on_result=handed
            )

        run_fed_batches(feed, FED_CHUNK_SLOTS * self.parallel, batch, on_result, cancel)

    @abc.abstractmethod
    def cancel(self) -> None:
        """Stop the generation in progress (from any thread); it raises ``Cancelled``."""

    @abc.abstractmethod
    def unload(self) -> None:
        """Free the model's memory. ``load`` may be called again."""

    def close(self) -> None:
        """Release everything (worker process, connections). Idempotent."""
        self.unload()

    # Conveniences built on the methods above.

    def complete(
        self,
        prompt: Prompt,
        *,
        max_tokens: int = 256,
        temperature: float = 0.0,
        stop: Sequence[str] = (),
        json_schema: JsonSchema | None = None,
        cancel: CancelToken = NEVER_CANCELLED,
    ) -> Completion:
        """``generate`` and collect the whole reply."""
        return collect(
            self.generate(
                prompt,
                max_tokens=max_tokens,
                temperature=temperature,
                stop=stop,
                json_schema=json_schema,
                cancel=cancel,
            )
        )

    def __enter__(self) -> Engine:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def collect(pieces: Iterable[Piece]) -> Completion:
    """Join a stream of pieces into a ``Completion``."""
    texts: list[str] = []
    stats = GenerationStats()
    for piece in pieces:
        texts.append(piece.text)
        if piece.stats is not None:
            stats = piece.stats
    return Completion("".join(texts), stats)


def render_plain(prompt: Prompt) -> str:
    """A template-free rendering of chat messages ("role: content" lines) for engines
    without a chat template (the fake; token estimates)."""
    if isinstance(prompt, str):
        return prompt
    lines = [f"{message.role}: {message.content}" for message in prompt]
    lines.append("assistant:")
    return "\n".join(lines)


class StopScanner:
    """Finds stop strings in streamed text, holding back what could be the start of one.

    ``feed(text)`` returns the text that is safe to emit; ``stopped`` turns true when a stop
    string was found (the text after it is dropped); ``flush()`` returns what was held back.
    With ``loops`` it also stops when the text ends in a loop (``looped``; the text is kept,
    and the engine ends the reply with ``stop_reason="loop"``).
    """

    __slots__ = ("_guard", "_held", "_max_len", "_stops", "looped", "stopped")

    def __init__(self, stops: Sequence[str], *, loops: bool = False) -> None:
        self._stops = tuple(s for s in stops if s)
        self._max_len = max((len(s) for s in self._stops), default=0)
        self._held = ""
        self._guard = LoopGuard() if loops else None
        self.stopped = False
        self.looped = False  # stopped because the text fell into a loop (``loop_guard``)

    def feed(self, text: str) -> str:
        if self.stopped:
            return ""
        out = self._scan(text)
        if self._guard is not None and not self.stopped and self._guard.feed(text):
            self.stopped = self.looped = True
            out, self._held = out + self._held, ""
        return out

    def _scan(self, text: str) -> str:
        if not self._stops:
            return text
        buffer = self._held + text
        cut = min((i for i in (buffer.find(s) for s in self._stops) if i >= 0), default=-1)
        if cut >= 0:
            self.stopped = True
            self._held = ""
            return buffer[:cut]
        # Hold back the longest tail that is a prefix of some stop string.
        keep = 0
        for n in range(min(len(buffer), self._max_len - 1), 0, -1):
            tail = buffer[-n:]
            if any(s.startswith(tail) for s in self._stops):
                keep = n
                break
        self._held = buffer[len(buffer) - keep :]
        return buffer[: len(buffer) - keep]

    def flush(self) -> str:
        held, self._held = self._held, ""
        return "" if self.stopped else held

"""The local engine: llama.cpp in a worker process, driven from here.

The worker (``inference.engines.llama_worker``) is started with the "spawn" method, so an abort, a
CUDA out-of-memory or a segfault in llama.cpp ends the worker, never the app: the next
read here notices, raises ``EngineError`` with the worker's last log lines, and
``restart()`` (or ``load``) starts a fresh worker.

Cancel: ``cancel()`` (any thread) or the call's ``CancelToken`` sets a shared event that
the worker checks between prefill chunks (sized to ~80 ms each) and between tokens. If the
worker does not answer within ``cancel_grace_s`` (a single llama.cpp call that cannot be
interrupted), it is killed; the model is reloaded on next use and the prompt cache is lost
(``notice`` says so).

``unload()`` ends the worker process: that is the one way to be sure that all of its RAM
and VRAM is given back.
"""

from __future__ import annotations

import os
import signal
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inference.cancel import NEVER_CANCELLED, Cancelled, CancelToken
from inference.engines.engine import (
    ChatMessage,
    Completion,
    Engine,
    GenerationStats,
    JsonSchema,
    LoadReport,
    Piece,
    Prompt,
    ResultCallback,
)
from inference.engines.json_replies import hold_completion, hold_stream
from inference.engines.llama_worker import BatchRequest, GenerateRequest
from inference.engines.worker_process import WorkerProcess, describe_exit
from inference.errors import EngineError, ModelError
from inference.planning.plan import Plan
from inference.progress import Progress, ProgressCallback, Stage, no_progress

if TYPE_CHECKING:
    from inference.engines.local_feed import LocalFeed
    from inference.engines.prompt_feed import PromptFeed

_LOAD_LOG_END = "[pagewise] load finished"


def check_model_file(path: str | Path) -> Path:
    """Fail early, with a clear message, on a missing, empty or non-GGUF file."""
    file = Path(path)
    if not file.exists():
        raise ModelError(f"Model file not found: {file}. Check the path, or download the model again.", path=file)
    if not file.is_file():
        raise ModelError(f"{file} is not a file. Choose a .gguf model file.", path=file)
    try:
        with file.open("rb") as handle:
            magic = handle.read(4)
    except OSError as error:
        message = f"Cannot read {file}: {error.strerror}. Check its permissions."
        raise ModelError(message, path=file) from error
    if magic != b"GGUF":
        raise ModelError(
            f"{file.name} is not a GGUF model file. Pagewise runs GGUF models (for example "
            "'...Q4_K_M.gguf'); convert it or choose another file.",
            path=file,
        )
    return file


class LocalEngine(Engine):
    """``Engine`` running llama-cpp-python in a worker process."""

    def __init__(
        self, *, cancel_grace_s: float = 1.5, load_timeout_s: float = 600.0, prompt_lookup: bool = False
    ) -> None:
        self.cancel_grace_s = cancel_grace_s
        self.prompt_lookup = prompt_lookup
        """Greedy generations use prompt-lookup drafts (see ``inference.engines.prompt_lookup``)."""
        self.load_timeout_s = load_timeout_s
        self._plan: Plan | None = None
        self._info: dict[str, Any] = {}
        self._needs_reload = False
        self._crash_message = ""
        self._in_batch_callback = False  # generate_batch is running the caller's on_result/progress
        self._feed: LocalFeed | None = None  # generate_fed is running (only tokenize may be asked meanwhile)
        self._load_log_start = 0
        self._loading_plan: Plan | None = None  # the plan being loaded (a crash then names its file and placement)
        self._lock = threading.RLock()
        self._log_dir = tempfile.TemporaryDirectory(prefix="pagewise-worker-")
        self._log_path = os.path.join(self._log_dir.name, "worker.log")
        self._worker = WorkerProcess(
            self._log_path, on_forced_stop=self._after_forced_stop, crash_error=self._crash_error
        )
        self.notice = ""
        """The last thing the user should know about (a reload after a forced cancel...)."""

    # Properties

    @property
    def n_ctx(self) -> int:
        return int(self._info.get("n_ctx", 0)) if self.loaded else 0

    @property
    def model_name(self) -> str:
        return str(self._info.get("model_name", "")) if self.loaded else ""

    @property
    def loaded(self) -> bool:
        return self._plan is not None and not self._crash_message and (self._needs_reload or self._worker.alive)

    @property
    def plan(self) -> Plan | None:
        return self._plan

    @property
    def worker_pid(self) -> int | None:
        """The worker's process id (for telemetry), or None when no worker runs."""
        return self._worker.pid

    @property
    def log_path(self) -> str:
        """The worker's log file (llama.cpp's messages)."""
        return self._log_path

    def load_log(self) -> str:
        """What llama.cpp logged during the last ``load`` (buffer sizes, for calibration:
        ``inference.planning.calibration.calibrate(plan, engine.load_log(), measured_peak)``)."""
        try:
            with open(self._log_path, encoding="utf-8", errors="replace") as log:
                log.seek(self._load_log_start)
                text = log.read()
        except OSError:
            return ""
        end = text.find(_LOAD_LOG_END)
        return text if end < 0 else text[:end]

    # Lifecycle

    def load(
        self,
        plan: Plan | None = None,
        progress: ProgressCallback = no_progress,
        cancel: CancelToken = NEVER_CANCELLED,
    ) -> LoadReport:
        if plan is None:
            raise EngineError("The local engine needs a plan to load a model (see `pagewise plan`).")
        check_model_file(plan.model_path)
        with self._lock:
            self._worker.stop()
            self._plan, self._info, self._needs_reload, self._crash_message = None, {}, False, ""
            self._loading_plan = plan
            progress(Progress(Stage.LOAD, 0, 3, "starting the model worker"))
            try:
                self._load_log_start = os.path.getsize(self._log_path)
            except OSError:
                self._load_log_start = 0
            self._start_worker(cancel)
            progress(Progress(Stage.LOAD, 1, 3, f"loading {Path(plan.model_path).name}"))
            started = time.perf_counter()
            try:
                reply = self._request(
                    ("load", plan), cancel, self.load_timeout_s, kill_on_cancel=True, path=plan.model_path
                )
            except BaseException:
                self._worker.stop()
                raise
            if reply[0] != "loaded":
                raise EngineError(f"Unexpected reply from the model worker: {reply[0]!r}.")
            self._info = dict(reply[1])
            self._plan = plan
            self._needs_reload = False
            progress(Progress(Stage.LOAD, 3, 3, "loaded"))
            return LoadReport(
                model_path=plan.model_path,
                model_name=str(self._info["model_name"]),
                n_ctx=int(self._info["n_ctx"]),
                n_gpu_layers=plan.n_gpu_layers,
                backend=str(self._info["backend"]),
                load_s=time.perf_counter() - started,
                worker_pid=self.worker_pid,
                notes=tuple(self._info.get("notes", ())),
            )

    def restart(self, progress: ProgressCallback = no_progress, cancel: CancelToken = NEVER_CANCELLED) -> LoadReport:
        """Start a fresh worker and load the last plan again (after a crash)."""
        if self._plan is None:
            raise EngineError("No model was loaded, so there is nothing to restart. Load a model first.")
        return self.load(self._plan, progress, cancel)

    def unload(self) -> None:
        with self._lock:
            self._worker.stop()
            self._plan = None
            self._info = {}
            self._needs_reload = False
            self._crash_message = ""

    def close(self) -> None:
        self.unload()
        self._log_dir.cleanup()

    def cancel(self) -> None:
        self._worker.cancel_event.set()

    # Work

    def tokenize(self, text: str) -> list[int]:
        with self._lock:
            if self._feed is not None:  # the producer of generate_fed's feed, in its refill
                return self._feed.tokenize(text)
            self._ensure_ready()
            reply = self._request(("tokenize", text), NEVER_CANCELLED, 60.0)
            return list(reply[1])

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
        with self._lock:
            self._ensure_ready()
            request = GenerateRequest(
                prompt=_freeze(prompt),
                max_tokens=max_tokens,
                temperature=temperature,
                stop=tuple(stop),
                prompt_lookup=self.prompt_lookup and json_schema is None,
                json_schema=_schema_text(json_schema),
            )
            started = time.perf_counter()
            self._worker.send(("generate", request))
        return hold_stream(self._stream(started, cancel, self._worker.request_serial), json_schema, max_tokens)

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
        if not prompts:
            return []
        with self._lock:
            self._ensure_ready()
            request = BatchRequest(
                prompts=tuple(_freeze(prompt) for prompt in prompts),
                max_tokens=max_tokens,
                temperature=temperature,
                stop=tuple(stop),
                json_schema=_schema_text(json_schema),
            )
            self._worker.send(("batch", request))
            results: list[Completion | None] = [None] * len(prompts)
            done = 0
            while True:
                message = self._receive(cancel, timeout_s=None)
                if message[0] != "batch_item":
                    break
                index = int(message[1])
                completion = hold_completion(
                    Completion(message[2], GenerationStats(**message[3])), json_schema, max_tokens
                )
                results[index] = completion
                done += 1
                self._in_batch_callback = True
                try:
                    if on_result is not None:
                        on_result(index, completion)
                    progress(Progress(Stage.GENERATE, done, len(prompts), "batch"))
                except BaseException:
                    self._drain()  # stop the rest of the batch; the worker keeps its model
                    raise
                finally:
                    self._in_batch_callback = False
            self._worker.in_flight = False
            self._raise_for(message)
            if message[0] != "batch_done" or done != len(prompts):
                raise EngineError(f"Unexpected reply from the model worker: {message[0]!r}.")
            return [completion for completion in results if completion is not None]

    def generate_fed(
        self,
        feed: PromptFeed,
        *,
        max_tokens: int = 256,
        json_schema: JsonSchema | None = None,
        cancel: CancelToken = NEVER_CANCELLED,
        on_result: Callable[[Any, Completion], None],
    ) -> None:
        """The feed's prompts go to the worker as they come, while its sequences decode
        (``inference.engines.local_feed``): a sequence whose reply ended takes the next prompt at
        once. The feed's ``refill`` may tokenize meanwhile; other calls raise ``EngineError``."""
        from inference.engines.feed_decode import FeedRequest
        from inference.engines.local_feed import LocalFeed

        with self._lock:
            self._ensure_ready()
            session = LocalFeed(
                self._worker,
                receive=lambda token: self._receive(token, timeout_s=None),
                raise_for=self._raise_for,
                drain=self._drain,
                freeze=_freeze,
                window=2 * self.parallel + 2,
            )
            self._feed = session
            try:
                request = FeedRequest(max_tokens, 0.0, (), _schema_text(json_schema))
                session.run(feed, request, json_schema=json_schema, cancel=cancel, on_result=on_result)
            finally:
                self._feed = None

    # Internals: the worker process

    def _start_worker(self, cancel: CancelToken) -> None:
        self._worker.start()
        reply = self._receive(cancel, timeout_s=120.0, kill_on_cancel=True)
        self._worker.in_flight = False
        self._raise_for(reply)

    def _ensure_ready(self) -> None:
        if self._feed is not None:
            raise EngineError("The model cannot take another request while generate_fed runs (only tokenize).")
        if self._in_batch_callback:
            # The batch is still running in the worker: a request now would have to cancel it.
            raise EngineError("The model cannot take another request inside generate_batch's on_result.")
        if self._plan is None:
            raise EngineError("No model is loaded. Load a model first.")
        if self._worker.in_flight:
            self._drain()  # may have to stop the worker: then it reloads just below
        if self._needs_reload:
            self.load(self._plan)
            self.notice = "The model was reloaded after a forced stop; its prompt cache was lost."
        elif self._crash_message:  # asked again without a restart since the crash
            raise EngineError(
                f"{self._crash_message} The model must be restarted (loaded again) before it can answer.",
                path=self._plan.model_path,
            )
        elif not self._worker.alive:
            raise self._crash_error("between requests")

    def _request(
        self,
        message: tuple[Any, ...],
        cancel: CancelToken,
        timeout_s: float,
        *,
        kill_on_cancel: bool = False,
        path: str | None = None,
    ) -> Any:
        self._worker.send(message)
        reply = self._receive(cancel, timeout_s=timeout_s, kill_on_cancel=kill_on_cancel)
        self._worker.in_flight = False
        self._raise_for(reply, path)
        return reply

    def _receive(self, cancel: CancelToken, *, timeout_s: float | None, kill_on_cancel: bool = False) -> Any:
        return self._worker.receive(
            cancel, timeout_s=timeout_s, grace_s=self.cancel_grace_s, kill_on_cancel=kill_on_cancel
        )

    def _after_forced_stop(self) -> None:
        self._needs_reload = self._plan is not None
        if self._needs_reload:
            self.notice = "The model worker was stopped; the model reloads on next use (prompt cache lost)."

    def _drain(self) -> None:
        """Finish an abandoned request: cancel it and read up to its final message."""
        self._worker.drain(self.cancel_grace_s)

    def _raise_for(self, message: Any, path: str | None = None) -> None:
        kind = message[0]
        if kind == "cancelled":
            raise Cancelled()
        if kind == "error":
            category, text = message[1], message[2]
            path = path or (self._plan.model_path if self._plan else None)
            if category == "model":
                raise ModelError(text, path=path)
            raise EngineError(text, path=path)

    def _crash_error(self, when: str) -> EngineError:
        code = self._worker.exit_code()
        tail = self._worker.log_tail()
        loading = self._plan is None
        placed = self._plan or self._loading_plan
        path = placed.model_path if placed is not None else None
        self._worker.stop()
        self._needs_reload = False
        name = Path(path).name if path else "the model"
        on_cpu = placed is not None and placed.n_gpu_layers == 0
        killed = code is not None and code < 0 and -code == getattr(signal, "SIGKILL", 9)
        if killed:
            advice = "If it happens again, close other programs or use a smaller context or model."
        elif on_cpu:
            advice = (
                "It was a crash in llama.cpp's CPU code (no layer was on the GPU): `pagewise doctor` shows how "
                "llama.cpp was built and whether this CPU suits it; a smaller context or another model may help."
            )
        else:
            advice = (
                "If it happens again, use fewer GPU layers or a smaller context (`pagewise plan` picks "
                "settings that fit)."
            )
        if loading:
            message = (
                f"The model worker stopped while loading {name}: {describe_exit(code)}. Pagewise is still "
                f"running. {advice} Check the file too (`pagewise doctor`)."
            )
        else:
            message = f"The model worker for {name} stopped {when}: {describe_exit(code)}. {advice}"
        self._crash_message = message
        return EngineError(message, path=path, detail=f"llama.cpp's last message: {tail}" if tail else "")

    # Internals: streaming

    def _stream(self, started: float, cancel: CancelToken, serial: int) -> Iterator[Piece]:
        first_at: float | None = None
        try:
            while True:
                message = self._receive(cancel, timeout_s=None)
                kind = message[0]
                if kind == "piece":
                    if first_at is None:
                        first_at = time.perf_counter()
                    if len(message) > 2:  # the first piece: with the prompt tokens reused
                        yield Piece(message[1], cached_tokens=int(message[2]))
                    elif message[1]:
                        yield Piece(message[1])
                    continue
                self._worker.in_flight = False
                self._raise_for(message)
                if kind != "done":
                    raise EngineError(f"Unexpected reply from the model worker: {kind!r}.")
                stats = dict(message[1])
                ended = time.perf_counter()
                # Measured here, so they include the trip through the pipe.
                stats["ttft_s"] = (first_at or ended) - started
                stats["total_s"] = ended - started
                yield Piece("", GenerationStats(**stats))
                return
        finally:
            # Abandoned early (closed or garbage-collected): stop the worker's generation, if it
            # is still this stream's. A stream dropped unread and collected later must not cancel
            # a newer request (its generation was already drained when that one was sent).
            worker = self._worker
            if worker.in_flight and serial == worker.request_serial and worker.alive:
                self._drain()


def _freeze(prompt: Prompt) -> str | tuple[ChatMessage, ...]:
    if isinstance(prompt, str):
        return prompt
    return tuple(ChatMessage(message.role, message.content) for message in prompt)


def _schema_text(schema: JsonSchema | None) -> str | None:
    """The schema as JSON text for the worker (which turns it into a llama.cpp grammar)."""
    import json

    return None if schema is None else json.dumps(schema, sort_keys=True)

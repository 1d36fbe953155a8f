"""The model worker: llama-cpp-python in a child process (the parent is ``inference.engines.local``).

The child owns the ``Llama`` object. A crash in llama.cpp (abort, CUDA out of memory,
segfault) kills only this process; the parent reports it and can start another.

Protocol (tuples over a ``multiprocessing`` pipe; the parent sends one request and reads
until a terminal reply):

    ("load", Plan)                      -> ("loaded", info) | ("error", kind, message)
    ("tokenize", text)                  -> ("tokens", list[int])
    ("generate", GenerateRequest)       -> ("piece", text, cached) ("piece", text)* then ("done", stats)
                                           | ("cancelled",)
    ("batch", BatchRequest)             -> ("batch_item", index, text, stats)* as each reply finishes,
                                           then ("batch_done",) | ("cancelled",)
    ("feed", FeedRequest)               -> the parent then sends ("feed_prompt", key, prompt)* and at last
                                           ("feed_end",), and may send ("tokenize", text) (answered at
                                           once); ("feed_item", key, text, stats, meter)* as each reply
                                           finishes, then ("feed_done", meter) | ("cancelled",)
    ("unload",)                         -> ("ok",)
    ("exit",)                           -> the process ends

This module holds the protocol and the model's loading; the decoding itself is in
``inference.engines.single_decode`` (one prompt, on the model's own context) and
``inference.engines.batch_decode`` (several prompts, on a second context).

``cancel_event`` (an ``inference.engines.shared_flag.SharedFlag``) is checked between prefill calls and between
generated tokens. On the CPU backend llama.cpp's abort callback checks the event between graph
nodes, so a cancel lands at once; on CUDA it waits for the running micro-batch (measured per
placement in docs/benchmarks.md).

``worker_main`` is a top-level function and nothing here runs at import: required by the
"spawn" start method and by frozen builds (the app calls ``multiprocessing.freeze_support()``).
The worker ends itself when the parent process dies.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import os
import sys
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

from inference.engines.engine import ChatMessage
from inference.engines.feed_decode import FEED_LEFTOVERS, FeedRequest
from inference.planning.plan import Plan


@dataclass(frozen=True, slots=True)
class GenerateRequest:
    prompt: str | tuple[ChatMessage, ...]
    max_tokens: int
    temperature: float
    stop: tuple[str, ...]
    prompt_lookup: bool = False
    json_schema: str | None = None  # JSON text; the reply follows it (a llama.cpp grammar)


@dataclass(frozen=True, slots=True)
class BatchRequest:
    prompts: tuple[str | tuple[ChatMessage, ...], ...]
    max_tokens: int
    temperature: float
    stop: tuple[str, ...]
    json_schema: str | None = None
    seed: int = 0


class _Exit(Exception):
    """The parent asked the worker to exit in the middle of a request."""


class WorkerCancelled(Exception):
    """Raised inside the worker when the cancel event is set."""


def describe_load_failure(path: str, plan: Plan, log_lines: Sequence[str], error: str) -> tuple[str, str]:
    """(kind, message for the user) from what llama.cpp logged while failing to load.

    kind is "model" (the file is the problem) or "engine" (memory, build, settings).
    """
    log = "\n".join(log_lines)
    lowered = log.lower()
    name = os.path.basename(path)
    if "unknown model architecture" in lowered:
        arch = ""
        for line in log_lines:
            if "unknown model architecture" in line.lower():
                arch = line.split("architecture:", 1)[-1].strip().strip("'\" ")
        return "model", (
            f"{name} uses a model architecture ({arch or 'unknown'}) that this version of llama.cpp "
            "does not support. Choose another model, or update Pagewise."
        )
    if "not within the file bounds" in lowered or "truncated" in lowered or "failed to read" in lowered:
        return "model", (
            f"{name} is incomplete or damaged (llama.cpp could not read all of its tensors). Download the model again."
        )
    if "out of memory" in lowered or "failed to allocate" in lowered or "unable to allocate" in lowered:
        return "engine", (
            f"Not enough memory to load {name} with {plan.n_gpu_layers} GPU layers and a context of "
            f"{plan.n_ctx} tokens. Use a smaller context or fewer GPU layers (`pagewise plan` picks "
            "settings that fit), or close other programs using the GPU."
        )
    if "invalid magic" in lowered or ("failed to load model" in lowered and "gguf" in lowered):
        return "model", f"{name} is not a valid GGUF model file. Choose a .gguf model file."
    last = next((line for line in reversed(log_lines) if line.strip()), error)
    return "model", f"llama.cpp could not load {name}: {last.strip()}. Check the file, or download it again."


class _LogCapture:
    """Keeps llama.cpp's recent log lines (for error messages) and writes them to stderr,
    which the worker points at its log file."""

    def __init__(self) -> None:
        self.lines: deque[str] = deque(maxlen=60)
        self._partial = ""
        self.callback: Any = None

    def install(self, llama_cpp: Any) -> None:
        @llama_cpp.llama_log_callback  # type: ignore[untyped-decorator]
        def on_log(level: int, text: bytes, user_data: ctypes.c_void_p) -> None:
            decoded = text.decode("utf-8", errors="replace")
            with contextlib.suppress(Exception):
                sys.stderr.write(decoded)
            self._partial += decoded
            while "\n" in self._partial:
                line, self._partial = self._partial.split("\n", 1)
                self.lines.append(line)

        self.callback = on_log  # keep a reference: ctypes must not free it
        llama_cpp.llama_log_set(on_log, ctypes.c_void_p(0))


class _Worker:
    def __init__(self, conn: Connection, cancel_event: Any) -> None:
        self.conn = conn
        self.cancel_event = cancel_event
        self.llm: Any = None
        self.plan: Plan | None = None
        self._grammars: dict[str, Any] = {}
        self.render_chat: Any = None
        self._overrides: Any = None
        self._abort_callback: Any = None
        self.log = _LogCapture()
        import llama_cpp

        self.llama_cpp: Any = llama_cpp
        self.log.install(llama_cpp)

    # Loop

    def serve(self) -> None:
        while True:
            try:
                message = self.conn.recv()
            except (EOFError, OSError):
                return
            kind = message[0]
            if kind == "exit":
                self._unload()
                return
            if kind in FEED_LEFTOVERS:
                continue
            try:
                if kind == "load":
                    self.conn.send(("loaded", self._load(message[1])))
                elif kind == "tokenize":
                    self.conn.send(("tokens", self._tokenize_raw(message[1])))
                elif kind == "generate":
                    self._generate(message[1])
                elif kind == "batch":
                    self._batch(message[1])
                elif kind == "feed":
                    self._feed(message[1])
                elif kind == "unload":
                    self._unload()
                    self.conn.send(("ok",))
                else:
                    self.conn.send(("error", "engine", f"Unknown worker request {kind!r}."))
            except _Exit:
                self._unload()
                return
            except WorkerCancelled:
                self.conn.send(("cancelled",))
            except _ReportedError as error:
                self.conn.send(("error", error.kind, error.message))
            except Exception as error:  # report, keep serving
                self.conn.send(("error", "engine", f"The model worker failed: {error!r}"))

    def _check_cancel(self) -> None:
        if self.cancel_event.is_set():
            raise WorkerCancelled()

    # Requests

    def _load(self, plan: Plan) -> dict[str, Any]:
        self._unload()
        llama_cpp = self.llama_cpp
        started = time.perf_counter()
        overrides = self._moe_overrides(plan)
        try:
            llm = self._construct(
                overrides,
                **plan.llama_kwargs(),
                # Our stderr is the worker's log file; verbose keeps llama.cpp's messages
                # there instead of /dev/null, for error reports.
                verbose=True,
            )
        except (ValueError, RuntimeError) as error:
            kind, message = describe_load_failure(plan.model_path, plan, list(self.log.lines), str(error))
            raise _ReportedError(kind, message) from error
        self._overrides = overrides  # referenced by the model's params until it is freed
        sys.stderr.write("[pagewise] load finished\n")  # LocalEngine.load_log() reads up to here
        from inference.engines.chat_template import chat_renderer

        bos = llm.token_bos()
        eos = llm.token_eos()
        bos_text = llm._model.token_get_text(bos) if bos != -1 else ""
        eos_text = llm._model.token_get_text(eos) if eos != -1 else ""
        self.render_chat, template_note = chat_renderer(llm.metadata, bos_text, eos_text)
        self.llm = llm
        self.plan = plan
        model = llm._model.model
        gpu_offload = bool(llama_cpp.llama_supports_gpu_offload())
        return {
            "n_ctx": int(llm.n_ctx()),
            "model_name": str(llm.metadata.get("general.name") or os.path.basename(plan.model_path)),
            "n_layers": int(llama_cpp.llama_model_n_layer(model)),
            "n_params": int(llama_cpp.llama_model_n_params(model)),
            "model_bytes": int(llama_cpp.llama_model_size(model)),
            "gpu_offload": gpu_offload,
            "backend": "CUDA" if gpu_offload and plan.n_gpu_layers != 0 else "CPU",
            "load_s": time.perf_counter() - started,
            "notes": [template_note],
        }

    def _set_abort(self, llm: Any, enabled: bool) -> None:
        """Let the cancel event interrupt a decode call from inside (prefill only).

        ggml's CPU backend asks the callback between graph nodes, so a cancel lands within
        one node even when a chunk is slow (an oversubscribed CPU can make a chunk take
        seconds). Other backends do not ask: there the time-sized chunks do the work. Off
        during decode, where each call is one token and the per-node call would cost.
        """
        llama_cpp = self.llama_cpp
        if self._abort_callback is None:
            event = self.cancel_event

            @llama_cpp.ggml_abort_callback  # type: ignore[untyped-decorator]
            def should_abort(_data: ctypes.c_void_p) -> bool:
                return bool(event.is_set())

            self._abort_callback = should_abort  # keep a reference while llama.cpp holds it
        callback = self._abort_callback if enabled else llama_cpp.ggml_abort_callback()
        llama_cpp.llama_set_abort_callback(llm._ctx.ctx, callback, None)

    def _abort_callback_for_batch(self) -> Any:
        self._set_abort(self.llm, False)  # creates the callback object once
        return self._abort_callback

    def _moe_overrides(self, plan: Plan) -> Any:
        """For MoE plans: keep the experts of layers [0, n_cpu_moe) in CPU memory."""
        n_cpu_moe = getattr(plan, "n_cpu_moe", 0)
        if not n_cpu_moe:
            return None
        from inference.llama_log import cpu_tensor_overrides, expert_layers_pattern

        return cpu_tensor_overrides([expert_layers_pattern(range(n_cpu_moe))])

    def _construct(self, overrides: Any, **kwargs: Any) -> Any:
        """``Llama(**kwargs)``, with tensor overrides when given.

        ``Llama`` never sets ``model_params.tensor_buft_overrides``; it takes its params from
        ``llama_model_default_params()``, so that function is wrapped for this one call.
        """
        llama_cpp = self.llama_cpp
        if overrides is None:
            return llama_cpp.Llama(**kwargs)
        low_level = llama_cpp.llama_cpp
        original = low_level.llama_model_default_params

        def with_overrides() -> Any:
            params = original()
            params.tensor_buft_overrides = overrides.pointer
            return params

        low_level.llama_model_default_params = with_overrides
        try:
            return llama_cpp.Llama(**kwargs)
        finally:
            low_level.llama_model_default_params = original

    def _unload(self) -> None:
        if self.llm is not None:
            self.llm.close()
            self.llm = None
            self._overrides = None
            gc.collect()

    def _require_model(self) -> Any:
        if self.llm is None:
            raise _ReportedError("engine", "No model is loaded in the worker. Load a model first.")
        return self.llm

    def _tokenize_raw(self, text: str) -> list[int]:
        llm = self._require_model()
        return list(llm.tokenize(text.encode("utf-8"), add_bos=True, special=True))

    def prompt_tokens(self, prompt: str | tuple[ChatMessage, ...]) -> list[int]:
        llm = self._require_model()
        if isinstance(prompt, str):
            return self._tokenize_raw(prompt)
        text = self.render_chat(list(prompt))
        # The template writes any BOS itself (llama-cpp-python does the same).
        return list(llm.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    def _generate(self, request: GenerateRequest) -> None:
        from inference.engines.single_decode import TRACE_CHUNKS, generate

        llm = self._require_model()
        started = time.perf_counter()
        if TRACE_CHUNKS:
            sys.stderr.write(f"[chunk] request at {time.time():.3f}\n")
        tokens = self.prompt_tokens(request.prompt)
        n_ctx = int(llm.n_ctx())
        if not tokens:
            raise _ReportedError("engine", "The prompt is empty.")
        if len(tokens) >= n_ctx:
            raise _ReportedError(
                "context",
                f"The prompt has {len(tokens)} tokens but the context holds {n_ctx}. "
                "Shorten it, or load the model with a larger context.",
            )

        def send_piece(text: str, cached: int | None) -> None:
            self.conn.send(("piece", text) if cached is None else ("piece", text, cached))

        stats = generate(
            llm,
            self.llama_cpp,
            tokens,
            max_tokens=min(request.max_tokens, n_ctx - len(tokens)),
            temperature=request.temperature,
            stop=request.stop,
            prompt_lookup=request.prompt_lookup,
            json_schema=request.json_schema,
            n_ubatch=self.plan.n_ubatch if self.plan else int(llm.n_batch),
            started=started,
            check_cancel=self._check_cancel,
            set_abort=lambda enabled: self._set_abort(llm, enabled),
            grammar=self._grammar,
            on_piece=send_piece,
        )
        self.conn.send(("done", stats))

    def _grammar(self, schema_text: str) -> Any:
        """A llama.cpp grammar for the JSON schema ``schema_text`` (kept for reuse)."""
        cached = self._grammars.get(schema_text)
        if cached is None:
            from llama_cpp.llama_grammar import LlamaGrammar

            try:
                cached = LlamaGrammar.from_json_schema(schema_text, verbose=False)
            except Exception as error:  # the converter raises plain exceptions on schemas it cannot express
                raise _ReportedError("engine", f"The JSON schema cannot be turned into a grammar: {error}") from error
            self._grammars[schema_text] = cached
        return cached

    def _batch(self, request: BatchRequest) -> None:
        from inference.engines.batch_decode import run_batch

        llm = self._require_model()
        assert self.plan is not None
        prompts = [self.prompt_tokens(prompt) for prompt in request.prompts]

        def send(index: int, text: str, stats: dict[str, Any]) -> None:
            self.conn.send(("batch_item", index, text, stats))

        run_batch(
            llm,
            self.plan,
            prompts,
            max_tokens=request.max_tokens,
            temperature=request.temperature,
            stop=request.stop,
            seed=request.seed,
            check_cancel=self._check_cancel,
            on_result=send,
            abort_callback=self._abort_callback_for_batch(),
            grammar=self._grammar(request.json_schema) if request.json_schema is not None else None,
        )
        self.conn.send(("batch_done",))

    def _feed(self, request: FeedRequest) -> None:
        from inference.engines.feed_decode import Inbox, check_fits, run_feed

        llm = self._require_model()
        plan = self.plan
        assert plan is not None
        inbox = Inbox()
        n_ctx = int(llm.n_ctx())

        def poll(wait_s: float) -> None:
            while self.conn.poll(wait_s):
                wait_s = 0.0
                message = self.conn.recv()
                kind = message[0]
                if kind == "feed_prompt":
                    tokens = self.prompt_tokens(message[2])
                    check_fits(tokens, request.max_tokens, n_ctx)
                    inbox.pending.append((int(message[1]), tokens))
                elif kind == "feed_end":
                    inbox.ended = True
                elif kind == "tokenize":
                    self.conn.send(("tokens", self._tokenize_raw(message[1])))
                elif kind == "exit":
                    raise _Exit()
                else:
                    raise _ReportedError("engine", f"Unexpected worker request {kind!r} while prompts are fed.")

        def send(key: int, text: str, stats: dict[str, Any], meter: tuple[float, float]) -> None:
            self.conn.send(("feed_item", key, text, stats, meter))

        meter = run_feed(
            llm,
            plan,
            inbox,
            poll,
            max_tokens=request.max_tokens,
            temperature=request.temperature,
            stop=request.stop,
            seed=request.seed,
            check_cancel=self._check_cancel,
            on_result=send,
            abort_callback=self._abort_callback_for_batch(),
            grammar=self._grammar(request.json_schema) if request.json_schema is not None else None,
        )
        self.conn.send(("feed_done", meter))


class _ReportedError(Exception):
    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


def _point_stderr_at(log_path: str | None) -> None:
    if not log_path:
        return
    log = open(log_path, "a", buffering=1, encoding="utf-8", errors="replace")  # noqa: SIM115
    os.dup2(log.fileno(), 2)
    sys.stderr = log


def _exit_with_parent() -> None:
    """End this process when the parent dies (killed, crashed): a model worker must not
    outlive the app and keep its RAM, VRAM and CPU."""
    import multiprocessing
    import threading
    from multiprocessing.connection import wait

    parent = multiprocessing.parent_process()
    if parent is None:
        return

    def watch() -> None:
        wait([parent.sentinel])
        os._exit(0)

    threading.Thread(target=watch, name="pagewise-parent-watch", daemon=True).start()


def worker_main(conn: Connection, cancel_event: Any, log_path: str | None) -> None:
    """Entry point of the worker process (top-level, for the spawn start method)."""
    _exit_with_parent()
    _point_stderr_at(log_path)
    try:
        worker = _Worker(conn, cancel_event)
    except Exception as error:  # llama_cpp missing or its library broken
        conn.send(("error", "engine", f"llama.cpp could not be started: {error}. Reinstall Pagewise."))
        return
    conn.send(("ready", os.getpid()))
    worker.serve()

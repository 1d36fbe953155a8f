"""The remote engine: an OpenAI-compatible server (llama.cpp server, vLLM, Ollama) by URL.

Streaming uses server-sent events (``stream: true``) on ``/v1/chat/completions`` (chat
messages) or ``/v1/completions`` (raw prompts). Cancel closes the connection (the
servers named above then stop generating). Token counts come from the server's
``/tokenize`` when it has one (llama.cpp server, vLLM; llama-cpp-python's server:
``/extras/tokenize``), else from an estimate of 4
characters per token. The HTTP side (requests, events, abort) is ``inference.engines.remote_http``.

``api_key`` goes as ``Authorization: Bearer KEY`` on every request (vLLM's and llama.cpp's
``--api-key``); a server that refuses it, or wants one when none was given, raises
``ApiKeyError`` saying which. The app finds the key (``app.services.api_key``); the engine only sends it.

A server that says it is overloaded (429, 503) is asked again after a back-off (``Backoff``:
exponential with jitter, bounded, its ``Retry-After`` honoured); one that does not answer
(connection refused or reset, a reply cut off) raises ``ServerUnreachable``, which a long job
turns into a pause (``summarizer.review.room_review``). ``generate_fed`` keeps up to ``parallel``
requests in flight across a whole job, ``parallel`` being the server's slots where its ``/props``
says (llama.cpp's ``total_slots``), else the ``max_parallel`` given (the remote_parallel setting).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from http.client import HTTPResponse
from typing import Any

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
)
from inference.engines.json_replies import ReplyFormatError, hold_stream
from inference.engines.prompt_feed import PromptFeed, run_fed_threads
from inference.engines.remote_http import (
    OVERLOADED_STATUSES,
    Backoff,
    HttpClient,
    HttpError,
    HttpStatus,
    Request,
    error_text,
    sse_events,
)
from inference.errors import ApiKeyError, EngineError, shorten_message
from inference.planning.plan import Plan
from inference.progress import Progress, ProgressCallback, Stage, no_progress

DEFAULT_BACKOFF = Backoff()
CHARS_PER_TOKEN = 4.0
"""Estimate used when the server cannot count tokens."""


class RemoteEngine(Engine):
    """``Engine`` talking to an OpenAI-compatible HTTP server."""

    def __init__(
        self,
        url: str,
        *,
        model: str | None = None,
        api_key: str | None = None,
        timeout_s: float = 600.0,
        n_ctx: int = 4096,
        max_parallel: int = 8,
        backoff: Backoff = DEFAULT_BACKOFF,
    ) -> None:
        self._http = HttpClient(url, api_key=api_key, timeout_s=timeout_s)
        self.url = self._http.url
        self._model = model
        self._timeout_s = timeout_s
        self._n_ctx = n_ctx
        self._max_parallel = max(1, max_parallel)  # the setting; the server's own count wins (load)
        self.backoff = backoff
        self.overloaded_retries = 0  # requests tried again after a 429/503 (the room bench reports it)
        self._loaded = False
        self._tokenize_style: str | None = None  # "llama.cpp", "vllm", "llama-cpp-python", "none"
        self._schema_style = "json_schema"  # or "json_object" (llama-cpp-python's server)

    # Properties

    @property
    def n_ctx(self) -> int:
        return self._n_ctx if self._loaded else 0

    @property
    def model_name(self) -> str:
        return (self._model or "") if self._loaded else ""

    @property
    def loaded(self) -> bool:
        return self._loaded

    # Lifecycle

    def load(
        self,
        plan: Plan | None = None,
        progress: ProgressCallback = no_progress,
        cancel: CancelToken = NEVER_CANCELLED,
    ) -> LoadReport:
        """Check that the server answers and learn its model name and context length."""
        progress(Progress(Stage.LOAD, 0, 1, f"connecting to {self.url}"))
        cancel.raise_if_cancelled()
        started = time.perf_counter()
        listing = self._http.json("GET", "/v1/models", None, timeout_s=min(self._timeout_s, 15.0))
        models = listing.get("data") if isinstance(listing, dict) else None
        if not isinstance(models, list):
            raise self._http.garbage("/v1/models", "no 'data' list of models")
        ids = [str(m.get("id")) for m in models if isinstance(m, dict) and m.get("id")]
        notes: list[str] = []
        if self._model is None:
            if not ids:
                raise EngineError(
                    f"The server at {self.url} lists no model. Load a model on the server, then try again."
                )
            self._model = ids[0]
        elif ids and self._model not in ids:
            notes.append(f"the server lists {', '.join(ids[:5])}; asking for {self._model} anyway")
        for entry in models:
            if isinstance(entry, dict) and entry.get("id") == self._model:
                limit = entry.get("max_model_len") or (entry.get("meta") or {}).get("n_ctx_train")
                if isinstance(limit, int) and limit > 0:
                    self._n_ctx = limit
        try:  # llama.cpp server: the context actually allocated, and its slots (--parallel N)
            props = self._http.json("GET", "/props", None, timeout_s=5.0)
            n_ctx = (props.get("default_generation_settings") or {}).get("n_ctx")
            if isinstance(n_ctx, int) and n_ctx > 0:
                self._n_ctx = n_ctx
            slots = props.get("total_slots")
            if isinstance(slots, int) and slots > 0:
                self._max_parallel = slots
                notes.append(f"the server has {slots} slot{'s' if slots > 1 else ''}: up to {slots} requests at once")
        except ApiKeyError:  # llama.cpp's server lists its models without the key, /props needs it
            raise
        except EngineError:
            pass
        self._loaded = True
        progress(Progress(Stage.LOAD, 1, 1, "connected"))
        return LoadReport(
            model_path=self.url,
            model_name=self._model,
            n_ctx=self._n_ctx,
            backend="remote",
            load_s=time.perf_counter() - started,
            notes=tuple(notes),
        )

    @property
    def parallel(self) -> int:
        return self._max_parallel

    def restart(self, progress: ProgressCallback = no_progress, cancel: CancelToken = NEVER_CANCELLED) -> LoadReport:
        """Connect again (the server may have restarted with another model or context)."""
        return self.load(None, progress, cancel)

    def unload(self) -> None:
        self.cancel()
        self._loaded = False

    def cancel(self) -> None:
        self._http.abort_all()

    # Tokens

    def tokenize(self, text: str) -> list[int]:
        tokens = self._server_tokenize(text)
        if tokens is None:
            raise EngineError(
                f"The server at {self.url} cannot tokenize text (no /tokenize endpoint); "
                "token counts are estimated instead."
            )
        return tokens

    def count_tokens(self, text: str) -> int:
        tokens = self._server_tokenize(text)
        if tokens is None:
            return max(1, round(len(text) / CHARS_PER_TOKEN)) if text else 0
        return len(tokens)

    def _server_tokenize(self, text: str) -> list[int] | None:
        styles = [self._tokenize_style] if self._tokenize_style else ["llama.cpp", "vllm", "llama-cpp-python"]
        for style in styles:
            if style == "none":
                return None
            bodies: dict[str, dict[str, Any]] = {
                "llama.cpp": {"content": text, "add_special": True},
                "vllm": {"model": self._model, "prompt": text},
                "llama-cpp-python": {"input": text},  # llama_cpp.server's /extras/tokenize
            }
            body = bodies[style]
            path = "/extras/tokenize" if style == "llama-cpp-python" else "/tokenize"
            try:
                answer = self._http.json("POST", path, body, timeout_s=30.0, quiet_status=True)
            except HttpStatus:
                continue
            tokens = answer.get("tokens") if isinstance(answer, dict) else None
            if isinstance(tokens, list):
                self._tokenize_style = style
                # llama.cpp may return {"id": .., "piece": ..} objects with with_pieces.
                return [int(t["id"]) if isinstance(t, dict) else int(t) for t in tokens]
        self._tokenize_style = "none"
        return None

    # Generation

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
        if not self._loaded:
            raise EngineError("Not connected to a server. Load (connect) first.")
        body: dict[str, Any] = {
            "model": self._model,
            "max_tokens": max_tokens,
            "temperature": temperature,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if stop:
            body["stop"] = list(stop)
        if json_schema is not None:
            body["response_format"] = self._response_format(json_schema)
        if isinstance(prompt, str):
            path, body["prompt"] = "/v1/completions", prompt
        else:
            path, body["messages"] = "/v1/chat/completions", [m.to_json() for m in prompt]
        return hold_stream(self._stream(path, body, stop, cancel), json_schema, max_tokens)

    def _response_format(self, schema: JsonSchema) -> dict[str, Any]:
        """OpenAI's structured output (llama.cpp's server, vLLM, Ollama); llama-cpp-python's
        server only takes its own form, a ``json_object`` with a ``schema``, learnt on the first
        refusal (``_json_object_fallback``)."""
        if self._schema_style == "json_object":
            return {"type": "json_object", "schema": dict(schema)}
        return {"type": "json_schema", "json_schema": {"name": "reply", "schema": dict(schema), "strict": True}}

    def _json_object_fallback(self, body: dict[str, Any], detail: bytes) -> dict[str, Any] | None:
        """The request again in llama-cpp-python's form when the server refused OpenAI's."""
        response_format = body.get("response_format")
        if not isinstance(response_format, dict) or response_format.get("type") != "json_schema":
            return None
        if b"response_format" not in detail:
            return None
        self._schema_style = "json_object"
        return {**body, "response_format": self._response_format(response_format["json_schema"]["schema"])}

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
        """Concurrent requests: the server batches them (vLLM, llama.cpp with --parallel).
        ``progress`` and ``on_result`` are called in this thread as replies arrive."""
        results: list[Completion | None] = [None] * len(prompts)
        stop_all = CancelToken()  # the caller's cancel, or an error here: stops every request

        def watch_cancel() -> None:
            while not stop_all.cancelled:
                if cancel.wait(0.05):
                    stop_all.cancel()

        cancel_watch = threading.Thread(target=watch_cancel, name="pagewise-batch-cancel", daemon=True)

        def one(prompt: Prompt) -> Completion:
            try:
                return self.complete(
                    prompt,
                    max_tokens=max_tokens,
                    temperature=temperature,
                    stop=stop,
                    json_schema=json_schema,
                    cancel=stop_all,
                )
            except ReplyFormatError as error:  # this reply only: the batch goes on
                return Completion("", GenerationStats(stop_reason="length"), error=error)

        pool = ThreadPoolExecutor(max_workers=min(self._max_parallel, max(1, len(prompts))))
        try:
            if cancel is not NEVER_CANCELLED:
                cancel_watch.start()
            futures = {pool.submit(one, prompt): index for index, prompt in enumerate(prompts)}
            for done, future in enumerate(as_completed(futures), start=1):
                index = futures[future]
                completion = results[index] = future.result()
                if on_result is not None:
                    on_result(index, completion)
                progress(Progress(Stage.GENERATE, done, len(prompts), "batch"))
        except BaseException:
            stop_all.cancel()
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
            stop_all.cancel()  # ends the cancel watcher
        return [result for result in results if result is not None]

    def _send(self, request: Request, path: str, body: dict[str, Any], cancel: CancelToken) -> HTTPResponse:
        """The server's response, tried again while it says it is overloaded (429/503), as
        ``backoff`` says; after the last try its refusal is the answer."""
        for attempt in range(self.backoff.attempts):
            response = self._http.send(request, "POST", path, body)
            if response.status not in OVERLOADED_STATUSES or attempt + 1 == self.backoff.attempts:
                return response
            delay = self.backoff.delay(attempt, response.getheader("Retry-After"))
            response.read()
            response.close()
            request.connection.close()  # the next try on a fresh connection
            self.overloaded_retries += 1
            if cancel.wait(delay):
                raise Cancelled()
        raise AssertionError("unreachable: the last try returns")

    def generate_fed(
        self,
        feed: PromptFeed,
        *,
        max_tokens: int = 256,
        json_schema: JsonSchema | None = None,
        cancel: CancelToken = NEVER_CANCELLED,
        on_result: Callable[[Any, Completion], None],
    ) -> None:
        """Up to ``parallel`` requests in flight over the whole feed (the server's slots, from its
        ``/props`` where it says, else the setting), not per batch: a slot whose reply is done
        takes the next prompt at once, whichever contract it reads."""

        def one(prompt: Prompt, stop_all: CancelToken) -> Completion:
            try:
                return self.complete(prompt, max_tokens=max_tokens, json_schema=json_schema, cancel=stop_all)
            except ReplyFormatError as error:  # this reply only: the job goes on
                return Completion("", GenerationStats(stop_reason="length"), error=error)

        run_fed_threads(feed, self._max_parallel, one, on_result, cancel)

    def _stream(self, path: str, body: dict[str, Any], stop: Sequence[str], cancel: CancelToken) -> Iterator[Piece]:
        started = time.perf_counter()
        request = self._http.open_request()
        finished = threading.Event()

        def watch() -> None:
            while not finished.is_set():
                if cancel.wait(0.05):
                    request.abort()
                    return

        watcher = threading.Thread(target=watch, name="pagewise-remote-cancel", daemon=True)
        watcher.start()
        scanner = StopScanner(stop, loops="response_format" not in body)  # a JSON reply is held by its schema
        first_at: float | None = None
        n_pieces = 0
        usage: dict[str, Any] = {}
        timings: dict[str, Any] = {}
        reason: StopReason = "eos"
        complete = False  # [DONE] or a finish_reason came: the stream was not cut off
        try:
            response = self._send(request, path, body, cancel)
            if response.status != 200:
                detail = response.read(2000)
                fallback = self._json_object_fallback(body, detail)
                if fallback is None:
                    raise self._http.status_error(path, response.status, detail)
                response.close()
                request.connection.close()  # a fresh connection: the refusal may not be read whole
                response = self._send(request, path, fallback, cancel)
                if response.status != 200:
                    raise self._http.status_error(path, response.status, response.read(2000))
            for event in sse_events(response):
                if event == "[DONE]":
                    complete = True
                    break
                try:
                    chunk = json.loads(event)
                except ValueError:
                    shown = shorten_message(event, 80)
                    raise self._http.garbage(path, f"an event that is not JSON: {shown!r}") from None
                if not isinstance(chunk, dict):
                    raise self._http.garbage(path, "an event that is not a JSON object")
                if "error" in chunk:
                    raise EngineError(f"The server at {self.url} reported an error: {error_text(chunk['error'])}")
                usage = chunk.get("usage") or usage
                timings = chunk.get("timings") or timings
                for choice in chunk.get("choices") or []:
                    text = _choice_text(choice)
                    if text:
                        n_pieces += 1
                        if first_at is None:
                            first_at = time.perf_counter()
                        out = scanner.feed(text)
                        if out:
                            yield Piece(out)
                    finish = choice.get("finish_reason")
                    complete = complete or bool(finish)
                    if finish == "length":
                        reason = "length"
                    elif finish == "stop":
                        reason = "stop" if stop else "eos"
                if scanner.stopped:
                    reason = "loop" if scanner.looped else "stop"
                    break
        except HttpError as error:
            if request.aborted or cancel.cancelled:
                raise Cancelled() from None
            raise self._http.connection_error(error) from None
        finally:
            finished.set()
            self._http.close_request(request)
        if request.aborted:
            raise Cancelled()
        if not complete and not scanner.stopped:  # the server went away mid-reply
            raise self._http.connection_error("the connection closed in the middle of a reply")
        tail = scanner.flush()
        if tail:
            yield Piece(tail)
        ended = time.perf_counter()
        yield Piece("", _stats(usage, timings, n_pieces, started, first_at, ended, reason))


def _choice_text(choice: Any) -> str:
    if not isinstance(choice, dict):
        return ""
    delta = choice.get("delta")
    if isinstance(delta, dict):
        content = delta.get("content")
        return content if isinstance(content, str) else ""
    text = choice.get("text")
    return text if isinstance(text, str) else ""


def _stats(
    usage: dict[str, Any],
    timings: dict[str, Any],
    n_pieces: int,
    started: float,
    first_at: float | None,
    ended: float,
    reason: StopReason,
) -> GenerationStats:
    completion = int(usage.get("completion_tokens") or timings.get("predicted_n") or n_pieces)
    decode_s = ended - first_at if first_at is not None else 0.0
    prefill_rate = float(timings.get("prompt_per_second") or 0.0)
    decode_rate = float(timings.get("predicted_per_second") or 0.0)
    if not decode_rate and completion > 1 and decode_s > 0:
        decode_rate = (completion - 1) / decode_s
    details = usage.get("prompt_tokens_details") or {}
    cached = int(timings.get("cache_n") or (details.get("cached_tokens") if isinstance(details, dict) else 0) or 0)
    return GenerationStats(
        prompt_tokens=int(usage.get("prompt_tokens") or (timings.get("prompt_n") or 0) + cached),
        cached_tokens=cached,
        completion_tokens=completion,
        ttft_s=(first_at or ended) - started,
        prefill_tok_s=prefill_rate,
        decode_tok_s=decode_rate,
        total_s=ended - started,
        stop_reason=reason,
    )

"""HTTP to an OpenAI-compatible server for the remote engine (``inference.engines.remote``): JSON
requests, streamed responses read as server-sent events, and requests that another thread can
abort (cancel closes the connection). Only the standard library is used (``http.client``).

Not httpx or the openai client (which runs on httpx): a Stop must end a request at once, also
while the server is still reading a long prompt and has sent nothing back. httpx exposes the
socket only with the response headers and closes rather than shuts it down, so a request waiting
for them stays blocked until the server answers: measured 9.5 s after `Client.close()` against
a server silent for 10 s, 0.00 s here (``scripts/http_cancel_check.py``).
"""

from __future__ import annotations

import contextlib
import http.client
import ipaddress
import json
import random
import socket
import threading
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from inference.errors import ApiKeyError, EngineError, ServerUnreachable, shorten_message

HttpError = (OSError, http.client.HTTPException)
"""What a request may raise when the connection fails or is aborted."""

AUTH_STATUSES = (401, 403)
"""What a server answers to a missing or wrong API key (vLLM, llama.cpp's and llama-cpp-python's
servers: 401; a proxy in front of one may say 403)."""


class Request:
    """One HTTP exchange whose socket can be shut down from another thread (cancel)."""

    def __init__(self, connection: http.client.HTTPConnection) -> None:
        self.connection = connection
        self.aborted = False
        # Kept here: http.client drops connection.sock once a "Connection: close" response
        # starts, but the response still reads from this socket.
        self.sock: socket.socket | None = None

    def connect(self) -> None:
        if self.connection.sock is None:
            self.connection.connect()
        self.sock = self.connection.sock
        if self.aborted:
            self.abort()

    def abort(self) -> None:
        self.aborted = True
        sock = self.sock
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)


def server_address(url: str) -> str:
    """The server's base address: ``http://host:8080/v1/`` and ``http://host:8080`` are one server
    (the remote engine's ``url``; ``app.services.api_key`` stores a key under it)."""
    parsed = urllib.parse.urlsplit(url.strip())
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise EngineError(f"'{url}' is not a server address. Give one like http://localhost:8080 (http or https).")
    path = parsed.path.rstrip("/")
    if path.endswith("/v1"):
        path = path[:-3]
    return f"{parsed.scheme}://{parsed.netloc}{path}"


def cleartext_warning(url: str) -> str | None:
    """A warning to show before anything is sent to ``url`` over plain http to another computer (the
    API key and the documents' text would cross the network unencrypted); None for https, a server
    on this computer, or a URL that is not a server address."""
    parsed = urllib.parse.urlsplit(url.strip())
    host = (parsed.hostname or "").lower()
    if parsed.scheme != "http" or not host or host == "localhost" or host.endswith(".localhost"):
        return None
    with contextlib.suppress(ValueError):
        if ipaddress.ip_address(host).is_loopback:
            return None
    return (
        f"{url.strip()} is plain http to another computer ({host}): the API key and your documents' text are "
        "sent unencrypted, readable by anyone on the network between. Use https:// for a server elsewhere."
    )


class HttpClient:
    """Requests to one server (``url``: its base address, with or without ``/v1``)."""

    def __init__(self, url: str, *, api_key: str | None, timeout_s: float) -> None:
        self.url = server_address(url)
        parsed = urllib.parse.urlsplit(self.url)
        self._scheme = parsed.scheme
        self._netloc = parsed.netloc
        self._base_path = parsed.path
        self._api_key = api_key
        self.timeout_s = timeout_s
        self._active: set[Request] = set()
        self._active_lock = threading.Lock()

    def abort_all(self) -> None:
        """Abort every request in progress (from any thread)."""
        with self._active_lock:
            active = list(self._active)
        for request in active:
            request.abort()

    def open_request(self) -> Request:
        connection_class = http.client.HTTPSConnection if self._scheme == "https" else http.client.HTTPConnection
        request = Request(connection_class(self._netloc, timeout=self.timeout_s))
        with self._active_lock:
            self._active.add(request)
        return request

    def close_request(self, request: Request) -> None:
        with self._active_lock:
            self._active.discard(request)
        request.connection.close()

    def send(self, request: Request, method: str, path: str, body: dict[str, Any] | None) -> http.client.HTTPResponse:
        headers = {"Accept": "application/json, text/event-stream"}
        data = None
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            headers["Content-Type"] = "application/json"
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        request.connect()
        request.connection.request(method, self._base_path + path, body=data, headers=headers)
        return request.connection.getresponse()

    def json(
        self,
        method: str,
        path: str,
        body: dict[str, Any] | None,
        *,
        timeout_s: float,
        quiet_status: bool = False,
    ) -> Any:
        """The JSON answer to one request; ``quiet_status``: a status other than 200 raises
        ``HttpStatus`` instead of the error for the user."""
        request = self.open_request()
        request.connection.timeout = timeout_s
        try:
            response = self.send(request, method, path, body)
            raw = response.read(16 * 1024 * 1024)
        except HttpError as error:
            raise self.connection_error(error) from None
        finally:
            self.close_request(request)
        if response.status != 200:
            if quiet_status and response.status not in AUTH_STATUSES:  # a refused key is never quiet
                raise HttpStatus(response.status)
            raise self.status_error(path, response.status, raw)
        try:
            return json.loads(raw)
        except ValueError:
            raise self.garbage(path, repr(shorten_message(raw.decode("utf-8", errors="replace"), 80))) from None

    def connection_error(self, error: BaseException | str) -> ServerUnreachable:
        reason = error if isinstance(error, str) else getattr(error, "strerror", None) or str(error)
        return ServerUnreachable(
            f"Cannot reach the model server at {self.url} ({reason or type(error).__name__}). Check that the "
            "server is running and that the address and port are right.",
            url=self.url,
            detail=reason or type(error).__name__,
        )

    def status_error(self, path: str, status: int, raw: bytes) -> EngineError:
        detail = server_detail(raw)
        if status in AUTH_STATUSES:
            return self.key_refused(status, detail)
        hint = {
            404: "Check the URL: it should be the server's base address (e.g. http://host:8080).",
            503: "The server is busy or still loading its model; try again shortly.",
        }.get(status, "Check the server's log.")
        return EngineError(f"The server at {self.url} answered {status} to {path}: {detail.strip()} {hint}")

    def key_refused(self, status: int, detail: str) -> ApiKeyError:
        """The server wants a key (none was sent) or another one (the one sent is wrong)."""
        where = "Settings ▸ API key, or the PAGEWISE_API_KEY environment variable"
        if self._api_key:
            message = (
                f"The server at {self.url} refused the API key it was sent (HTTP {status}). "
                f"Check the key in {where} (which wins when set)."
            )
        else:
            message = (
                f"The server at {self.url} needs an API key (HTTP {status}) and none was sent. Set the key in {where}."
            )
        return ApiKeyError(message, key_sent=bool(self._api_key), detail=detail.strip())

    def garbage(self, path: str, what: str) -> EngineError:
        return EngineError(
            f"The server at {self.url} did not answer like an OpenAI-compatible server on {path} "
            f"(got {what}). Check the URL: it should point to a llama.cpp, vLLM or Ollama server."
        )


OVERLOADED_STATUSES = (429, 503)
"""What a server answers when it has no free slot (vLLM, a proxy: 429; llama.cpp's server while
it loads, or a gateway: 503): the request is tried again after a while."""


@dataclass(frozen=True, slots=True)
class Backoff:
    """How an overloaded server's refusals are tried again: ``attempts`` tries in all, waiting
    ``first_s`` doubled each time (at most ``most_s``), a random half of it taken off so many
    clients do not come back at once; a ``Retry-After`` of the server's wins (at most ``most_s``)."""

    attempts: int = 8
    first_s: float = 0.5
    most_s: float = 30.0

    def delay(self, attempt: int, retry_after: str | None) -> float:
        if retry_after is not None:
            try:
                return min(self.most_s, max(0.0, float(retry_after)))
            except ValueError:
                pass  # an HTTP date: fall back to our own schedule
        full: float = min(self.most_s, self.first_s * 2.0**attempt)
        return full * (0.5 + random.random() / 2)


class HttpStatus(Exception):
    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


def server_detail(raw: bytes) -> str:
    """The server's own words in an error answer: OpenAI's ``{"error": ...}``, FastAPI's
    ``{"detail": ...}`` (llama-cpp-python's server), else the start of the body."""
    try:
        answer = json.loads(raw)
    except ValueError:
        return shorten_message(raw.decode("utf-8", errors="replace"), 200)
    if isinstance(answer, dict) and (answer.get("error") or answer.get("detail")):
        return error_text(answer.get("error") or answer.get("detail"))
    return shorten_message(raw.decode("utf-8", errors="replace"), 200)


def error_text(error: Any) -> str:
    if isinstance(error, dict):
        return str(error.get("message") or error)
    return str(error)


def sse_events(response: http.client.HTTPResponse) -> Iterator[str]:
    """The data of each server-sent event (multi-line data joined with newlines)."""
    data: list[str] = []
    while True:
        raw = response.readline(1024 * 1024)
        if not raw:
            break
        line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
        if not line:
            if data:
                yield "\n".join(data)
                data = []
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        if field == "data":
            data.append(value[1:] if value.startswith(" ") else value)
    if data:
        yield "\n".join(data)

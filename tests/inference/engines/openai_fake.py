"""A small fake OpenAI-compatible server on 127.0.0.1 (scripted by ``FakeServer``), for the
remote engine's tests and the commands' and window's tests of a remote server."""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class FakeServer:
    """Scripted behaviour of the fake server."""

    words: list[str] = field(default_factory=lambda: ["Hello", " there", ",", " friend", "."])
    word_delay_s: float = 0.0
    first_delay_s: float = 0.0
    llama_cpp: bool = True  # has /tokenize and /props
    garbage: bool = False
    status: int = 200
    requests: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    disconnected: threading.Event = field(default_factory=threading.Event)
    # Concurrency: each completion request waits (up to 5 s) until this many are streaming.
    wait_for_streams: int = 1
    streaming: int = 0
    most_streaming: int = 0
    streams_changed: threading.Condition = field(default_factory=threading.Condition)
    words_sent: int = 0
    # As a server started with --api-key: 401 to any request without "Authorization: Bearer KEY"
    # (llama.cpp's own server lists its models without it: ``public_models``).
    api_key: str | None = None
    public_models: bool = False
    authorizations: list[str | None] = field(default_factory=list)  # each request's header
    # For long jobs (a data room's review): the slots /props reports (llama.cpp's --parallel N),
    # a reply made from the request, 429s, connections dropped, and a log of what ran when.
    total_slots: int | None = None
    reply_for: Callable[[dict[str, Any]], str] | None = None
    overloaded: int = 0  # the next N completion requests are answered 429 ("no free slot")
    retry_after: str | None = "0"
    refused: int = 0  # 429s sent
    drop_after: int | None = None  # completion requests served before every later one is dropped
    served: int = 0
    dropped: int = 0
    log: list[tuple[str, str]] = field(default_factory=list)  # ("start" | "end", the last message's text)


def _handler(server: FakeServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def _json(self, status: int, body: Any) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _refused(self) -> bool:
            """The 401 of a server started with --api-key, to a request without its key."""
            sent = self.headers.get("Authorization")
            server.authorizations.append(sent)
            if server.api_key is None or sent == f"Bearer {server.api_key}":
                return False
            if server.public_models and self.path == "/v1/models":
                return False
            self._json(401, {"error": {"message": "Invalid API key", "type": "authentication_error"}})
            return True

        def do_GET(self) -> None:
            server.requests.append(("GET " + self.path, {}))
            if self._refused():
                return
            if server.garbage:
                data = b"<html>not an API</html>"
                self.send_response(200)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            elif self.path == "/v1/models":
                self._json(200, {"object": "list", "data": [{"id": "fake-7b", "object": "model"}]})
            elif self.path == "/props" and server.llama_cpp:
                props: dict[str, Any] = {"default_generation_settings": {"n_ctx": 8192}}
                if server.total_slots is not None:
                    props["total_slots"] = server.total_slots
                self._json(200, props)
            else:
                self._json(404, {"error": {"message": "not found"}})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            server.requests.append(("POST " + self.path, body))
            if self._refused():
                return
            if self.path == "/tokenize":
                if not server.llama_cpp:
                    self._json(404, {"error": {"message": "not found"}})
                else:
                    self._json(200, {"tokens": list(range(len(body["content"].split())))})
                return
            if server.status != 200:
                self._json(server.status, {"error": {"message": "model is loading"}})
                return
            if self.path not in ("/v1/chat/completions", "/v1/completions"):
                self._json(404, {"error": {"message": "not found"}})
                return
            with server.streams_changed:
                busy = server.overloaded > 0
                server.overloaded -= busy
                server.refused += busy
                drop = server.drop_after is not None and server.served >= server.drop_after
                server.dropped += drop
                server.served += not drop and not busy
            if busy:
                self.send_response(429)
                if server.retry_after is not None:
                    self.send_header("Retry-After", server.retry_after)
                data = b'{"error": {"message": "no free slot", "type": "unavailable_error"}}'
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                return
            if drop:  # the server went away: the connection closes without an answer
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            words = server.words
            text = str(body.get("prompt") or (body.get("messages") or [{}])[-1].get("content", ""))
            if server.reply_for is not None:
                words = re.findall(r"\s*\S+", server.reply_for(body))
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            chat = self.path.endswith("chat/completions")
            with server.streams_changed:
                server.log.append(("start", text))
                server.streaming += 1
                server.most_streaming = max(server.most_streaming, server.streaming)
                server.streams_changed.notify_all()
                server.streams_changed.wait_for(lambda: server.streaming >= server.wait_for_streams, timeout=5.0)
            try:
                time.sleep(server.first_delay_s)
                if server.garbage:
                    self.wfile.write(b"data: {not json\n\n")
                    self.wfile.flush()
                    return
                for index, word in enumerate(words[: body.get("max_tokens", 1000)]):
                    choice: dict[str, Any] = {"index": 0, "finish_reason": None}
                    if chat:
                        choice["delta"] = {"content": word}
                    else:
                        choice["text"] = word
                    self.wfile.write(f"data: {json.dumps({'choices': [choice]})}\n\n".encode())
                    self.wfile.flush()
                    server.words_sent += 1
                    if index + 1 < len(words):
                        time.sleep(server.word_delay_s)
                final = {
                    "choices": [{"index": 0, "finish_reason": "stop", "delta": {}}],
                    "usage": {
                        "prompt_tokens": 12,
                        "completion_tokens": len(words),
                        "total_tokens": 17,
                    },
                    "timings": {"prompt_per_second": 250.0, "predicted_per_second": 42.0, "cache_n": 3},
                }
                self.wfile.write(f"data: {json.dumps(final)}\n\n".encode())
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                server.disconnected.set()
            finally:
                with server.streams_changed:
                    server.log.append(("end", text))
                    server.streaming -= 1
                    server.streams_changed.notify_all()

    return Handler


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass


class Running:
    """The fake server in a thread, which a test can stop (the server is gone: connections are
    refused) and start again on the same port."""

    def __init__(self, state: FakeServer, port: int = 0) -> None:
        self.state = state
        self._httpd = _QuietServer(("127.0.0.1", port), _handler(state))
        self.port = int(self._httpd.server_address[1])
        self.url = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def again(self) -> Running:
        return Running(self.state, self.port)


@contextmanager
def serving(state: FakeServer) -> Iterator[str]:
    """The fake server running (its base address, without /v1) until the block ends."""
    running = Running(state)
    try:
        yield running.url
    finally:
        running.stop()

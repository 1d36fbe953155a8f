"""Why the remote engine keeps its own HTTP client (issue 12 asked for httpx or the openai client
"unless measurement shows a reason not to").

A Stop in the window must end a remote request at once, also while the server is still reading
a long prompt and has sent nothing back. This script starts a server that reads the request and
answers nothing for 10 s, starts a streamed request on a thread, closes it from another thread
after 0.5 s, and prints how long the request took to return after the close:

    python -m lab.bench.http_cancel          # needs httpx importable (pip install httpx)

Measured 2026-12-01 (httpx 0.28.1, this machine): `Client.close()` and closing the transport
both left the request blocked until the server answered (9.5 s after the close; httpx closes the
socket, which does not wake a thread blocked reading it, and it exposes the socket only after the
response headers, as the `network_stream` extension). ``inference.engines.remote_http`` (http.client)
keeps the socket from the moment it connects and shuts it down: 0.00 s. The openai client runs on
httpx's transport.
"""

from __future__ import annotations

import argparse
import socket
import threading
import time
from typing import Any


def silent_server() -> int:
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen()

    def answer_nothing(conn: socket.socket) -> None:
        conn.recv(65536)
        time.sleep(10)
        conn.close()

    def serve() -> None:
        while True:
            conn, _ = srv.accept()
            threading.Thread(target=answer_nothing, args=(conn,), daemon=True).start()

    threading.Thread(target=serve, daemon=True).start()
    return int(srv.getsockname()[1])


def timed(name: str, start: Any, close: Any) -> None:
    out: dict[str, Any] = {}

    def request() -> None:
        try:
            start()
        except Exception as error:  # the aborted request's error is the expected outcome
            out["error"] = type(error).__name__

    thread = threading.Thread(target=request)
    thread.start()
    time.sleep(0.5)
    t0 = time.perf_counter()
    close()
    thread.join(15)
    print(f"{name}: returned {time.perf_counter() - t0:.2f} s after the close ({out.get('error', 'no error')})")


def main() -> None:
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    port = silent_server()
    url = f"http://127.0.0.1:{port}"
    from inference.engines.remote_http import HttpClient

    ours = HttpClient(url, api_key=None, timeout_s=30)
    request = ours.open_request()
    timed(
        "inference.engines.remote_http", lambda: ours.send(request, "POST", "/v1/completions", {"x": 1}), ours.abort_all
    )
    try:
        import httpx
    except ImportError:
        print("httpx is not installed: pip install httpx to compare")
        return
    client = httpx.Client(timeout=30)

    def stream() -> None:
        with client.stream("POST", f"{url}/v1/completions", json={"x": 1}) as response:
            response.read()

    timed(f"httpx {httpx.__version__} Client.close()", stream, client.close)


if __name__ == "__main__":
    main()

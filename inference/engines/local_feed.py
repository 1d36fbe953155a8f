"""``generate_fed`` on the local engine: a prompt feed kept flowing into the worker's batch while it
decodes (issue 57), so a sequence whose reply ended takes the next reading at once, also the next
contract's, instead of idling at the end of each batch while its last replies finish.

The caller's thread runs the session: it takes prompts from the feed (``inference.engines.
prompt_feed``) and keeps up to ``window`` of them in the worker (in its sequences or waiting for
one), reads the replies, holds each to the JSON schema, and hands it to ``on_result``; the
producer's ``refill`` runs here too, and may tokenize (``tokenize``: answered by the worker between
two decode steps, the replies that arrive meanwhile kept for the loop). A sender thread writes the
prompts to the pipe, so this thread always reads (a large prompt must not block it while the worker
waits to hand over a reply). Once the feed is finished it says so (``feed_end``) and the worker
ends the feed (``feed_done``). The worker's busy meter (sequences in use over time) goes to the
feed, whose ``busy_share`` then counts the sequences' time, not the prompts waiting in the worker.

Protocol: ``inference.engines.llama_worker``. Cancel, a crash and an error in ``on_result`` or in
the producer end the worker's feed as they end a ``generate_batch``.
"""

from __future__ import annotations

import itertools
import queue
import threading
from collections import deque
from collections.abc import Callable
from typing import Any

from inference.cancel import NEVER_CANCELLED, CancelToken
from inference.engines.engine import Completion, GenerationStats, JsonSchema
from inference.engines.feed_decode import FeedRequest
from inference.engines.json_replies import hold_completion
from inference.engines.prompt_feed import FedPrompt, FedResultCallback, PromptFeed
from inference.engines.worker_process import WorkerProcess
from inference.errors import EngineError

_POLL_S = 0.05


class LocalFeed:
    """One ``generate_fed`` call in the worker (see the module's note).

    ``receive(cancel)``: the worker's next message (a cancel, a crash: raised); ``raise_for``
    raises the error a terminal message carries; ``drain`` cancels the worker's request and reads
    up to its end; ``freeze`` makes a prompt sendable."""

    def __init__(
        self,
        worker: WorkerProcess,
        *,
        receive: Callable[[CancelToken], Any],
        raise_for: Callable[[Any], None],
        drain: Callable[[], None],
        freeze: Callable[[Any], Any],
        window: int,
    ) -> None:
        self.worker = worker
        self._receive, self._raise_for, self._drain, self._freeze = receive, raise_for, drain, freeze
        self.window = max(1, window)
        self._backlog: deque[Any] = deque()  # replies read while waiting for a tokenize answer
        self._outbox: queue.Queue[tuple[Any, ...] | None] = queue.Queue()
        self._sender: threading.Thread | None = None

    # the sender thread

    def _post(self, message: tuple[Any, ...]) -> None:
        self._outbox.put(message)

    def _send_all(self, conn: Any) -> None:
        while True:
            message = self._outbox.get()
            if message is None:
                return
            try:
                conn.send(message)
            except (OSError, ValueError):  # the worker is gone: the reading side reports the crash
                return

    # the caller's thread

    def tokenize(self, text: str) -> list[int]:
        """The worker's tokens for ``text`` while the feed runs (between two decode steps)."""
        self._post(("tokenize", text))
        while True:
            message = self._receive(NEVER_CANCELLED)
            if message[0] == "tokens":
                return list(message[1])
            self._backlog.append(message)  # a reply or the feed's end, for the loop

    def run(
        self,
        feed: PromptFeed,
        request: FeedRequest,
        *,
        json_schema: JsonSchema | None,
        cancel: CancelToken,
        on_result: FedResultCallback,
    ) -> None:
        worker = self.worker
        worker.send(("feed", request))
        conn = worker.conn
        self._sender = threading.Thread(target=self._send_all, args=(conn,), name="pagewise-feed-send", daemon=True)
        self._sender.start()
        outstanding: dict[int, FedPrompt] = {}
        keys = itertools.count()
        ended = False
        try:
            while True:
                if not ended and not cancel.cancelled:
                    feed.refill()
                    while len(outstanding) < self.window:
                        fed = feed.take(wait_s=0.0)
                        if fed is None:
                            break
                        key = next(keys)
                        outstanding[key] = fed
                        self._post(("feed_prompt", key, self._freeze(fed.prompt)))
                    if feed.finished:
                        self._post(("feed_end",))
                        ended = True
                    elif not outstanding and not feed.ready and not feed.paused:
                        raise RuntimeError("the prompt feed has prompts in flight but none to take")  # a producer's bug
                message = self._next(cancel, block=ended or len(outstanding) >= self.window)
                if message is None:
                    continue
                if self._handle(message, feed, outstanding, request.max_tokens, json_schema, on_result):
                    return
        except BaseException:
            if worker.in_flight and worker.alive:
                self._drain()  # stop the worker's feed; it keeps its model
            raise
        finally:
            self._outbox.put(None)
            if self._sender is not None:
                self._sender.join(timeout=10.0)

    def _next(self, cancel: CancelToken, *, block: bool) -> Any:
        if self._backlog:
            return self._backlog.popleft()
        if block or cancel.cancelled or self.worker.poll(_POLL_S):
            return self._receive(cancel)
        return None

    def _handle(
        self,
        message: Any,
        feed: PromptFeed,
        outstanding: dict[int, FedPrompt],
        max_tokens: int,
        json_schema: JsonSchema | None,
        on_result: FedResultCallback,
    ) -> bool:
        """Hand over a reply (False), or end the feed (True: done; an error: raised)."""
        kind = message[0]
        if kind == "feed_item":
            key, text, stats, meter = message[1:]
            fed = outstanding.pop(int(key))
            completion = hold_completion(Completion(text, GenerationStats(**stats)), json_schema, max_tokens)
            feed.release()
            feed.meter_engine(*meter)
            try:
                on_result(fed.tag, completion)
            finally:
                feed.settle()
            return False
        self.worker.in_flight = False
        if kind == "feed_done":
            feed.meter_engine(*message[1])
            return True
        self._raise_for(message)
        raise EngineError(f"Unexpected reply from the model worker: {kind!r}.")

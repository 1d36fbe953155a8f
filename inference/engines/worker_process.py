"""The model worker process as the local engine sees it: start and stop it, send a request, and
read its replies while watching for a cancel, a crash and a time limit.

The engine (``inference.engines.local``) decides what a forced stop or a crash means for the
model it loaded; this module calls back into it (``on_forced_stop``, ``crash_error``) at those
moments. The protocol spoken over the pipe is ``inference.engines.llama_worker``'s.
"""

from __future__ import annotations

import multiprocessing
import signal
import time
from collections.abc import Callable
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Any

from inference.cancel import NEVER_CANCELLED, Cancelled, CancelToken
from inference.engines.llama_worker import worker_main
from inference.engines.shared_flag import SharedFlag
from inference.errors import EngineError, shorten_message

_POLL_S = 0.05
TERMINAL_REPLIES = frozenset({"done", "cancelled", "error", "batch_done", "feed_done", "loaded", "tokens", "ok"})


def describe_exit(code: int | None) -> str:
    """How the worker ended, in words, from its exit code."""
    if code is None:
        return "it stopped responding"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        if -code == getattr(signal, "SIGKILL", 9):
            return f"it was killed ({name}; often the system running out of memory)"
        if -code == getattr(signal, "SIGSEGV", 11):
            return f"it crashed ({name}, inside llama.cpp)"
        if -code == getattr(signal, "SIGILL", 4):
            return (
                f"it crashed ({name}: llama.cpp used an instruction this CPU lacks; `pagewise doctor` checks the CPU)"
            )
        if -code == getattr(signal, "SIGABRT", 6):
            return f"it aborted ({name}; llama.cpp hit an internal error)"
        return f"it ended on {name}"
    return f"it exited with code {code}"


class WorkerProcess:
    """One worker process at a time (``start`` ends none: ``stop`` first), its pipe and the
    shared cancel event.

    ``on_forced_stop`` is called after the worker was killed because it did not answer a
    cancel or a time limit; ``crash_error(when)`` builds the error raised when it died.
    """

    def __init__(
        self,
        log_path: str,
        *,
        on_forced_stop: Callable[[], None],
        crash_error: Callable[[str], EngineError],
    ) -> None:
        self.log_path = log_path
        self._on_forced_stop = on_forced_stop
        self._crash_error = crash_error
        self._context = multiprocessing.get_context("spawn")
        self.cancel_event = SharedFlag(self._context)  # a killed worker cannot leave it locked
        self.process: BaseProcess | None = None
        self.conn: Connection | None = None
        self.in_flight = False
        """A request was sent whose final reply was not read yet."""
        self.request_serial = 0  # counts requests sent; a stream drains only its own request
        self._cancel_deadline: float | None = None

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.is_alive()

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None and self.alive else None

    def start(self) -> None:
        """Launch a worker; its first reply (``ready`` or an error) is left to read."""
        parent_conn, child_conn = self._context.Pipe(duplex=True)
        self.cancel_event.clear()
        self._cancel_deadline = None
        process = self._context.Process(
            target=worker_main,
            args=(child_conn, self.cancel_event, self.log_path),
            name="pagewise-llama-worker",
            daemon=True,
        )
        process.start()
        child_conn.close()
        self.process, self.conn = process, parent_conn
        self.in_flight = True

    def stop(self) -> None:
        """Ask the worker to exit, kill it if it does not, and forget it."""
        process, conn = self.process, self.conn
        if self.in_flight:
            self.cancel_event.set()  # a generation nobody reads: let the worker see "exit" soon
        self.process = self.conn = None
        self.in_flight = False
        if process is None:
            return
        if conn is not None:
            try:
                if process.is_alive():
                    conn.send(("exit",))
            except (OSError, ValueError):
                pass
        process.join(timeout=10.0)
        if process.is_alive():
            process.kill()
            process.join(timeout=5.0)
        if conn is not None:
            conn.close()
        process.close()

    def kill(self) -> None:
        process = self.process
        if process is not None and process.is_alive():
            process.kill()
            process.join(timeout=5.0)
        self.stop()

    def exit_code(self) -> int | None:
        """The worker's exit code, waiting up to a second for one that is ending."""
        process = self.process
        code = process.exitcode if process is not None else None
        if process is not None and code is None:
            process.join(timeout=1.0)
            code = process.exitcode
        return code

    def send(self, message: tuple[Any, ...]) -> None:
        assert self.conn is not None
        self.cancel_event.clear()
        self._cancel_deadline = None
        try:
            self.conn.send(message)
        except (OSError, ValueError) as error:
            raise self._crash_error("while sending a request") from error
        self.in_flight = True
        self.request_serial += 1

    def receive(
        self, cancel: CancelToken, *, timeout_s: float | None, grace_s: float, kill_on_cancel: bool = False
    ) -> Any:
        """The next message from the worker, watching for cancel, crash and timeout.

        A cancel gives the worker ``grace_s`` (counted once per request, across messages) to
        answer; then, or at once with ``kill_on_cancel``, the worker is killed.
        """
        conn, process = self.conn, self.process
        if conn is None or process is None:
            raise EngineError("The model worker is not running. Load the model again.")
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        while True:
            if cancel.cancelled and not self.cancel_event.is_set():
                self.cancel_event.set()
            now = time.monotonic()
            if self.cancel_event.is_set() and self._cancel_deadline is None:
                self._cancel_deadline = now + (0.0 if kill_on_cancel else grace_s)
            if self._cancel_deadline is not None and now >= self._cancel_deadline:
                self._force_stop()
                raise Cancelled(
                    "Cancelled."
                    if kill_on_cancel
                    else "Cancelled. The model had to be stopped mid-computation: it is reloaded on next "
                    "use and its prompt cache is lost."
                )
            if deadline is not None and now >= deadline:
                self._force_stop()
                raise EngineError(
                    f"The model worker did not answer within {timeout_s:.0f} s and was stopped. "
                    "Try again; if it keeps happening, use a smaller model or context."
                )
            ready = wait([conn, process.sentinel], timeout=_POLL_S)
            if conn in ready:
                try:
                    return conn.recv()
                except (EOFError, OSError) as error:
                    raise self._crash_error("while working") from error
            if process.sentinel in ready:
                raise self._crash_error("while working")

    def poll(self, timeout_s: float) -> bool:
        """Whether a message is there to read, waiting up to ``timeout_s``; a dead worker raises
        its crash error."""
        conn, process = self.conn, self.process
        if conn is None or process is None:
            raise EngineError("The model worker is not running. Load the model again.")
        ready = wait([conn, process.sentinel], timeout=timeout_s)
        if conn in ready:
            return True
        if process.sentinel in ready:
            raise self._crash_error("while working")
        return False

    def drain(self, grace_s: float) -> None:
        """Finish an abandoned request: cancel it and read up to its final message."""
        self.cancel_event.set()
        try:
            while True:
                message = self.receive(NEVER_CANCELLED, timeout_s=None, grace_s=grace_s)
                if message[0] in TERMINAL_REPLIES:
                    break
        except Cancelled:
            pass  # the worker was stopped; it reloads on next use
        finally:
            self.in_flight = False

    def log_tail(self) -> str:
        """The worker log's last line that looks like an error (or its last line)."""
        try:
            with open(self.log_path, encoding="utf-8", errors="replace") as log:
                lines = [line.strip() for line in log.readlines()[-20:] if line.strip()]
        except OSError:
            return ""
        words = ("error", "fail", "abort", "assert")
        interesting = [line for line in lines if any(word in line.lower() for word in words)]
        return shorten_message((interesting or lines or [""])[-1], 300)

    def _force_stop(self) -> None:
        self.kill()
        self._on_forced_stop()

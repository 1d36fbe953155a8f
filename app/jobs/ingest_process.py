"""PDF ingest in a separate process (pypdf is pure Python and holds the GIL).

An ``IngestProcess`` is a spawned worker that adds batches of files, one batch at a time: it
stays alive between batches (for ``IDLE_EXIT_S``), so the embedding model it loaded for one add
is still loaded for the next (walk 2026-12-05: every add spent 15-30 s loading it again). For
each batch (``IngestBatch``) it reports through a queue:

* ``("progress", path, stage, done, total, message, rate)``, ``stage`` a ``Stage``'s value
* ``("done", path, result_json)`` for each file that was added (or was already there)
* ``("error", path, kind, message)``: ``kind`` is "password" for an encrypted PDF without the
  right password, "document" for a file Pagewise cannot read (its typed errors). The batch
  goes on with the next file: one broken PDF does not stop the others.
* ``("bug", path, summary, traceback)``: an unexpected exception (a bug in Pagewise, not a
  problem with the file): the window sends it to the crash report, and a test fails.
* for a folder batch (``FolderBatch``: a folder, a zip, a data room, kept in the library so
  that it survives a restart): ``("batch", batch_id, paths)`` once its files are found (the
  pending ones), ``("batch_progress", done, total, path, pages_per_s, pages, eta_s)`` as each
  file starts, and ``("batch_summary", summary_json)`` at its end (also after a full disk,
  whose ``("error", path, "disk", message)`` comes first); its files' "done"/"error" as above
* ``("cancelled", path)`` when the batch was cancelled; ``("finished",)`` when the batch is
  over (after its last file, or after "cancelled"): the worker waits for the next batch.

Cancel is cooperative (an event the child checks between pages and batches); the caller may
kill the process as a last resort: the library's ingest is transactional and resumable.
The child uses the "spawn" start method, which also works in a frozen app as long as the
entry point calls ``multiprocessing.freeze_support()``. No Qt here.
"""

from __future__ import annotations

import multiprocessing
import queue as queue_module
import threading
import time
import traceback
from dataclasses import dataclass
from multiprocessing.process import BaseProcess
from multiprocessing.queues import Queue
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inference.engines.shared_flag import SharedFlag

if TYPE_CHECKING:
    from inference.cancel import CancelToken

PROGRESS_INTERVAL_S = 0.1  # the child sends at most ~10 progress messages a second
CANCEL_POLL_S = 0.05  # how often the child looks at the cancel flag
IDLE_EXIT_S = 600.0  # an idle worker ends after this long, giving back its memory (the embedding model)


@dataclass(frozen=True, slots=True)
class IngestRequest:
    path: str
    password: str | None = None


def expand_paths(paths: list[Path]) -> list[Path]:
    """PDF and Word files, with folders searched recursively (like ``pagewise ingest``); Word's lock
    files (``~$name.docx``) in a folder are skipped."""
    from summarizer.library.reading.file_type import is_document_name

    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files.extend(sorted(p for p in path.rglob("*") if is_document_name(p.name) and p.is_file()))
        else:
            files.append(path)
    return files


@dataclass(frozen=True, slots=True)
class FolderBatch:
    """Folders and zips to add as one batch (``roots``), or the stored batch to continue."""

    roots: list[str]
    resume_id: int | None = None


@dataclass(frozen=True, slots=True)
class IngestBatch:
    requests: list[IngestRequest]
    embed: bool = True
    embedding_model: str | None = None
    folder: FolderBatch | None = None


def _child(
    inbox: Queue[IngestBatch | None],
    queue: Queue[tuple[Any, ...]],
    cancel_flag: SharedFlag,
    home: str | None,
    idle_exit_s: float = IDLE_EXIT_S,
) -> None:
    """The worker: batches from ``inbox`` until ``None`` or ``idle_exit_s`` without one."""
    import os

    from app.services.output import use_utf8_streams

    use_utf8_streams()  # what a library prints must not stop an ingest (a source install's child)
    if home:
        os.environ["PAGEWISE_HOME"] = home
    while True:
        try:
            batch = inbox.get(timeout=idle_exit_s)
        except queue_module.Empty:
            return
        if batch is None:
            return
        _run_batch(batch, queue, cancel_flag)


def _run_batch(batch: IngestBatch, queue: Queue[tuple[Any, ...]], cancel_flag: SharedFlag) -> None:
    from inference.cancel import CancelToken

    token = CancelToken()
    over = threading.Event()

    def watch() -> None:  # polls: a thread waiting when the process ends would leave a wait behind
        while not cancel_flag.is_set() and not over.is_set():
            time.sleep(CANCEL_POLL_S)
        if not over.is_set():
            token.cancel()

    threading.Thread(target=watch, daemon=True).start()
    try:
        if batch.folder is not None:
            _add_folder(batch.folder, queue, token, batch.embed, batch.embedding_model)
        else:
            _add_files(batch.requests, queue, token, batch.embed, batch.embedding_model)
    finally:
        over.set()
        queue.put(("finished",))


def _add_files(
    requests: list[IngestRequest],
    queue: Queue[tuple[Any, ...]],
    token: CancelToken,
    embed: bool,
    embedding_model: str | None,
) -> None:
    from inference.cancel import Cancelled
    from inference.errors import PagewiseError
    from inference.progress import Progress
    from summarizer.errors import PasswordRequired
    from summarizer.library.ingest import IngestOptions, ingest_path
    from summarizer.library.storage.store import Library

    with Library.open() as library:
        for request in requests:
            last = 0.0

            def progress(p: Progress, path: str = request.path) -> None:
                nonlocal last
                now = time.monotonic()
                if now - last >= PROGRESS_INTERVAL_S or (p.total is not None and p.done >= p.total):
                    last = now
                    queue.put(("progress", path, p.stage.value, p.done, p.total, p.message, p.rate))

            options = IngestOptions(password=request.password, embed=embed, embedding_model=embedding_model)
            try:
                result = ingest_path(library, Path(request.path), options, progress, token)
            except Cancelled:
                queue.put(("cancelled", request.path))
                return
            except PasswordRequired as error:
                queue.put(("error", request.path, "password", str(error)))
                continue
            except PagewiseError as error:
                queue.put(("error", request.path, "document", str(error)))
                continue
            except Exception as error:  # a bug: to the crash report (and a failed test), not a message
                detail = "".join(traceback.format_exception(type(error), error, error.__traceback__))
                queue.put(("bug", request.path, f"{type(error).__name__}: {error}", detail))
                continue
            data = result.to_json()
            data["path"] = result.path or request.path
            queue.put(("done", request.path, data))


def _add_folder(
    folder: FolderBatch,
    queue: Queue[tuple[Any, ...]],
    token: CancelToken,
    embed: bool,
    embedding_model: str | None,
) -> None:
    from inference.cancel import Cancelled
    from inference.progress import Progress
    from summarizer.errors import DiskFull
    from summarizer.library.batches.batch_store import PENDING, BatchFile, batch_files, batch_summary
    from summarizer.library.batches.run_batch import BatchProgress, run_batch, start_batch
    from summarizer.library.ingest import IngestOptions, IngestResult
    from summarizer.library.storage.store import Library

    current = ""
    last = 0.0

    def batch_progress(p: Progress) -> None:
        nonlocal current
        assert isinstance(p, BatchProgress)
        current = p.path
        queue.put(("batch_progress", p.done, p.total, p.path, p.rate, p.pages, p.eta_s))

    def file_progress(p: Progress) -> None:
        nonlocal last
        now = time.monotonic()
        if now - last >= PROGRESS_INTERVAL_S or (p.total is not None and p.done >= p.total):
            last = now
            queue.put(("progress", current, p.stage.value, p.done, p.total, p.message, p.rate))

    def on_file(file: BatchFile, outcome: str, reason: str, result: IngestResult | None) -> None:
        if result is None:
            queue.put(("error", file.path, "document", reason))
            return
        data = result.to_json()
        data.update(path=result.path or file.path, folder=file.folder, outcome=outcome)
        queue.put(("done", file.path, data))

    with Library.open() as library:
        if folder.resume_id is not None:
            batch_id = folder.resume_id
        else:
            batch_id = start_batch(library, [Path(r) for r in folder.roots])
        files = batch_files(library, batch_id)
        queue.put(("batch", batch_id, [f.path for f in files if f.outcome == PENDING]))
        options = IngestOptions(embed=embed, embedding_model=embedding_model)
        try:
            summary = run_batch(library, batch_id, options, batch_progress, file_progress, on_file, token)
        except Cancelled:
            queue.put(("cancelled", current))
            return
        except DiskFull as error:
            queue.put(("error", current, "disk", str(error)))
            summary = batch_summary(library, batch_id)
        except Exception as error:  # a bug: to the crash report; the batch stays, to continue later
            detail = "".join(traceback.format_exception(type(error), error, error.__traceback__))
            queue.put(("bug", current, f"{type(error).__name__}: {error}", detail))
            summary = batch_summary(library, batch_id)
        queue.put(("batch_summary", summary.to_json()))


class IngestProcess:
    """One spawned ingest worker, its inbox and its queue. ``poll()`` never blocks."""

    def __init__(self, *, home: str | None) -> None:
        context = multiprocessing.get_context("spawn")
        self.home = home
        self.inbox: Queue[IngestBatch | None] = context.Queue()
        self.queue: Queue[tuple[Any, ...]] = context.Queue()
        self.cancel_flag = SharedFlag(context)
        self.process: BaseProcess = context.Process(
            target=_child,
            args=(self.inbox, self.queue, self.cancel_flag, home),
            name="pagewise-ingest",
            daemon=True,
        )
        self.cancel_requested_at: float | None = None
        self.started = False

    def start(self) -> None:
        self.process.start()
        self.started = True

    def submit(self, batch: IngestBatch) -> None:
        """Add ``batch`` (the worker is started and its last batch is over)."""
        self.cancel_flag.clear()
        self.cancel_requested_at = None
        self.inbox.put(batch)

    @property
    def pid(self) -> int | None:
        return self.process.pid

    def close(self) -> None:
        """End an idle worker (one that is working is killed)."""
        if self.started and self.process.is_alive():
            self.inbox.put(None)
            self.process.join(timeout=2)
        self.kill()

    def poll(self, limit: int = 200) -> list[tuple[Any, ...]]:
        messages: list[tuple[Any, ...]] = []
        while len(messages) < limit:
            try:
                messages.append(self.queue.get_nowait())
            except Exception:  # queue.Empty (and a torn-down queue)
                break
        return messages

    def cancel(self) -> None:
        if self.cancel_requested_at is None:
            self.cancel_requested_at = time.monotonic()
        self.cancel_flag.set()

    @property
    def alive(self) -> bool:
        return self.process.is_alive()

    @property
    def exitcode(self) -> int | None:
        return self.process.exitcode

    def kill(self) -> None:
        if not self.started:
            return
        if self.process.is_alive():
            self.process.kill()
        self.process.join(timeout=5)

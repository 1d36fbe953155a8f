"""Adding a batch of files (a folder, a data room) with one progress over the whole set.

``start_batch`` finds the documents (``folder_walk``) and stores the batch; ``run_batch`` adds its
pending files one by one (``summarizer.library.ingest``), recording each outcome as it goes, and
reports a ``BatchProgress``: files done of the batch's, pages per second, time left (from the bytes
still to read at the rate of those read this run). One file that fails (whatever the exception) is recorded with its
reason and the batch goes on; a full disk stops it (the files added so far stay added, and the
``DiskFull`` message says what to free); a cancel stops it with the rest pending, to continue later.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from inference.cancel import NEVER_CANCELLED, Cancelled, CancelToken
from inference.errors import PagewiseError, shorten_message
from inference.progress import Progress, ProgressCallback, Stage, no_progress
from summarizer.errors import DiskFull
from summarizer.library.batches.batch_store import (
    ADDED,
    DUPLICATE,
    FAILED,
    PENDING,
    SKIPPED,
    BatchFile,
    BatchSummary,
    batch_files,
    batch_summary,
    create_batch,
    finish_batch,
    record_outcome,
    unfinished_batch,
)
from summarizer.library.batches.folder_walk import find_documents
from summarizer.library.ingest import IngestOptions, IngestResult, ingest_path
from summarizer.library.storage.disk_space import batch_space_error
from summarizer.library.storage.paths import data_home
from summarizer.library.storage.store import Library
from summarizer.library.storage.unpacked_copies import UNPACKED_FOLDER

FileOutcome = Callable[[BatchFile, str, str, IngestResult | None], None]
"""(the file, its outcome, the reason (why it failed, what it duplicates), the ingest's result
when it was added or a duplicate)."""


@dataclass(frozen=True, slots=True)
class BatchProgress(Progress):
    """Files done of the batch's (``done``/``total``), the file being added (``message``), and
    over the whole set: pages read, pages per second (``rate``) and seconds left."""

    pages: int = 0
    eta_s: float | None = None
    path: str = ""  # the file being added ("" once the batch is over)

    def eta_seconds(self) -> float | None:
        return self.eta_s


def unpack_folder() -> Path:
    """Where archives are unpacked: the data folder's ``unpacked/``."""
    return data_home() / UNPACKED_FOLDER


def start_batch(library: Library, paths: list[Path], unpack_root: Path | None = None) -> int:
    """The batch adding ``paths``: the unfinished batch of the very same paths when there is one
    (running the same command again continues it), else a new one."""
    roots = [Path(p).expanduser().resolve() for p in paths]
    existing = unfinished_batch(library, roots)
    if existing is not None:
        return existing
    found = find_documents(roots, unpack_root or unpack_folder())
    return create_batch(library, roots, found)


def run_batch(
    library: Library,
    batch_id: int,
    options: IngestOptions | None = None,
    progress: ProgressCallback = no_progress,
    file_progress: ProgressCallback = no_progress,
    on_file: FileOutcome | None = None,
    cancel: CancelToken = NEVER_CANCELLED,
) -> BatchSummary:
    """Add the batch's pending files; the summary of the whole batch at the end. The vector
    index's file is written once, when the batch ends or stops, not after every document."""
    options = replace(options or IngestOptions(), save_index=False)
    try:
        return _run(library, batch_id, options, progress, file_progress, on_file, cancel)
    finally:
        if options.embed and library.embedding_model is not None:
            from summarizer.library.vectors.vector_index import refresh_index

            refresh_index(library)  # a failure to write it costs a rebuild at the next search, nothing more


def _run(
    library: Library,
    batch_id: int,
    options: IngestOptions,
    progress: ProgressCallback,
    file_progress: ProgressCallback,
    on_file: FileOutcome | None,
    cancel: CancelToken,
) -> BatchSummary:
    files = [f for f in batch_files(library, batch_id) if f.outcome != SKIPPED]
    total = len(files)
    done = sum(1 for f in files if f.outcome != PENDING)
    pages = sum(f.pages for f in files)
    bytes_left = sum(f.size for f in files if f.outcome == PENDING)
    started = time.monotonic()
    pages_this_run = 0
    bytes_this_run = 0

    def report(path: str) -> None:
        elapsed = time.monotonic() - started
        rate = pages_this_run / elapsed if elapsed > 0 and pages_this_run else None
        eta = bytes_left / (bytes_this_run / elapsed) if bytes_this_run and elapsed > 0 else None
        name = Path(path).name if path else ""
        progress(BatchProgress(Stage.ADD_FILES, done, total, name, rate, pages, eta, path))

    for file in files:
        if file.outcome != PENDING:
            continue
        cancel.raise_if_cancelled()
        report(file.path)
        try:
            outcome, reason, result = _add(library, file, options, file_progress, cancel)
        except DiskFull as error:  # the batch stops here, this file still pending: nothing added so far is lost
            summary = batch_summary(library, batch_id)
            ready = library.db.execute("SELECT COUNT(*) FROM documents WHERE state = 'ready'").fetchone()[0]
            raise batch_space_error(library.path.parent, int(ready), summary.added, summary.pending) from error
        record_outcome(library, file, outcome, reason, result.doc_id if result else None, _pages(result, outcome))
        done += 1
        bytes_left -= file.size
        bytes_this_run += file.size
        if outcome == ADDED:
            pages += _pages(result, outcome)
            pages_this_run += _pages(result, outcome)
        if on_file is not None:
            on_file(file, outcome, reason, result)
    report("")
    finish_batch(library, batch_id)
    return batch_summary(library, batch_id)


_BUG = (
    "the file may be damaged or made to break readers; open it in its program and save it again, or export it "
    "as PDF. If it is a genuine document, please report this as a bug."
)


def _pages(result: IngestResult | None, outcome: str) -> int:
    return result.pages if result is not None and outcome == ADDED else 0


def _add(
    library: Library,
    file: BatchFile,
    options: IngestOptions | None,
    progress: ProgressCallback,
    cancel: CancelToken,
) -> tuple[str, str, IngestResult | None]:
    try:
        result = ingest_path(library, Path(file.path), options, progress, cancel)
    except DiskFull:
        raise  # run_batch says it for the batch
    except PagewiseError as error:
        return FAILED, str(error), None
    except Cancelled:
        raise
    except Exception as error:  # one file never stops the batch, nor each --resume after it
        return (
            FAILED,
            f"Pagewise failed on it ({type(error).__name__}: {shorten_message(str(error), 200)}): {_BUG}",
            None,
        )
    if result.status == "unchanged":
        return DUPLICATE, f"already in the library as {result.title or Path(result.path).name}", result
    return ADDED, "", result

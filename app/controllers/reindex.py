"""Re-indexing the library from the window: passages cut by an older Pagewise are cut again,
and the library is re-embedded when the settings name another embedding model than its own.

A banner says when the library needs it, with a "Reindex" button; the Library menu offers it
too. The job (``summarizer.library.reindex.reindex_library``, the one behind ``pagewise reindex``) runs
on the job runner's LLM lane, with its own progress line and Stop. Both of its steps are
resumable: a stopped re-embed keeps what it staged, the banner says how far it got, and the next
run continues from there.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from app.controllers.context import JobContext, UsesJobContext
from app.jobs.runner import Job
from app.widgets.job_progress import JobProgress, plural
from summarizer.library.reindex import LibraryReindex
from summarizer.library.storage.store import Library

KEY = "reindex"  # the banner's key: the next check replaces it, a finished job resolves it


def _short(model: str | None) -> str:
    """``all-MiniLM-L6-v2`` for ``sentence-transformers/all-MiniLM-L6-v2`` or a folder path."""
    return Path(model).name if model else "no model"


def reindex_notice(library: Library, model: str | None, *, adding: bool = False) -> str | None:
    """What the banner says when ``library`` needs re-indexing for the embedding model
    ``model`` (None: the configured one), or None when it is up to date. ``adding``: documents
    are being added, so an interrupted document may be one the ingest is cutting right now."""
    from summarizer.library.storage.store import PASSAGE_FORMAT
    from summarizer.library.vectors.clause_embedder import BASE_MODEL, is_clause_embedder
    from summarizer.library.vectors.reembed import configured_model, needs_reembed, reembed_status

    parts: list[str] = []
    target, current = configured_model(model), library.embedding_model
    status = reembed_status(library)
    if status is not None and status.target == target:
        parts.append(
            f"Re-embedding the library with {_short(target)} is unfinished ({status.documents_done} of "
            f"{status.documents} documents); search uses {_short(current)} until it is done."
        )
    elif needs_reembed(library, model) and is_clause_embedder(target) and current == BASE_MODEL:
        parts.append(  # the upgrade to Pagewise's own embedder, not a setting the user changed
            f"Pagewise now embeds passages with its clause embedder, trained on contracts to find clauses; "
            f"this library is embedded with {_short(current)}, which search uses until it is re-embedded."
        )
    elif needs_reembed(library, model):
        parts.append(
            f"The library is embedded with {_short(current)}, but the settings name {_short(target)}; "
            f"search uses {_short(current)} until the library is re-embedded."
        )
    records = [r for r in library.documents() if r.state != "extracting" and r.needs_reindex]
    old = sum(1 for r in records if r.passage_format < PASSAGE_FORMAT)
    if old:
        parts.append(
            f"{plural(old, 'document')} {'was' if old == 1 else 'were'} cut into passages by an older "
            "Pagewise: re-index to search them better."
        )
    from summarizer.library.reindex import documents_needing_ocr

    scanned = len(documents_needing_ocr(library))
    if scanned:
        parts.append(
            f"{plural(scanned, 'document')} {'has' if scanned == 1 else 'have'} scanned pages that were never read: "
            "re-index to read them by OCR."
        )
    half = 0 if adding else len(records) - old
    if half:
        one = half == 1  # said as the library row says it ("interrupted · add it again to finish")
        parts.append(
            f"{plural(half, 'document')} {'was' if one else 'were'} interrupted while being added: Reindex "
            f"finishes {'it' if one else 'them'}, as adding {'it' if one else 'them'} again does."
        )
    return " ".join(parts) or None


class ReindexController(UsesJobContext, QObject):
    """``library_changed`` after a run (passage counts and vectors changed), stopped or not."""

    library_changed = Signal()

    def __init__(
        self,
        context: JobContext,
        progress: JobProgress,
        embedding_model: Callable[[], str | None],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.context = context
        self.embedding_model = embedding_model  # the model the window's ingests embed with
        self.progress = progress
        progress.cancel_requested.connect(self.cancel)
        self.job: Job | None = None

    def check(self) -> str | None:
        """Show the banner if the library needs re-indexing, take it away if not; its text."""
        if self.job is not None:
            return None
        notice = reindex_notice(self.library, self.embedding_model(), adding=bool(self.runner.ingests))
        if notice is None:
            self.messages.resolve(KEY)
        else:
            self.messages.warning(notice, key=KEY, action="Reindex", on_action=self.reindex)
        return notice

    def clear_if_done(self) -> None:
        """Documents were added: the banner goes if nothing needs re-indexing now (adding a half-cut
        document again finishes it); one still needed stays as it is (closed stays closed)."""
        if self.job is None and reindex_notice(self.library, self.embedding_model()) is None:
            self.messages.resolve(KEY)

    def reindex(self) -> Job | None:
        """Re-cut what needs it, then re-embed if the model differs (a no-op when up to date).
        None while documents are being added: the ingest process may be cutting one of them."""
        if self.job is not None:
            return self.job
        if self.runner.ingests:
            self.messages.info("Re-indexing can start once the documents being added are in the library.")
            return None
        model, embed = self.embedding_model(), self.runner.embed
        self.messages.resolve(KEY)
        self.progress.start("Re-indexing the library…")

        def run(job: Job) -> LibraryReindex:
            from summarizer.library.ingest import IngestOptions
            from summarizer.library.reindex import reindex_library

            options = IngestOptions(embed=embed, embedding_model=model)
            return reindex_library(
                self.worker_library(), options=options, progress=job.report, cancel=job.token, ocr=True
            )

        job = self.runner.submit_llm("reindex", run)
        self.job = job
        job.progressed.connect(self.progress.update_progress)
        job.succeeded.connect(self._done)
        job.failed.connect(lambda error: self.messages.report(error, "re-indexing the library", key=KEY))
        job.finished.connect(self._finished)
        return job

    def cancel(self) -> None:
        if self.job is not None:
            self.progress.mark_stopping()
            self.job.cancel()

    def _done(self, result: LibraryReindex) -> None:
        recut = sum(1 for r in result.documents if r.status == "reindexed")
        read = sum(1 for r in result.documents if r.status == "ocr")
        done = [f"cut the passages of {plural(recut, 'document')} again"] if recut else []
        if read:
            done.append(f"read the scanned pages of {plural(read, 'document')}")
        for missing in (r for r in result.documents if r.status == "file_missing"):
            self.messages.warning(missing.note)
        if result.reembedded is not None:
            done.append(f"re-embedded with {_short(result.reembedded.model)}")
        self.messages.info(f"Library re-indexed: {', '.join(done)}." if done else "The library is up to date.")

    def _finished(self) -> None:
        self.job = None
        self.progress.stop()
        self.library_changed.emit()
        self.check()  # stopped: the banner says how far it got

"""One controller per job of the window (Dangerzone's ``ConvertTask``, Anki's operations).

A controller owns one job's start, progress, cancel, result and error handling. It runs the
work through the one ``app.jobs.runner.JobRunner``, shows it through the views it is given (their
public methods, or narrow callbacks), and tells the window what happened through its signals;
``MainWindow`` only builds the views and the controllers and connects them. A new job (the
review tab, OCR) is one new controller here and one new view. What several controllers share (the
runner, the model session, the library, the message center, the status bar) comes in one
``context.JobContext``, built once by the window.

- ``ingest``: adding PDFs in the ingest process, with the password asked again when needed
- ``open_document``: showing a document in the viewer, with its session-only password
- ``documents``: which document is selected, and removing one
- ``answer``: asking, with the answer streamed into the conversation; search warm-up
- ``summary``: summarizing the selected document
- ``citations``: a clicked citation jumps to its page and highlights the passage
- ``model_setup``: the status line, settings, choosing or downloading a model, restarts
- ``export``: Markdown copies of answers, conversations and summaries
- ``reindex``: re-cutting and re-embedding the library, offered by a banner when it needs it
- ``review``: the Review tab: a checklist over the checked contracts, the grid, corrections, exports
"""

from __future__ import annotations

import threading

from summarizer.library.storage.store import Library


class WorkerLibrary:
    """The LLM thread's own connection to the library (SQLite connections are per thread)."""

    def __init__(self) -> None:
        self._state = threading.local()
        self._opened: list[Library] = []
        self._lock = threading.Lock()

    def __call__(self) -> Library:
        library: Library | None = getattr(self._state, "library", None)
        if library is None:
            library = Library.open()
            self._state.library = library
            with self._lock:
                self._opened.append(library)
        return library

    def close(self) -> None:
        """Close every thread's connection (the window's last step): Windows cannot delete or
        replace the library's files while one is open (issue 54, the self-test's folder)."""
        with self._lock:
            opened, self._opened = self._opened, []
        for library in opened:
            library.close()
        self._state = threading.local()

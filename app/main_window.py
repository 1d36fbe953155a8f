"""The main window: library | PDF viewer | conversation and summary, with a status bar.

The window owns the pieces and wires them: it never parses a PDF or calls the model itself.
PDF ingest goes to ``JobRunner.ingest`` (a process), every model call to
``JobRunner.submit_llm`` (the one LLM thread), and every error to ``MessageCenter``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QByteArray, QSettings, Qt, QTimer
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDropEvent, QGuiApplication, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QFileDialog,
    QInputDialog,
    QLineEdit,
    QMainWindow,
    QMessageBox,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app import answering, version
from app.answering import AnswerView, CitationView, SummaryView
from app.ingest_process import IngestRequest, expand_paths
from app.job_progress import JobProgress, describe, format_eta
from app.jobs import IngestJob, Job, JobRunner
from app.library_panel import LibraryPanel, local_pdf_paths
from app.messages import MessageBar, MessageCenter
from app.model_session import ModelSession, NoModelConfigured
from app.pdf_viewer import PdfViewer
from app.settings import Settings
from app.settings_dialog import SettingsDialog
from app.status_bar import StatusBar
from app.summary_view import SummaryPanel
from app.welcome import WelcomePanel, recommended_model
from inference.errors import EngineError, PagewiseError
from inference.progress import Progress
from summarizer.library import DocumentRecord, Library
from summarizer.paths import data_home

STAGE_WORDS = {"Reading pages": "indexing", "Embedding passages": "embedding"}


class MainWindow(QMainWindow):
    def __init__(
        self,
        *,
        settings: Settings | None = None,
        session: ModelSession | None = None,
        telemetry: Any | None = None,
        messages: MessageCenter | None = None,
    ) -> None:
        super().__init__()
        self.setWindowTitle("Pagewise")
        self.setAcceptDrops(True)
        self.settings = settings or Settings.load()
        self.session = session or ModelSession(self.settings.effective_values())
        self.messages = messages or MessageCenter(self)
        if problem := self.settings.problem:  # once the banners are wired
            QTimer.singleShot(0, lambda: self.messages.warning(problem))
        self.runner = JobRunner(self)
        self.runner.embedding_model = self.settings["embedding_model"]
        self.library = Library.open()
        self._worker_state = threading.local()
        self._passwords: dict[str, str] = {}  # for this session only: never written to disk
        self._restoring = False
        self.doc_id: str | None = None
        self.answer_job: Job | None = None
        self.summary_job: Job | None = None
        self._answer_doc: str | None = None
        self._first_piece_at: float | None = None
        self._pieces = 0
        self._select_after_ingest: set[str] = set()
        self.ask_password: Callable[[str, bool], str | None] = self._ask_password_dialog
        self.confirm_remove: Callable[[str], bool] = self._confirm_remove_dialog
        self.window_state = QSettings(str(data_home() / "window.ini"), QSettings.Format.IniFormat)

        # Widgets
        self.library_panel = LibraryPanel()
        self.viewer = PdfViewer()
        self.conversation = answering_view = self._make_conversation()
        self.summary = SummaryPanel()
        self.tabs = QTabWidget()
        self.tabs.addTab(answering_view, "Conversation")
        self.tabs.addTab(self.summary, "Summary")
        self._gpu_sample = None
        vram = None
        if telemetry is not None and getattr(telemetry, "available", False):
            vram = telemetry.sample()
            self._gpu_sample = telemetry.latest
        gpu_text = (
            f"This computer has {vram.total_bytes / 1024**3:.0f} GiB of GPU memory."
            if vram is not None
            else "No NVIDIA GPU was found: models run on the CPU (slower)."
        )
        self.recommended_label, self.recommended_entry = recommended_model(vram.total_bytes if vram else None)
        self.welcome = WelcomePanel(self.recommended_label, gpu_text)
        self.welcome.choose_file.connect(self.choose_model_file)
        self.welcome.download.connect(self.download_recommended)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(self.welcome)
        right_layout.addWidget(self.tabs, 1)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setObjectName("main-splitter")
        self.splitter.addWidget(self.library_panel)
        self.splitter.addWidget(self.viewer)
        self.splitter.addWidget(right)
        self.splitter.setStretchFactor(0, 0)
        self.splitter.setStretchFactor(1, 3)
        self.splitter.setStretchFactor(2, 2)
        self.splitter.setSizes([240, 640, 460])
        self.message_bar = MessageBar(self.messages)
        self.ingest_progress = JobProgress("Stop adding documents")
        self.ingest_progress.cancel_requested.connect(self.cancel_ingest)
        self.activity = JobProgress("Stop")
        self.activity.cancel_requested.connect(self._cancel_activity)
        central = QWidget()
        layout = QVBoxLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.message_bar)
        layout.addWidget(self.ingest_progress)
        layout.addWidget(self.activity)
        layout.addWidget(self.splitter, 1)
        self.setCentralWidget(central)
        self.status = StatusBar(telemetry.latest if telemetry is not None and telemetry.available else None,
                                getattr(telemetry, "reason", "") or "no NVIDIA GPU")  # fmt: skip
        self.setStatusBar(self.status)
        self._activity_job: Job | None = None

        # Wiring
        self.library_panel.files_dropped.connect(self.add_paths)
        self.library_panel.document_selected.connect(self.select_document)
        self.library_panel.remove_requested.connect(self.remove_document)
        self.conversation.ask_requested.connect(self.ask)
        self.conversation.cancel_requested.connect(self.cancel_answer)
        self.conversation.citation_clicked.connect(self.show_citation)
        self.conversation.export_requested.connect(self.export_conversation)
        self.conversation.copy_button.clicked.connect(self.copy_answer)
        self.summary.summarize_requested.connect(self.summarize)
        self.summary.cancel_requested.connect(self.cancel_summary)
        self.summary.page_clicked.connect(self.viewer.go_to_page)
        self.summary.export_requested.connect(self.export_summary)
        self._make_menus()
        escape = QShortcut(QKeySequence(Qt.Key.Key_Escape), self)
        escape.setContext(Qt.ShortcutContext.WindowShortcut)
        escape.activated.connect(self.cancel_answer)

        self.refresh_plan_line()
        self.refresh_documents()
        self.restore_state()
        self.search_ready = False
        self.warm_up_job: Job | None = None
        QTimer.singleShot(0, self.warm_up_search)

    def _make_conversation(self) -> Any:
        from app.conversation_view import ConversationView

        return ConversationView()

    def _make_menus(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        self.open_action = self._action(file_menu, "&Open PDF…", QKeySequence.StandardKey.Open, self.open_dialog)
        self._action(file_menu, "Open &folder…", None, self.open_folder_dialog)
        file_menu.addSeparator()
        self._action(file_menu, "&Export conversation…", "Ctrl+E", self.export_conversation)
        self._action(file_menu, "Export &summary…", None, self.export_summary)
        self._action(file_menu, "&Remove document", None, lambda: self.remove_document(self.doc_id or ""))
        file_menu.addSeparator()
        self._action(file_menu, "&Quit", QKeySequence.StandardKey.Quit, self.close)
        edit_menu = self.menuBar().addMenu("&Edit")
        self._action(edit_menu, "&Find in document", QKeySequence.StandardKey.Find, self.viewer.focus_find)
        self._action(edit_menu, "Find &next", QKeySequence.StandardKey.FindNext, self.viewer.find_next)
        edit_menu.addSeparator()
        self._action(edit_menu, "&Settings…", "Ctrl+,", self.open_settings)
        model_menu = self.menuBar().addMenu("&Model")
        ask = self._action(model_menu, "&Ask", "Ctrl+Return", self._ask_from_box)
        ask.setShortcuts([QKeySequence("Ctrl+Return"), QKeySequence("Ctrl+Enter")])
        self._action(model_menu, "&Stop answer", None, self.cancel_answer)
        self._action(model_menu, "&Choose model file…", None, self.choose_model_file)
        if self.recommended_entry is not None:
            self._action(model_menu, "&Download recommended model", None, self.download_recommended)
        help_menu = self.menuBar().addMenu("&Help")
        self._action(help_menu, "&About Pagewise", None, self.about)

    def _action(self, menu: Any, text: str, shortcut: Any, slot: Callable[[], Any]) -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        action.triggered.connect(lambda _checked=False: slot())
        menu.addAction(action)
        return action

    # --- state ---------------------------------------------------------------------------

    def restore_state(self) -> None:
        geometry = self.window_state.value("geometry")
        if isinstance(geometry, QByteArray):
            self.restoreGeometry(geometry)
        else:
            self.resize(1360, 860)
        splitter = self.window_state.value("splitter")
        if isinstance(splitter, QByteArray):
            self.splitter.restoreState(splitter)
        selected = self.window_state.value("selected_doc")
        if isinstance(selected, str) and selected:
            self._restoring = True  # no password dialog before the window is even shown
            try:
                self.library_panel.select(selected)
            finally:
                self._restoring = False

    def save_state(self) -> None:
        self.window_state.setValue("geometry", self.saveGeometry())
        self.window_state.setValue("splitter", self.splitter.saveState())
        self.window_state.setValue("selected_doc", self.doc_id or "")
        self.window_state.sync()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.save_state()
        self.shutdown()
        super().closeEvent(event)

    def shutdown(self) -> None:
        self.runner.shutdown()
        self.session.close()
        self.library.close()

    def refresh_plan_line(self) -> None:
        configured = self.settings.model_configured or self.session.loaded
        self.welcome.setVisible(not configured and not self.session.loaded)
        if self.session.loaded and self.session.preview is not None:
            backend = self.session.report.backend if self.session.report else ""
            self.status.set_plan(f"{self.session.preview.summary}" + (f" · {backend}" if backend else ""))
        elif self.settings.model_configured:
            chosen = self.session.plan_preview()
            self.status.set_plan(chosen.summary + (" — not loaded yet" if chosen.ok else f" — {chosen.problem}"))
        else:
            self.status.set_plan("No model configured · documents can still be added and searched")

    # --- documents -----------------------------------------------------------------------

    def refresh_documents(self) -> None:
        self.library_panel.set_documents(self.library.documents())

    def record(self, doc_id: str) -> DocumentRecord | None:
        try:
            return self.library.document(doc_id)
        except PagewiseError:
            return None

    def open_dialog(self) -> None:
        files, _ = QFileDialog.getOpenFileNames(self, "Add PDF files", "", "PDF files (*.pdf)")
        self.open_paths([Path(f) for f in files])

    def open_folder_dialog(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Add a folder of PDF files")
        if folder:
            self.add_paths([Path(folder)])

    def open_paths(self, paths: list[Path]) -> None:
        """Add files and show the last one when it is ready (File → Open, `pagewise FILE.pdf`)."""
        files = expand_paths(paths)
        if files:
            self._select_after_ingest = {str(files[-1])}
        self.add_paths(files)

    def add_paths(self, paths: list[Path], password: str | None = None) -> IngestJob | None:
        files = expand_paths([Path(p) for p in paths])
        if not files:
            self.messages.warning("No PDF files were found there.")
            return None
        for path in files:
            self.library_panel.set_file(str(path), "waiting…")
        requests = [IngestRequest(str(p), password or self._passwords.get(str(p))) for p in files]
        job = self.runner.ingest(requests)
        total = len(files)
        self.ingest_progress.start(f"Adding {total} document{'s' if total > 1 else ''}…")
        job.file_progress.connect(lambda path, p: self._ingest_progress(job, path, p))
        job.file_done.connect(self._ingest_done)
        job.file_failed.connect(self._ingest_failed)
        job.bug.connect(lambda bug: self.messages.report(bug, "adding documents"))
        job.cancelled.connect(lambda: self._ingest_cancelled(job))
        job.finished.connect(self._ingest_finished)
        return job

    def cancel_ingest(self) -> None:
        for job in list(self.runner.ingests):
            job.cancel()
        self.ingest_progress.cancel_button.setEnabled(False)

    def _ingest_progress(self, job: IngestJob, path: str, progress: Progress) -> None:
        done = len(job.paths) - len(job.pending)
        self.ingest_progress.update_progress(progress)
        self.ingest_progress.label.setText(
            f"Adding {Path(path).name} ({done + 1} of {len(job.paths)}) — {describe(progress)}"
        )
        word = STAGE_WORDS.get(progress.stage, progress.stage.lower())
        state = f"{word} {progress.done}/{progress.total}" if progress.total else word
        if progress.stage == "Reading pages":
            state += " pages"
        elif progress.stage == "Embedding passages":
            state += " passages"
        eta = format_eta(progress.eta_seconds())
        self.library_panel.set_file(path, state + (f" · {eta}" if eta else ""))

    def _ingest_done(self, path: str, result: dict[str, Any]) -> None:
        self.library_panel.remove_key(f"path:{path}")
        self.refresh_documents()
        for warning in result.get("warnings", []):
            self.messages.warning(f"{Path(path).name}: {warning}")
        if path in self._select_after_ingest or self.doc_id is None:
            self._select_after_ingest.discard(path)
            self.library_panel.select(result["doc_id"])

    def _ingest_failed(self, path: str, kind: str, message: str) -> None:
        if kind == "password":
            wrong = path in self._passwords
            password = self.ask_password(path, wrong)
            if password:
                self._passwords[path] = password
                self.add_paths([Path(path)], password)
                return
            self.library_panel.set_file(path, "encrypted · needs its password", message)
            self.messages.error(message)
            return
        self.library_panel.set_file(path, "error · could not be added", message)
        self.messages.error(message)

    def _ingest_cancelled(self, job: IngestJob) -> None:
        for path in job.pending:
            self.library_panel.remove_key(f"path:{path}")
        self.messages.info("Adding documents was cancelled. Add them again to finish: finished pages are kept.")

    def _ingest_finished(self) -> None:
        self.refresh_documents()
        if not self.runner.ingests:
            self.ingest_progress.stop()
            self.warm_up_search()

    def warm_up_search(self) -> Job | None:
        """Load the query encoder in the LLM thread before the first question needs it."""
        if self.search_ready or self.warm_up_job is not None or not self.library.documents():
            return None

        def run(_job: Job) -> bool:
            return answering.warm_up_search(self._worker_library())

        job = self.runner.submit_llm("warm-up", run)
        self.warm_up_job = job
        job.succeeded.connect(lambda loaded: setattr(self, "search_ready", bool(loaded)))
        job.failed.connect(lambda error: self.messages.report(error, "preparing search"))
        job.finished.connect(lambda: setattr(self, "warm_up_job", None))
        return job

    def _ask_password_dialog(self, path: str, wrong: bool) -> str | None:
        prompt = ("That password is not right. " if wrong else "") + f"{Path(path).name} is encrypted. Password:"
        text, ok = QInputDialog.getText(self, "Encrypted PDF", prompt, QLineEdit.EchoMode.Password)
        return text if ok and text else None

    def _confirm_remove_dialog(self, title: str) -> bool:
        answer = QMessageBox.question(
            self,
            "Remove document",
            f"Remove “{title}” from the library, with its passages, summary and conversation? "
            "The PDF file itself is not touched.",
        )
        return answer == QMessageBox.StandardButton.Yes

    def remove_document(self, key: str) -> None:
        if not key:
            return
        if key.startswith("path:"):
            self.library_panel.remove_key(key)
            return
        record = self.record(key)
        if record is None or not self.confirm_remove(record.title or Path(record.path).name):
            return
        if self.answer_job is not None and self._answer_doc == key:
            self.cancel_answer()
        try:
            self.library.remove(key)
        except PagewiseError as error:
            self.messages.report(error)
            return
        if self.doc_id == key:
            self.select_document(None)
        self.refresh_documents()
        self.messages.info(f"Removed “{record.title or Path(record.path).name}” from the library.")

    def select_document(self, doc_id: str | None) -> None:
        if doc_id == self.doc_id and doc_id is not None:
            record = self.record(doc_id)
            if record is not None and self.viewer.path is None and self.viewer.needs_password:
                problem = self._open_pdf(record)  # selected again: ask for the password now
                if problem:
                    self.messages.error(problem)
            return
        self.doc_id = doc_id
        record = self.record(doc_id) if doc_id else None
        if record is None:
            self.doc_id = None
            self.viewer.close_document()
            self.conversation.set_document(None)
            self.summary.set_summary(None, None)
            self.setWindowTitle("Pagewise")
            return
        title = record.title or Path(record.path).name
        self.setWindowTitle(f"{title} — Pagewise")
        problem = self._open_pdf(record)
        if problem:
            self.messages.error(problem)
        self.conversation.set_document(title, answering.load_turns(self.library, record.doc_id))
        if self.answer_job is not None and self._answer_doc == record.doc_id:
            self.conversation.begin_answer(self.conversation.pending_question or "")
        self.conversation.set_busy(self.answer_job is not None)
        self._show_cached_summary(record.doc_id)

    def _open_pdf(self, record: DocumentRecord) -> str | None:
        """Show the record's PDF in the viewer; a message for the user when that fails.

        Passwords are kept for the session only (never written to disk), so after a restart an
        encrypted document asks for its password again when it is opened.
        """
        path = Path(record.path)
        if not path.is_file():
            self.viewer.close_document()
            return (
                f"{record.path} cannot be shown: the file was moved or deleted. "
                "Its text is still in the library; add the file again to view it."
            )
        password = self._passwords.get(record.path)
        if self.viewer.open(path, password):
            return None
        wrong = password is not None
        if self.viewer.needs_password and self._restoring:
            return f"{path.name} is encrypted: select it to enter its password and show it."
        while self.viewer.needs_password:
            password = self.ask_password(record.path, wrong)
            if not password:
                return (
                    f"{path.name} is encrypted: it is shown once its password is given. "
                    "Select the document again to enter it. Its text is still searchable."
                )
            if self.viewer.open(path, password):
                self._passwords[record.path] = password
                return None
            wrong = True
        return (
            f"{record.path} cannot be shown: the file cannot be read as a PDF any more. "
            "Its text is still in the library; add the file again to view it."
        )

    # --- model jobs ----------------------------------------------------------------------

    def _worker_library(self) -> Library:
        """The LLM thread's own connection to the library (SQLite connections are per thread)."""
        library = getattr(self._worker_state, "library", None)
        if library is None:
            library = Library.open()
            self._worker_state.library = library
        return library

    def _ask_from_box(self) -> None:
        self.conversation._ask()

    def ask(self, question: str) -> Job | None:
        doc_id = self.doc_id
        if doc_id is None:
            self.messages.info("Select a document in the library first.")
            return None
        if self.answer_job is not None:
            self.messages.info("An answer is still being written. Press Esc to stop it first.")
            return None
        note = self.model_missing("Asking")
        if note:
            self.conversation.begin_answer(question)
            self.conversation.finish_answer(None, note)
            self.messages.warning(note)
            return None
        history = list(self.conversation.turns)
        self.conversation.begin_answer(question)
        self._answer_doc = doc_id
        self._first_piece_at = None
        self._pieces = 0

        def run(job: Job) -> AnswerView:
            engine = self.session.ensure_loaded(job.report, job.token)
            library = self._worker_library()
            answer = answering.ask(engine, library, doc_id, question, history, job.emit_piece, job.report, job.token)
            answering.save_turn(library, doc_id, answer)
            return answer

        job = self.runner.submit_llm("answer", run, on_cancel=self.session.cancel)
        self.answer_job = job
        job.progressed.connect(self._answer_progress)
        job.piece.connect(self._answer_piece)
        job.succeeded.connect(lambda answer: self._answer_done(doc_id, answer))
        job.failed.connect(lambda error: self._answer_failed(doc_id, error))
        job.cancelled.connect(lambda: self._answer_stopped(doc_id, "Stopped."))
        job.finished.connect(self._answer_finished)
        return job

    def model_missing(self, what: str) -> str:
        """Why ``what`` cannot use a model now ("" when it can): explained before anything loads."""
        if self.session.loaded:
            return ""
        chosen = self.session.plan_preview()
        if chosen.plan is not None or chosen.remote_url or not chosen.problem:
            return ""
        if not self.settings.model_configured:
            return (
                f"{what} needs a language model. Choose a GGUF file or download the recommended model "
                "(Model menu, or the welcome panel); documents can be added and searched meanwhile."
            )
        return f"The model cannot be loaded: {chosen.problem}"

    def cancel_answer(self) -> None:
        if self.answer_job is not None:
            self.conversation.progress.mark_stopping()
            self.answer_job.cancel()

    def _answer_progress(self, progress: Progress) -> None:
        if self._answer_doc == self.doc_id:
            self.conversation.progress.update_progress(progress)
        self.refresh_plan_line()

    def _answer_piece(self, text: str) -> None:
        now = time.monotonic()
        if self._first_piece_at is None:
            self._first_piece_at = now
            self.conversation.progress.label.setText("Answering…")
        self._pieces += 1
        elapsed = now - self._first_piece_at
        if elapsed > 0.2:
            self.status.set_running_rate((self._pieces - 1) / elapsed)
        if self._answer_doc == self.doc_id:
            self.conversation.add_piece(text)

    def _answer_done(self, doc_id: str, answer: AnswerView) -> None:
        rate = answer.stats.decode_tok_s if answer.stats else None
        self.status.set_last_rate(rate or self.status.running_rate)
        if doc_id == self.doc_id:
            self.conversation.finish_answer(answer)
            if self.summary.summary is None:  # retrieval mode summarized the document first
                self._show_cached_summary(doc_id)

    def _show_cached_summary(self, doc_id: str) -> None:
        record = self.record(doc_id)
        if record is None:
            return
        try:
            cached = answering.cached_summary(self.library, doc_id, self.session.engine)
        except PagewiseError:
            cached = None
        self.summary.set_summary(record.title or Path(record.path).name, cached)

    def _answer_stopped(self, doc_id: str, note: str) -> None:
        self.status.set_last_rate(self.status.running_rate)
        if doc_id == self.doc_id:
            self.conversation.finish_answer(None, note)

    def _answer_failed(self, doc_id: str, error: BaseException) -> None:
        if isinstance(error, EngineError) and self.session.crashed():
            self._answer_stopped(doc_id, "The model stopped while answering. It is being restarted; ask again.")
            self.messages.warning(f"{error} Restarting the model; your conversation is kept.")
            self.restart_model()
            return
        self._answer_stopped(doc_id, f"No answer: {error}" if isinstance(error, PagewiseError) else "No answer.")
        if isinstance(error, NoModelConfigured):
            self.messages.warning(str(error))
        else:
            self.messages.report(error, "answering")

    def _answer_finished(self) -> None:
        self.answer_job = None
        self._answer_doc = None
        self.conversation.set_busy(False)
        self.refresh_plan_line()

    def restart_model(self) -> Job:
        self.activity.start("Restarting the model…")

        def run(job: Job) -> Any:
            return self.session.restart(job.report, job.token)

        job = self.runner.submit_llm("restart", run)
        self._activity_job = job
        job.progressed.connect(self.activity.update_progress)
        job.succeeded.connect(lambda _r: self.messages.info("The model was restarted. Your conversation is kept."))
        job.failed.connect(lambda error: self.messages.report(error, "restarting the model"))
        job.finished.connect(self._activity_finished)
        return job

    def _activity_finished(self) -> None:
        self._activity_job = None
        self.activity.stop()
        self.refresh_plan_line()

    def _cancel_activity(self) -> None:
        if self._activity_job is not None:
            self._activity_job.cancel()

    def summarize(self) -> Job | None:
        doc_id = self.doc_id
        if doc_id is None or self.summary_job is not None:
            return None
        note = self.model_missing("Summarizing")
        if note:
            self.messages.warning(note)
            return None
        record = self.record(doc_id)
        title = (record.title or Path(record.path).name) if record else ""
        self.summary.progress.start("Summarizing…")
        self.summary.summarize_button.setEnabled(False)

        def run(job: Job) -> SummaryView:
            engine = self.session.ensure_loaded(job.report, job.token)
            return answering.summarize(engine, self._worker_library(), doc_id, job.report, job.token)

        def progressed(progress: Progress) -> None:
            self.summary.progress.update_progress(progress)
            if progress.stage.lower() == "summarizing segments" and progress.total:
                self.library_panel.set_state(doc_id, f"summarizing {progress.done}/{progress.total} segments")

        def done(view: SummaryView) -> None:
            if self.doc_id == doc_id:
                self.summary.set_summary(title, view)

        def finished() -> None:
            self.summary_job = None
            self.summary.progress.stop()
            self.refresh_documents()
            if self.doc_id == doc_id and self.summary.summary is None:
                self.summary.summarize_button.setEnabled(True)

        job = self.runner.submit_llm("summarize", run, on_cancel=self.session.cancel)
        self.summary_job = job
        job.progressed.connect(progressed)
        job.succeeded.connect(done)
        job.failed.connect(lambda error: self.messages.report(error, "summarizing"))
        job.finished.connect(finished)
        return job

    def cancel_summary(self) -> None:
        if self.summary_job is not None:
            self.summary.progress.mark_stopping()
            self.summary_job.cancel()

    # --- citations -----------------------------------------------------------------------

    def show_citation(self, citation: CitationView) -> None:
        if not citation.valid:
            self.messages.warning(
                f"Page {citation.page} was cited, but it is not in the passages the model was given: "
                "check that page yourself."
            )
            self.viewer.go_to_page(citation.page)
            return
        if citation.doc_id != self.doc_id:
            self.library_panel.select(citation.doc_id)
        pieces: list[tuple[int, str, float]] = []
        for page, start, end in citation.spans:
            try:
                raw = self.library.page_text(citation.doc_id, page)
            except PagewiseError:
                continue
            pieces.append((page, raw[start:end], start / max(1, len(raw))))
        if not pieces:  # whole-document mode: the page itself was cited
            self.viewer.clear_highlights()
            self.viewer.go_to_page(citation.page)
            return
        found = self.viewer.highlight_passage(pieces, focus_page=citation.page)
        if not found:
            self.messages.info(f"Showing page {citation.page}; the passage could not be located on the page.")

    # --- export --------------------------------------------------------------------------

    def copy_answer(self) -> None:
        if not self.conversation.turns:
            return
        record = self.record(self.doc_id or "")
        title = (record.title if record else "") or "Pagewise answer"
        QGuiApplication.clipboard().setText(answering.to_markdown(title, self.conversation.turns[-1:]))
        self.messages.info("The answer was copied as Markdown, with its page citations.")

    def export_conversation(self) -> None:
        if not self.conversation.turns:
            self.messages.info("There is no conversation to export yet.")
            return
        record = self.record(self.doc_id or "")
        title = (record.title if record else "") or "Pagewise conversation"
        self._save_markdown(answering.to_markdown(title, self.conversation.turns), f"{title} - questions.md")

    def export_summary(self) -> None:
        text = self.summary.markdown()
        if not text:
            self.messages.info("There is no summary to export yet.")
            return
        self._save_markdown(text, f"{self.summary.title} - summary.md")

    def _save_markdown(self, text: str, suggested: str) -> None:
        safe = "".join(c for c in suggested if c not in '\\/:*?"<>|')
        path, _ = QFileDialog.getSaveFileName(self, "Export as Markdown", safe, "Markdown (*.md)")
        if not path:
            return
        try:
            Path(path).write_text(text, encoding="utf-8")
        except OSError as error:
            self.messages.error(f"Could not write {path}: {error.strerror}. Choose another folder.")
            return
        self.messages.info(f"Saved {path}.")

    # --- settings and models -------------------------------------------------------------

    def open_settings(self) -> SettingsDialog:
        dialog = SettingsDialog(self.settings.values(), recommended=self.recommended_label, parent=self)

        def download() -> None:
            dialog.reject()
            self.download_recommended()

        dialog.download_requested.connect(download)
        dialog.accepted.connect(lambda: self.apply_settings(dialog.values()))
        dialog.open()
        return dialog

    def apply_settings(self, values: dict[str, Any]) -> bool:
        before = self.settings["data_folder"]
        try:
            self.settings.update(values)
            self.settings.save()
        except (PagewiseError, OSError) as error:
            self.messages.report(error if isinstance(error, PagewiseError) else PagewiseError(str(error)))
            return False
        self.session.configure(self.settings.effective_values())
        self.runner.embedding_model = self.settings["embedding_model"]
        if self.settings["data_folder"] != before:
            self.messages.info("The new data folder is used from the next start of Pagewise.")
        self.refresh_plan_line()
        return True

    def choose_model_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Choose a GGUF model", "", "GGUF models (*.gguf)")
        if path:
            self.apply_settings({"model_path": path})

    def download_recommended(self) -> Job | None:
        entry = self.recommended_entry
        if entry is None:
            return None
        self.activity.start(f"Downloading {self.recommended_label}…")

        def run(job: Job) -> Path:
            from inference.download import download_model
            from inference.gguf_info import read_gguf_info

            def check(path: Path) -> None:
                read_gguf_info(path)  # raises ModelError for a file llama.cpp could not load

            result = download_model(entry, progress=job.report, cancel=job.token, check_gguf=check)  # type: ignore[arg-type]
            return Path(result.path)

        job = self.runner.submit_llm("download", run)
        self._activity_job = job
        job.progressed.connect(self.activity.update_progress)
        job.succeeded.connect(lambda path: self.apply_settings({"model_path": str(path)}))
        job.failed.connect(lambda error: self.messages.report(error, "downloading the model"))
        job.finished.connect(self._activity_finished)
        return job

    def about_text(self) -> str:
        return (
            f"<b>Pagewise {version()}</b><br>Ask questions about long PDFs with a local language model; "
            "answers cite their pages."
        )

    def about(self) -> None:
        QMessageBox.about(self, "About Pagewise", self.about_text())

    # --- drag and drop anywhere in the window --------------------------------------------

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if local_pdf_paths(event):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        paths = local_pdf_paths(event)
        if paths:
            event.acceptProposedAction()
            self.add_paths(paths)

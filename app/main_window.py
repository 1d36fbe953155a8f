"""The main window: library | PDF viewer | conversation and summary, with a status bar.

The window builds the views and one controller per job (``app.controllers``), connects them,
and holds the menus and the window's own state. It never parses a PDF, calls the model or
handles a job's result itself: PDF ingest goes through ``JobRunner.ingest`` (a process), every
model call through ``JobRunner.submit_llm`` (the one LLM thread), every error to ``MessageCenter``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QByteArray, QEvent, QObject, QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QGuiApplication, QKeySequence, QResizeEvent, QShortcut
from PySide6.QtWidgets import (
    QApplication,
    QInputDialog,
    QLineEdit,
    QMainWindow,
    QMessageBox,
    QSplitter,
    QStackedWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app import version
from app.controllers import WorkerLibrary
from app.controllers.answer import AnswerController
from app.controllers.background_summary import BackgroundSummaries
from app.controllers.citations import CitationController
from app.controllers.compare import CompareController
from app.controllers.context import JobContext
from app.controllers.documents import DocumentsController, title_of
from app.controllers.export import ExportController
from app.controllers.ingest import IngestController
from app.controllers.model_setup import ModelSetupController
from app.controllers.open_document import OpenDocumentController
from app.controllers.reindex import ReindexController
from app.controllers.review import ReviewController
from app.controllers.summary import SummaryController
from app.controllers.word_pages import WordPagesController
from app.jobs.runner import IngestJob, Job, JobRunner
from app.services.answering import CitationView
from app.services.model_session import ModelSession
from app.services.settings import Settings
from app.views.compare_versions import CompareVersions
from app.views.compare_view import ComparePanel
from app.views.conversation_view import ConversationView
from app.views.library_panel import LibraryPanel, PdfDropTarget
from app.views.review_view import ReviewPanel
from app.views.settings_dialog import SettingsDialog
from app.views.summary_view import SummaryPanel
from app.views.welcome import WelcomePanel, recommended_model, why_recommended
from app.widgets import file_dialogs
from app.widgets.appearance import apply_appearance
from app.widgets.job_progress import JobProgress
from app.widgets.menus import add_action
from app.widgets.messages import MessageBar, MessageCenter
from app.widgets.pdf_viewer import PdfViewer
from app.widgets.status_bar import StatusBar
from app.widgets.wide_tabs import WideTabs
from inference.engines.llama_build import cpu_floor_problem
from inference.planning.gpu_budget import gpu_unavailable_notice
from summarizer.library.reading.ocr_pages import find_in_ocr_pages
from summarizer.library.storage.paths import data_home
from summarizer.library.storage.store import DocumentRecord, Library


class MainWindow(PdfDropTarget, QMainWindow):
    files_dropped = Signal(list)  # PDFs dropped anywhere in the window: added to the library

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
        self.files_dropped.connect(self.add_paths)
        self.settings = settings or Settings.load()
        self.session = session or ModelSession(self.settings.effective_values())
        self.messages = messages or MessageCenter(self)
        if cpu_problem := cpu_floor_problem():  # said before any model is loaded (it would die on SIGILL)
            QTimer.singleShot(0, lambda: self.messages.error(cpu_problem, key="cpu"))
        if problem := self.settings.problem:  # once the banners are wired
            QTimer.singleShot(0, lambda: self.messages.warning(problem, key="settings"))
        if self.settings["appearance"] != "auto":  # auto: the desktop's colours, as they are
            self._apply_appearance()
        self.runner = JobRunner(self)
        self.runner.embedding_model = self.settings["embedding_model"]
        self.library = Library.open()
        self.ask_password: Callable[[str, bool], str | None] = self._ask_password_dialog
        self.confirm_close: Callable[[list[str]], bool] = self._confirm_close_dialog  # tests replace it
        self.confirm_remove: Callable[[str], bool] = self._confirm_remove_dialog
        self.window_state = QSettings(str(data_home() / "window.ini"), QSettings.Format.IniFormat)
        self._build_views(telemetry)
        self._build_controllers()
        self._make_menus()
        self.model_setup.refresh_plan_line()
        self.documents.refresh()
        self.reindexer.check()
        self.ingest.offer_resume()  # a data room the window was closed in the middle of
        self.restore_state()
        QTimer.singleShot(0, self.answers.warm_up_search)
        self.first_painted = False
        self.status.installEventFilter(self)  # its first paint: the window is drawn (_after_first_paint)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.status and event.type() == QEvent.Type.Paint and not self.first_painted:
            self.first_painted = True
            self.status.removeEventFilter(self)
            QTimer.singleShot(0, self._after_first_paint)  # runs once this paint has been drawn
        return super().eventFilter(watched, event)

    def _after_first_paint(self) -> None:
        """The model's background load, then background summaries (they wait for the LLM thread to
        be idle, so a summary never starts the load that a question would then cancel). Not before:
        a job started at once ran before the window's first paint (QTimer.singleShot(0) fires
        before it), and the model's planning and worker start compete with it for the CPU."""
        if self.runner.stopped:
            return
        self.model_setup.load_in_background()
        self.background.wake()

    def _build_views(self, telemetry: Any | None) -> None:
        self.library_panel = LibraryPanel()
        self.viewer = PdfViewer()
        self.conversation = ConversationView()
        self.summary = SummaryPanel()
        self.tabs = QTabWidget()
        self.tabs.addTab(self.conversation, "Conversation")
        self.tabs.addTab(self.summary, "Summary")
        self.review = ReviewPanel()
        self.tabs.addTab(self.review, "Review")
        self.compare = ComparePanel()
        self.tabs.addTab(self.compare, "Compare")
        # The document pane: the one viewer, or both versions side by side while Compare is open.
        self.compare_versions = CompareVersions()
        self.document_pane = QStackedWidget()
        self.document_pane.addWidget(self.viewer)
        self.document_pane.addWidget(self.compare_versions)
        gpu = telemetry if telemetry is not None and getattr(telemetry, "available", False) else None
        vram = gpu.sample() if gpu is not None else None
        gpu_notice = gpu_unavailable_notice()
        gpu_text = (
            f"This computer has {vram.total_bytes / 1024**3:.0f} GiB of GPU memory."
            if vram is not None
            else f"The GPU cannot be used ({gpu_notice}): models run on the CPU (slower)."
            if gpu_notice
            else "No NVIDIA GPU was found: models run on the CPU (slower)."
        )
        vram_bytes = vram.total_bytes if vram else None
        self.recommended = recommended_model(vram_bytes)
        why = why_recommended(self.recommended[1], vram_bytes)
        self.welcome = WelcomePanel(self.recommended[0], gpu_text, why)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(self.welcome)
        right_layout.addWidget(self.tabs, 1)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setObjectName("main-splitter")
        for index, (pane, stretch) in enumerate(((self.library_panel, 0), (self.document_pane, 3), (right, 2))):
            self.splitter.addWidget(pane)
            self.splitter.setStretchFactor(index, stretch)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.setSizes([240, 640, 460])
        # The Review tab's grid needs width; the Compare tab too (the document pane holds two viewers).
        wide = [(self.review, 0.55), (self.compare, 0.45)]  # of the width, for the right pane
        self.wide_tabs = WideTabs(self.splitter, self.tabs, wide, self.viewer, self)
        self.library_panel.setMinimumWidth(170)
        right.setMinimumWidth(300)
        self.ingest_progress = JobProgress("Stop adding documents")
        self.activity = JobProgress("Stop")
        self.reindex_progress = JobProgress("Stop re-indexing (it continues where it stopped next time)")
        central = QWidget()
        layout = QVBoxLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.splitter, 1)
        # Below the panes: a progress line that comes and goes moves no row under the pointer
        # (walk 2026-12-05: one above pushed the library down as a click landed).
        for widget in (self.ingest_progress, self.activity, self.reindex_progress):
            layout.addWidget(widget)
        self.setCentralWidget(central)
        # floats over the bottom of the document pane: nothing moves, no button is covered
        self.message_bar = MessageBar(self.messages, central, area=self.document_pane)
        self.setMinimumSize(*self.MINIMUM_SIZE)  # three panes side by side, none of them cut (fit_screen)
        self.status = StatusBar(
            gpu.latest if gpu is not None else None,
            getattr(telemetry, "reason", "") or "no NVIDIA GPU",
            gpu_notice=gpu_notice,
        )
        self.setStatusBar(self.status)

    def _build_controllers(self) -> None:
        passwords: dict[str, str] = {}  # for this session only: never written to disk
        context = JobContext(self.runner, self.session, self.library, WorkerLibrary(), self.messages, self.status)
        self.worker_library = context.worker_library

        def ask_password(path: str, wrong: bool) -> str | None:
            return self.ask_password(path, wrong)  # looked up at each call: tests replace it

        self.model_setup = ModelSetupController(
            context, self.settings, self.welcome, self.activity, self.recommended, self
        )
        self.opener = OpenDocumentController(
            self.viewer,
            passwords,
            ask_password,
            lambda doc_id, text: find_in_ocr_pages(self.library, doc_id, text),  # Find on scanned pages
            lambda: self.library,
        )
        self.documents = DocumentsController(
            context, self.library_panel, self.opener, lambda title: self.confirm_remove(title), self
        )
        self.ingest = IngestController(context, self.library_panel, self.ingest_progress, passwords, ask_password, self)

        def current_doc() -> str | None:
            return self.documents.doc_id

        missing = self.model_setup.model_missing
        self.answers = AnswerController(
            context, self.conversation, current_doc, missing, self, model_loading=self.model_setup.model_loading
        )
        self.summaries = SummaryController(
            context, self.summary, self.library_panel.set_state, self.documents.current, missing, self
        )
        self.citations = CitationController(context, self.viewer, current_doc, self.library_panel.select)
        self.word_pages = WordPagesController(context, self.viewer, lambda: str(self.settings["word_view"]))
        self.word_pages.connect_window(self.opener, self.citations)
        self.export = ExportController(
            self, self.conversation, self.summary, self.messages, self.documents.current_title
        )
        self.reindexer = ReindexController(context, self.reindex_progress, lambda: self.runner.embedding_model, self)

        def model_file() -> str:
            return Path(self.settings.effective("model_path") or "").name

        self.reviews = ReviewController(
            context, self.review, self.citations.show, self.ingest.add_paths, missing, model_file, self
        )
        self.comparisons = CompareController(context, self.compare, self.compare_versions, passwords, self)
        self.comparisons.connect_window(self.tabs, self.document_pane, self.viewer, self.library_panel, self.ingest)
        self.background = BackgroundSummaries(
            context,
            lambda: str(self.settings["background_summaries"]),
            missing,
            current_doc,
            self,
            all_up_to=lambda: int(self.settings["background_summaries_all_up_to"]),
        )
        self.background.connect_window(self.ingest, self.documents, self.answers, self.summaries, self.model_setup)
        self.library_panel.file_selected.connect(self.viewer.close_document)  # says why it is not shown
        self.documents.announce_added(self.ingest)
        self.ingest.documents_changed.connect(self.documents.refresh)
        self.ingest.idle.connect(self.answers.warm_up_search)
        self.ingest.idle.connect(self.reindexer.clear_if_done)  # a resumed add ends "left half cut"
        self.reviews.room.connect_model(self.model_setup)  # the plan line after a review; the load on its bar
        self.tabs.currentChanged.connect(self.wide_tabs.make_room)
        self.reviews.connect_window(
            self.ingest, self.library_panel, self.tabs, self.window_state, lambda: self.doc_id, self.select_document
        )
        self.documents.selected.connect(self._document_selected)
        self.documents.removing.connect(self.answers.cancel_for)
        self.conversation.citation_clicked.connect(self.citations.show)
        self.answers.answered.connect(self.summaries.show_if_missing)
        self.answers.model_crashed.connect(self.model_setup.restart_model)
        self.answers.model_changed.connect(self.model_setup.refresh_plan_line)
        self.summaries.documents_changed.connect(self.documents.refresh)
        self.summary.page_clicked.connect(self.viewer.go_to_page)
        self.reindexer.library_changed.connect(self.documents.refresh)
        self.model_setup.settings_applied.connect(self.reindexer.check)
        self.model_setup.settings_applied.connect(self._apply_appearance)
        escape = QShortcut(QKeySequence(Qt.Key.Key_Escape), self)
        escape.setContext(Qt.ShortcutContext.WindowShortcut)
        escape.activated.connect(self.answers.cancel)

    def _apply_appearance(self) -> None:
        app = QApplication.instance()
        if isinstance(app, QApplication):
            apply_appearance(app, str(self.settings["appearance"]))

    def _document_selected(self, record: DocumentRecord | None) -> None:
        self.setWindowTitle(f"{title_of(record)} — Pagewise" if record is not None else "Pagewise")
        self.answers.show_document(record)
        self.summaries.show_document(record)

    def _make_menus(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        self.open_action = add_action(self, file_menu, "&Open PDF or Word files…", "Ctrl+O", self.open_dialog)
        add_action(self, file_menu, "Open a &folder of PDF or Word files…", None, self.open_folder_dialog)
        file_menu.addSeparator()
        add_action(self, file_menu, "&Export conversation…", "Ctrl+E", self.export.export_conversation)
        add_action(self, file_menu, "Export &summary…", None, self.export.export_summary)
        add_action(self, file_menu, "&Remove document", None, lambda: self.remove_document(self.doc_id or ""))
        file_menu.addSeparator()
        add_action(self, file_menu, "&Quit", QKeySequence.StandardKey.Quit, self.close)
        edit_menu = self.menuBar().addMenu("&Edit")
        add_action(self, edit_menu, "&Find in document", QKeySequence.StandardKey.Find, self.viewer.focus_find)
        add_action(self, edit_menu, "Find &next", QKeySequence.StandardKey.FindNext, self.viewer.find_next)
        edit_menu.addSeparator()
        add_action(self, edit_menu, "&Settings…", "Ctrl+,", self.open_settings)
        model_menu = self.menuBar().addMenu("&Model")
        ask = add_action(self, model_menu, "&Ask", "Ctrl+Return", self.conversation.ask_from_box)
        ask.setShortcuts([QKeySequence("Ctrl+Return"), QKeySequence("Ctrl+Enter")])
        add_action(self, model_menu, "&Stop answer", None, self.answers.cancel)
        add_action(self, model_menu, "&Choose model file…", None, self.model_setup.choose_model_file)
        if self.recommended[1] is not None:
            add_action(self, model_menu, "&Download recommended model", None, self.model_setup.download_recommended)
        library_menu = self.menuBar().addMenu("&Library")
        add_action(self, library_menu, "&Re-index library…", None, self.reindexer.reindex)
        self.summarize_all_action = add_action(
            self, library_menu, "&Summarize all documents", None, self.background.summarize_everything
        )
        compare_menu = self.menuBar().addMenu("&Compare")
        self.next_change_action, self.previous_change_action = self.comparisons.add_menu(
            compare_menu, self.library_panel.selected_doc_ids, lambda: self.doc_id or ""
        )
        help_menu = self.menuBar().addMenu("&Help")
        add_action(self, help_menu, "&About Pagewise", None, self.about)

    # --- what scripts, tests and the command line drive ------------------------------------

    @property
    def doc_id(self) -> str | None:
        return self.documents.doc_id

    @property
    def answer_job(self) -> Job | None:
        return self.answers.job

    @property
    def warm_up_job(self) -> Job | None:
        return self.answers.warm_up_job

    def add_paths(self, paths: list[Path], password: str | None = None) -> IngestJob | None:
        return self.ingest.add_paths(paths, password)

    def open_paths(self, paths: list[Path]) -> IngestJob | None:
        """File → Open and ``pagewise FILE.pdf``: added like any other; a file is shown when it is
        ready only if no other document is selected by then."""
        return self.ingest.add_paths(paths)

    def select_document(self, doc_id: str | None) -> None:
        self.documents.select(doc_id)

    def remove_document(self, key: str) -> None:
        self.documents.remove(key)

    def ask(self, question: str) -> Job | None:
        return self.answers.ask(question)

    def summarize(self) -> Job | None:
        return self.summaries.summarize()

    def show_citation(self, citation: CitationView) -> None:
        self.citations.show(citation)

    def open_settings(self) -> SettingsDialog:
        return self.model_setup.open_settings()

    MINIMUM_SIZE = (900, 560)
    DEFAULT_SIZE = (1360, 860)
    FRAME_ROOM = (16, 48)  # the window manager's frame and title bar, outside the window's geometry

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.wide_tabs.window_resized()  # made narrower with the Review tab open

    def fit_screen(self) -> None:
        """The minimum and the size within the screen's free area, frame included (walk
        2026-12-05: with QT_SCALE_FACTOR=2 on a 1920×1080 screen the window opened taller than
        the screen, its status bar below it)."""
        # The screen the window is on (a restored geometry may be on a second monitor), else its own.
        screen = QGuiApplication.screenAt(self.frameGeometry().center()) or self.screen()
        if screen is None:
            return
        free = screen.availableGeometry()
        room = (max(320, free.width() - self.FRAME_ROOM[0]), max(240, free.height() - self.FRAME_ROOM[1]))
        self.setMinimumSize(min(self.MINIMUM_SIZE[0], room[0]), min(self.MINIMUM_SIZE[1], room[1]))
        if self.width() > room[0] or self.height() > room[1]:
            self.resize(min(self.width(), room[0]), min(self.height(), room[1]))
        frame = self.frameGeometry()
        if not free.contains(frame):  # moved back on the screen, its title bar first
            self.move(max(free.left(), min(frame.left(), free.right() - frame.width())),
                      max(free.top(), min(frame.top(), free.bottom() - frame.height())))  # fmt: skip

    # --- state ---------------------------------------------------------------------------

    def restore_state(self) -> None:
        geometry = self.window_state.value("geometry")
        if isinstance(geometry, QByteArray):
            self.restoreGeometry(geometry)
        else:
            self.resize(*self.DEFAULT_SIZE)
        self.fit_screen()
        splitter = self.window_state.value("splitter")
        if isinstance(splitter, QByteArray):
            self.splitter.restoreState(splitter)
        selected = self.window_state.value("selected_doc")
        if isinstance(selected, str) and selected:
            self.documents.restore(selected)
        self.reviews.restore_side()

    def save_state(self) -> None:
        self.window_state.setValue("geometry", self.saveGeometry())
        self.window_state.setValue("splitter", self.splitter.saveState())
        self.window_state.setValue("selected_doc", self.doc_id or "")
        self.window_state.setValue("review_side", self.review.side_text())
        self.window_state.sync()

    def closeEvent(self, event: QCloseEvent) -> None:
        running = self.runner.busy_with()
        if running and not self.confirm_close(running):
            event.ignore()
            return
        self.save_state()
        self.shutdown()
        super().closeEvent(event)

    def _confirm_close_dialog(self, running: list[str]) -> bool:
        answer = QMessageBox.question(
            self,
            "Quit Pagewise?",
            quit_question(running),
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Cancel,
        )
        return answer == QMessageBox.StandardButton.Yes

    def shutdown(self) -> None:
        self.runner.shutdown()
        self.session.close()
        self.library.close()
        self.worker_library.close()  # the LLM thread has ended: its connection goes too

    # --- dialogs -------------------------------------------------------------------------

    def open_dialog(self) -> None:
        files = file_dialogs.open_files(
            self, "pdf", "Add PDF or Word files", "PDF and Word files (*.pdf *.docx *.docm *.dotx)"
        )
        self.open_paths([Path(f) for f in files])

    def open_folder_dialog(self) -> None:
        folder = file_dialogs.open_folder(self, "pdf", "Add a folder of PDF or Word files")
        if folder:
            self.add_paths([Path(folder)])

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

    def about_text(self) -> str:
        return (
            f"<b>Pagewise {version()}</b><br>Ask questions about long PDFs with a local language model; "
            "answers cite their pages.<br><br>"
            "<b>Models that ship with Pagewise</b><br>"
            "Passage vectors: Pagewise's own clause embedder, all-MiniLM-L6-v2 (sentence-transformers, "
            "Apache-2.0) fine-tuned as a bi-encoder. Its model card: assets/models/clause-embedder/MODEL_CARD.md.<br>"
            "Clause ranker: Pagewise's own cross-encoder, fine-tuned from all-MiniLM-L6-v2 (Apache-2.0). "
            "Its model card: assets/models/clause-ranker/MODEL_CARD.md.<br>"
            "Both were trained on the Contract Understanding Atticus Dataset (CUAD v1, The Atticus Project, "
            "CC BY 4.0; Hendrycks, Burns, Chen and Ball, 2021).<br>"
            "Scanned pages: RapidOCR's PP-OCR models (Apache-2.0) on ONNX Runtime."
        )

    def about(self) -> None:
        QMessageBox.about(self, "About Pagewise", self.about_text())


def quit_question(running: list[str]) -> str:
    """What quitting during ``running`` (``JobRunner.busy_with``) stops, and what it keeps: an
    answer being written is lost (walk 2026-12-05: "Nothing is lost" was said over one)."""
    kept = ("a document being added continues where it stopped when you add it again (or Reindex at the next "
            "start), and finished summaries and review answers are kept.")  # fmt: skip
    if "answering" in running:
        note = f"The answer being written is lost: ask again after the restart. The rest is kept: {kept}"
    else:
        note = f"Nothing is lost: {kept}"
    return f"Pagewise is {' and '.join(running)}. Quit anyway?\n\n{note}"

"""The model: the status line's plan, the settings dialog, choosing or downloading a model
file, loading it in the background when the window opens, and restarting a model whose worker
died. Download and restart share the activity line; the background load has its own words in
the status bar ("loading model… step 2 of 3 · loading X.gguf · 12 s"), and a question asked
meanwhile queues behind it on the LLM thread (``AnswerController`` shows the load's progress in
the conversation while it waits)."""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QWidget

from app.controllers.context import JobContext, UsesJobContext
from app.jobs.runner import Job
from app.services.api_key import store_key
from app.services.settings import ENVIRONMENT, Settings
from app.views.settings_dialog import SettingsDialog
from app.views.welcome import WelcomePanel
from app.widgets import file_dialogs
from app.widgets.job_progress import JobProgress
from inference.engines.engine import LoadReport
from inference.errors import PagewiseError
from inference.progress import Progress
from summarizer.llm.model_identity import hash_in_background

MODEL_KEYS = ("model_path", "remote_url", "vram_budget", "context_size", "kv_type", "gpu_layers")
"""The settings that choose the model and its plan."""


class ModelSetupController(UsesJobContext, QObject):
    settings_applied = Signal()  # saved settings are in force (the embedding model may have changed)

    def __init__(
        self,
        context: JobContext,
        settings: Settings,
        welcome: WelcomePanel,
        activity: JobProgress,
        recommended: tuple[str, Any | None],
        parent: QWidget,
    ) -> None:
        super().__init__(parent)
        self.context = context
        self.settings = settings
        self.welcome = welcome
        self.activity = activity
        self.recommended_label, self.recommended_entry = recommended
        self.window = parent
        self.activity_job: Job | None = None
        self._replaced: LoadReport | None = None  # the load that the settings have replaced since
        self.load_job: Job | None = None  # the background load started when the window opened
        self._load_text = ""
        self._load_started = 0.0
        self._load_clock = QTimer(self)  # the seconds so far tick while a load step takes long
        self._load_clock.setInterval(1000)
        self._load_clock.timeout.connect(self._show_load)
        welcome.choose_file.connect(self.choose_model_file)
        welcome.download.connect(self.download_recommended)
        activity.cancel_requested.connect(self.cancel_activity)

    def refresh_plan_line(self) -> None:
        """The status line names the model in force: the loaded one, unless the settings chose
        another since (that one loads with the next question)."""
        session = self.session
        loaded = session.loaded and session.preview is not None and session.report is not self._replaced
        self.welcome.setVisible(not (self.settings.model_configured or session.loaded))
        if loaded and session.preview is not None:
            backend = session.report.backend if session.report else ""
            plan = session.preview.plan
            if plan is not None and plan.n_gpu_layers == 0 and backend.lower().startswith("cpu"):
                backend = ""  # the summary says "CPU only" already
            self.status.set_plan(f"{session.preview.summary}" + (f" · {backend}" if backend else ""))
        elif self.settings.model_configured or session.loaded:
            chosen = session.plan_preview()
            self.status.set_plan(chosen.summary + (" — not loaded yet" if chosen.ok else f" — {chosen.problem}"))
            loaded = chosen.ok
        else:
            self.status.set_plan("No model configured · documents can still be added and searched")
        if loaded:
            self.messages.resolve("model")  # "Asking needs a language model…" no longer holds

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

    # Settings

    def open_settings(self) -> SettingsDialog:
        dialog = SettingsDialog(
            self.settings.values(),
            recommended=self.recommended_label,
            parent=self.window,
            stale_summaries=self.summaries_to_redo,
        )

        def download() -> None:  # the dialog stays open with its edits; the model fills its field
            job = self.download_recommended()
            if job is None:
                dialog.download_finished(None)
                return
            job.succeeded.connect(lambda path: dialog.download_finished(str(path)))
            job.failed.connect(lambda error: dialog.download_finished(None, str(error) or type(error).__name__))
            job.cancelled.connect(lambda: dialog.download_finished(None, "it was stopped."))

        dialog.download_requested.connect(download)
        dialog.accepted.connect(lambda: self.apply_settings(dialog.values(), api_key=dialog.api_key_change()))
        dialog.open()
        return dialog

    def summaries_to_redo(self, values: Mapping[str, Any], n_ctx: int) -> int:
        """How many documents' stored summaries by the model file ``values`` name (or
        $PAGEWISE_MODEL) a context of ``n_ctx`` tokens makes again; 0 for a model never hashed
        here (it has no summaries) or a server."""
        from summarizer.llm.model_identity import known_model_sha256
        from summarizer.summaries.context_reuse import summaries_to_redo

        path = os.environ.get(ENVIRONMENT["model_path"]) or str(values.get("model_path") or "")
        sha = known_model_sha256(self.library, path) if path else None
        return len(summaries_to_redo(self.library, model_sha256=sha, n_ctx=n_ctx)) if sha else 0

    def apply_settings(self, values: dict[str, Any], api_key: tuple[str, str] | None = None) -> bool:
        """Check, save and apply ``values``; ``api_key``: (server URL, key) for the keyring, the
        key "" to remove the kept one (``SettingsDialog.api_key_change``)."""
        before = self.settings["data_folder"]
        model_before = [self.settings.effective(key) for key in MODEL_KEYS]
        try:
            self.settings.update(values)
            self.settings.save()
        except (PagewiseError, OSError) as error:
            typed = error if isinstance(error, PagewiseError) else PagewiseError(str(error))
            self.messages.report(typed, key="settings")
            return False
        self.messages.resolve("settings")
        key_changed = api_key is not None and self._store_api_key(*api_key)
        if values.get("model_path") or values.get("remote_url"):
            self.messages.resolve("download")  # a model was chosen: a failed download no longer matters
        self.session.configure(self.settings.effective_values())
        if key_changed:
            self.session.reconnect()
        model_changed = model_before != [self.settings.effective(key) for key in MODEL_KEYS]
        if self.session.loaded and (model_changed or (key_changed and self.settings.effective("remote_url"))):
            self._replaced = self.session.report
        self.runner.embedding_model = self.settings["embedding_model"]
        if self.settings["data_folder"] != before:
            self.messages.info("The new data folder is used from the next start of Pagewise.")
        self.refresh_plan_line()
        self.settings_applied.emit()
        return api_key is None or key_changed

    def _store_api_key(self, url: str, key: str) -> bool:
        """Keep (or, key "", remove) the server's key in the keyring; a keyring that fails is
        reported and loses only the key, the settings are saved already."""
        try:
            store_key(url, key)
        except PagewiseError as error:
            self.messages.report(error, key="api-key")
            return False
        self.messages.resolve("api-key")
        return True

    def choose_model_file(self) -> None:
        """The welcome panel's and the Model menu's choice: checked (a GGUF file) before it is saved."""
        path = file_dialogs.open_file(self.window, "model", "Choose a GGUF model", "GGUF models (*.gguf)")
        if path:
            self.apply_settings({"model_path": path})

    # Loading when the window opens

    def load_in_background(self) -> Job | None:
        """Start loading the configured local model on the LLM thread, so that the first question
        finds it loaded. Only where the setting ``load_model_at_start`` is on, a model file is
        configured (a server is not: connecting is quick), its plan is sound and nothing has
        loaded it yet. The window calls this after its first paint: the plan is read and the
        worker started off the GUI thread, and nothing here delays the window."""
        if self.runner.stopped or self.load_job is not None or self.session.loaded:
            return None
        if not self.settings.effective("load_model_at_start"):
            return None
        if not self.settings.effective("model_path") or self.settings.effective("remote_url"):
            return None
        if self.model_missing("Loading"):  # a plan problem: the status line says it already
            return None

        library_file = self.library.path
        model_file = str(self.settings.effective("model_path"))

        def run(job: Job) -> LoadReport | None:
            # The key of stored summaries is the model file's sha256, hashed once per file and then
            # kept in the library. It is hashed here in its own thread, beside the load and after
            # it, so that neither the load nor a first question waits for it (issue 47, on the GPU
            # machine: 4.9 GB took ~10 s; a question asked 5 s after opening waited 5.2 s, then 6.6 s
            # when the load job joined the hash). A question reads stored summaries by
            # ``lookup_identity``, which needs the digest only where one may match; a summary made
            # meanwhile waits for this digest (``model_sha256`` reads a file once).
            hash_in_background(library_file, model_file, job.token)
            self.session.ensure_loaded(job.report, job.token)
            return self.session.report

        job = self.runner.submit_llm("load-model", run, on_cancel=self.session.cancel)
        self.load_job = job
        self._load_started = time.monotonic()
        self._load_text = "loading model…"
        self._show_load()
        self._load_clock.start()
        job.progressed.connect(self._load_progressed)
        job.failed.connect(lambda error: self.messages.report(error, "loading the model", key="model-load"))
        job.finished.connect(self._load_finished)
        return job

    def model_loading(self) -> Job | None:
        """The background load, while it has not finished (a question waits for it)."""
        job = self.load_job
        return job if job is not None and not job.done else None

    def _load_progressed(self, progress: Progress) -> None:
        going = progress.total and progress.done < progress.total
        steps = f" step {progress.done + 1} of {progress.total}" if going else ""
        self._load_text = f"loading model…{steps}" + (f" · {progress.message}" if progress.message else "")
        self._show_load()

    def _show_load(self) -> None:
        seconds = round(time.monotonic() - self._load_started)
        self.status.set_model_loading(self._load_text + (f" · {seconds} s" if seconds >= 2 else ""))

    def _load_finished(self) -> None:
        self.load_job = None
        self._load_clock.stop()
        self.status.set_model_loading("")
        self.refresh_plan_line()

    # Jobs on the activity line

    def download_recommended(self) -> Job | None:
        entry = self.recommended_entry
        if entry is None:
            return None
        self.activity.start(f"Downloading {self.recommended_label}…")

        def run(job: Job) -> Path:
            from inference.models.download import download_model
            from inference.planning.gguf_info import read_gguf_info

            def check(path: Path) -> None:
                read_gguf_info(path)  # raises ModelError for a file llama.cpp could not load

            result = download_model(entry, progress=job.report, cancel=job.token, check_gguf=check)
            return Path(result.path)

        job = self._on_activity_line(self.runner.submit_llm("download", run), "downloading the model", "download")
        job.succeeded.connect(lambda path: self.apply_settings({"model_path": str(path)}))
        return job

    def restart_model(self) -> Job:
        self.activity.start("Restarting the model…")

        def run(job: Job) -> Any:
            return self.session.restart(job.report, job.token)

        job = self._on_activity_line(self.runner.submit_llm("restart", run), "restarting the model")
        job.succeeded.connect(lambda _r: self.messages.info("The model was restarted. Your conversation is kept."))
        return job

    def _on_activity_line(self, job: Job, doing: str, key: str = "") -> Job:
        self.activity_job = job
        job.progressed.connect(self.activity.update_progress)
        job.failed.connect(lambda error: self.messages.report(error, doing, key=key))
        job.finished.connect(self._activity_finished)
        return job

    def _activity_finished(self) -> None:
        self.activity_job = None
        self.activity.stop()
        self.refresh_plan_line()

    def cancel_activity(self) -> None:
        if self.activity_job is not None:
            self.activity_job.cancel()

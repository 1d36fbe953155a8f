"""The settings dialog, built from ``app.services.settings.SCHEMA``, with a live plan preview.

Every change re-plans (debounced): the plan line and its predicted memory update as you
type, and settings that cannot be loaded say why and cannot be saved.

A context size the stored summaries do not fit is said under the plan (``stale_summaries``: how
many documents' summaries would be made again), before Save.

The remote server's API key is not a setting: its field, under the server's URL, goes to the OS
keyring on Save (``app.services.api_key``), never to settings.json, and is never shown back.
"""

from __future__ import annotations

import html
import os
from collections.abc import Callable, Mapping
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from app.services.api_key import ENV_API_KEY, KeySource, key_source
from app.services.load_planning import PlanPreview, preview
from app.services.settings import ENVIRONMENT, SCHEMA, Setting, validate
from app.widgets import file_dialogs
from app.widgets.focus_wheel import FocusWheelComboBox
from inference.engines.remote_http import cleartext_warning

BUDGET_CHOICES = ("auto", "8GiB", "11.5GiB", "12GiB", "16GiB", "24GiB")
LAYER_CHOICES = ("auto", "0")
PREVIEW_DELAY_MS = 250


def plain_text(description: str) -> str:
    """A description without its Markdown code marks (for a tooltip)."""
    return description.replace("`", "")


def rich_text(description: str) -> str:
    """A description as a label shows it: `code` in a fixed font, no backticks."""
    parts = html.escape(description).split("`")
    return "".join(f"<code>{part}</code>" if n % 2 else part for n, part in enumerate(parts))


def _context_label(value: int) -> str:
    return "auto" if value == 0 else f"{value // 1024}K"


StaleSummaries = Callable[[Mapping[str, Any], int], int]
"""How many documents' stored summaries, by the model these settings name, a context of that many
tokens cannot keep (``summarizer.summaries.context_reuse.summaries_to_redo``)."""


def stale_summaries_note(count: int) -> str:
    """What the dialog says when a new context makes ``count`` documents' summaries again."""
    if count <= 0:
        return ""
    if count == 1:
        return (
            "The stored summary of 1 document was made for a larger context: it will be made again at the next summary."
        )
    return (
        f"The stored summaries of {count} documents were made for a larger context: they will be made again at "
        "the next summary."
    )


class SettingsDialog(QDialog):
    download_requested = Signal()

    def __init__(
        self,
        values: Mapping[str, Any],
        planner: Callable[[Mapping[str, Any]], PlanPreview] = preview,
        recommended: str = "",
        parent: QWidget | None = None,
        stale_summaries: StaleSummaries | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Pagewise settings")
        self.setMinimumWidth(640)
        self.resize(760, 900)  # fitted to the screen when shown (showEvent)
        self._planner = planner
        self.stale_summaries = stale_summaries
        self._stale_counts: dict[tuple[str, int], int] = {}  # (model file, context): one library read each
        self._opened_context: int | None = None  # the context the settings had when the dialog opened
        self.editors: dict[str, QWidget] = {}
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        for setting in SCHEMA:
            editor = self._editor(setting, values.get(setting.key, setting.default))
            label = QLabel(setting.label)
            label.setToolTip(plain_text(setting.description))
            form.addRow(label, editor)
            hint = QLabel(rich_text(setting.description))
            hint.setTextFormat(Qt.TextFormat.RichText)
            hint.setWordWrap(True)
            hint.setProperty("class", "hint")
            hint.setStyleSheet("color: palette(placeholder-text); font-size: small;")
            form.addRow("", hint)
            if setting.key == "remote_url":
                self._add_api_key_rows(form)
        self.download_button: QPushButton | None = None
        if recommended:
            download = QPushButton(f"Download the recommended model: {recommended}")
            download.setToolTip("Downloads in the background; your changes here stay until you Save or Cancel")
            download.clicked.connect(self._download)
            form.addRow("", download)
            self.download_button = download
        # A failed download is said here, in the dialog the user is looking at (walk 2026-12-05:
        # it was said only in a banner behind the dialog).
        self.download_problem = QLabel("")
        self.download_problem.setObjectName("download-problem")
        self.download_problem.setWordWrap(True)
        self.download_problem.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.download_problem.hide()  # under the plan, outside the scrolled settings: always in view
        self.plan_label = QLabel("")
        self.plan_label.setObjectName("plan-preview")
        self.plan_label.setWordWrap(True)
        self.plan_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.memory_label = QLabel("")
        self.memory_label.setObjectName("plan-memory")
        self.problem_label = QLabel("")
        self.problem_label.setObjectName("plan-problem")
        self.problem_label.setWordWrap(True)
        dark = self.palette().window().color().lightness() < 128
        self.problem_label.setStyleSheet(f"color: {'#ff7b72' if dark else '#c62828'};")  # readable on both
        self.download_problem.setStyleSheet(self.problem_label.styleSheet())
        self.summaries_label = QLabel("")
        self.summaries_label.setObjectName("plan-summaries")
        self.summaries_label.setWordWrap(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        plan_box = QVBoxLayout()
        plan_title = QLabel("<b>Plan</b> (how the model will be loaded)")
        plan_box.addWidget(plan_title)
        plan_box.addWidget(self.plan_label)
        plan_box.addWidget(self.memory_label)
        plan_box.addWidget(self.problem_label)
        plan_box.addWidget(self.summaries_label)
        plan_box.addWidget(self.download_problem)
        # The settings scroll when the screen is short: their help lines are never squeezed away.
        fields = QWidget()
        fields.setLayout(form)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(fields)
        layout = QVBoxLayout(self)
        layout.addWidget(scroll, 1)
        layout.addSpacing(8)
        layout.addLayout(plan_box)
        layout.addWidget(self.buttons)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(PREVIEW_DELAY_MS)
        self._timer.timeout.connect(self.refresh)
        self.current: PlanPreview | None = None
        self.problems: dict[str, str] = {}
        self.refresh()

    def _download(self) -> None:
        if self.download_button is not None:
            self.download_button.setEnabled(False)
            self.download_button.setText("Downloading the recommended model… (progress in the status bar)")
        self.download_problem.hide()
        self.download_requested.emit()

    def download_finished(self, path: str | None, problem: str = "") -> None:
        """The download ended: its model becomes this dialog's model file (``None``: it did not
        finish, ``problem`` says why)."""
        if path:
            self.set_value("model_path", path)
        if self.download_button is not None:
            self.download_button.setEnabled(not path)
            self.download_button.setText("Downloaded" if path else "Download the recommended model again")
        self.download_problem.setText(f"The download did not finish: {problem}" if problem and not path else "")
        self.download_problem.setVisible(bool(problem) and not path)

    # Editors

    def _editor(self, setting: Setting, value: Any) -> QWidget:
        if setting.kind == "check":
            check = QCheckBox()
            check.setObjectName(setting.key)
            check.setChecked(bool(value))
            check.toggled.connect(self._changed)
            self.editors[setting.key] = check
            return check
        if setting.kind in ("file", "folder"):
            line = QLineEdit(str(value))
            line.setObjectName(setting.key)
            line.textChanged.connect(self._changed)
            browse = QPushButton("Browse…")
            browse.clicked.connect(lambda: self._browse(setting, line))
            box = QWidget()
            row = QHBoxLayout(box)
            row.setContentsMargins(0, 0, 0, 0)
            row.addWidget(line, 1)
            row.addWidget(browse)
            self.editors[setting.key] = line
            return box
        if setting.kind in ("budget", "layers", "choice"):
            combo = FocusWheelComboBox()  # a wheel over the form scrolls it, never changes a value
            combo.setObjectName(setting.key)
            if setting.kind == "budget":
                combo.setEditable(True)
                combo.addItems(list(BUDGET_CHOICES))
                combo.setCurrentText(str(value))
            elif setting.kind == "layers":
                combo.setEditable(True)
                combo.addItems(list(LAYER_CHOICES))
                combo.setCurrentText(str(value))
            else:
                for choice in setting.choices:
                    combo.addItem(_context_label(choice) if isinstance(choice, int) else str(choice), choice)
                index = combo.findData(value)
                combo.setCurrentIndex(max(0, index))
            combo.currentTextChanged.connect(self._changed)
            self.editors[setting.key] = combo
            return combo
        line = QLineEdit(str(value))
        line.setObjectName(setting.key)
        line.textChanged.connect(self._changed)
        self.editors[setting.key] = line
        return line

    def _add_api_key_rows(self, form: QFormLayout) -> None:
        self.api_key_edit = QLineEdit()
        self.api_key_edit.setObjectName("api_key")
        self.api_key_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.api_key_edit.textChanged.connect(self._changed)
        self.forget_key_button = QPushButton("Forget")
        self.forget_key_button.setToolTip("Remove this server's key from the keyring on Save")
        self.forget_key_button.clicked.connect(self._forget_key)
        box = QWidget()
        row = QHBoxLayout(box)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.api_key_edit, 1)
        row.addWidget(self.forget_key_button)
        label = QLabel("API key")
        label.setToolTip("Sent to the remote server as a Bearer token (its --api-key)")
        form.addRow(label, box)
        self.api_key_hint = QLabel("")
        self.api_key_hint.setObjectName("api-key-hint")
        self.api_key_hint.setWordWrap(True)
        self.api_key_hint.setProperty("class", "hint")
        self.api_key_hint.setStyleSheet("color: palette(placeholder-text); font-size: small;")
        form.addRow("", self.api_key_hint)
        self._key_url: str | None = None  # the server the field's state was read for
        self._key_source = KeySource.NONE
        self._forget = False

    def key_url(self) -> str:
        """The server a key typed here is for: the URL field, else $PAGEWISE_REMOTE_URL."""
        return str(self.values().get("remote_url") or os.environ.get(ENVIRONMENT["remote_url"], "")).strip()

    def _refresh_api_key(self) -> None:
        url = self.key_url()
        if url != self._key_url:  # one keyring read per server, not one per keystroke
            self._key_url, self._key_source, self._forget = url, key_source(url), False
        source = self._key_source
        edit = self.api_key_edit
        edit.setEnabled(source not in (KeySource.ENVIRONMENT, KeySource.NO_KEYRING) and bool(url))
        self.forget_key_button.setEnabled(source is KeySource.KEYRING and not self._forget)
        if source is KeySource.ENVIRONMENT:
            edit.setPlaceholderText(f"key from {ENV_API_KEY}")
            hint = f"The key in {ENV_API_KEY} is sent to the server; unset it to use one kept in the keyring."
        elif source is KeySource.NO_KEYRING:
            edit.setPlaceholderText("no keyring on this system")
            hint = (
                "This system has no keyring to keep an API key in (on Linux: a Secret Service such as "
                f"GNOME Keyring or KWallet). Set the {ENV_API_KEY} environment variable instead."
            )
        elif not url:
            edit.setPlaceholderText("")
            hint = "The server's API key, if it asks for one (started with --api-key): enter its URL first."
        else:
            if self._forget:
                edit.setPlaceholderText("none (the kept key is removed on Save)")
            elif source is KeySource.KEYRING:
                edit.setPlaceholderText("kept in the keyring (type a new one to replace it)")
            else:
                edit.setPlaceholderText("none")
            hint = (
                "The server's API key, if it asks for one (llama-server or vLLM started with --api-key); sent "
                "as a Bearer token to this server only. Kept in the OS keyring, never in settings.json."
            )
        if url and (warning := cleartext_warning(url)):
            hint = f"<b>Warning:</b> {html.escape(warning)}<br>{html.escape(hint)}"
        self.api_key_hint.setText(hint)

    def _forget_key(self) -> None:
        self._forget = True
        self.api_key_edit.clear()
        self._refresh_api_key()

    def api_key_change(self) -> tuple[str, str] | None:
        """(server URL, key) to keep in the keyring on Save, with key "" to remove the kept one;
        None: leave the keyring as it is."""
        if not self.api_key_edit.isEnabled():
            return None
        key = self.api_key_edit.text().strip()
        if key:
            return self.key_url(), key
        return (self.key_url(), "") if self._forget else None

    def _browse(self, setting: Setting, line: QLineEdit) -> None:
        if setting.kind == "file":
            path = file_dialogs.open_file(self, "model", "Choose a GGUF model", "GGUF models (*.gguf)", line.text())
        else:
            path = file_dialogs.open_folder(self, "data", "Choose the data folder", line.text())
        if path:
            line.setText(path)

    def values(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for setting in SCHEMA:
            editor = self.editors[setting.key]
            if isinstance(editor, QComboBox):
                if setting.kind == "choice":
                    data = editor.currentData()
                    out[setting.key] = data if data is not None else editor.currentText()
                else:
                    out[setting.key] = editor.currentText().strip()
            elif isinstance(editor, QLineEdit):
                out[setting.key] = editor.text().strip()
            elif isinstance(editor, QCheckBox):
                out[setting.key] = editor.isChecked()
        return out

    def set_value(self, key: str, value: Any) -> None:
        editor = self.editors[key]
        if isinstance(editor, QComboBox):
            index = editor.findData(value)
            if index >= 0:
                editor.setCurrentIndex(index)
            else:
                editor.setCurrentText(str(value))
        elif isinstance(editor, QLineEdit):
            editor.setText(str(value))
        elif isinstance(editor, QCheckBox):
            editor.setChecked(bool(value))
        self.refresh()

    # Preview

    def _changed(self, *_: object) -> None:
        self._timer.start()

    def refresh(self) -> None:
        self._refresh_api_key()
        values = self.values()
        self.problems = validate(values)
        if self.problems:
            first = next(iter(self.problems.values()))
            self.current = None
            self.plan_label.setText("—")
            self.memory_label.setText("")
            self.problem_label.setText(first)
        else:
            self.current = self._planner(values)
            note = self.current.note
            note = f" ({note})" if note and note not in self.current.summary else ""
            self.plan_label.setText(self.current.summary + note)
            plan = self.current.plan
            if plan is not None and plan.n_gpu_layers:
                p = plan.predicted
                gib = 1024**3
                self.memory_label.setText(
                    f"Predicted GPU memory: weights {p.weights_gpu / gib:.2f} + KV {p.kv_cache / gib:.2f} + "
                    f"compute {p.compute_buffers / gib:.2f} + CUDA {p.cuda_overhead / gib:.2f} = "
                    f"{p.total / gib:.2f} GiB"
                    + (f" of {plan.budget_bytes / gib:.2f} GiB budget" if plan.budget_bytes else "")
                )
            else:
                self.memory_label.setText("")
            configured = bool(values.get("model_path") or values.get("remote_url"))
            self.problem_label.setText(self.current.problem if configured else self.current.problem + "")
        self._refresh_summaries(values)
        save = self.buttons.button(QDialogButtonBox.StandardButton.Save)
        refused = self.refusal()
        save.setEnabled(refused is None)
        save.setToolTip(refused or "")

    def context(self, values: Mapping[str, Any]) -> int:
        """The context these settings load the model with (0: not known here; a server has its own)."""
        if self.current is None or self.current.remote_url or values.get("remote_url"):
            return 0
        if self.current.plan is not None:
            return self.current.plan.n_ctx
        value = values.get("context_size")
        return value if isinstance(value, int) else 0

    def _refresh_summaries(self, values: Mapping[str, Any]) -> None:
        """Say so when the context changed to one the stored summaries do not fit."""
        n_ctx = self.context(values)
        if self._opened_context is None:
            self._opened_context = n_ctx
        count = 0
        if self.stale_summaries is not None and n_ctx and n_ctx != self._opened_context:
            key = (str(values.get("model_path") or ""), n_ctx)
            if key not in self._stale_counts:
                self._stale_counts[key] = self.stale_summaries(values, n_ctx)
            count = self._stale_counts[key]
        self.summaries_label.setText(stale_summaries_note(count))

    def refusal(self) -> str | None:
        """Why these settings cannot be saved (None when they can)."""
        if self.problems:
            return next(iter(self.problems.values()))
        values = self.values()
        configured = bool(values.get("model_path") or values.get("remote_url"))
        if configured and self.current is not None and self.current.problem:
            return self.current.problem
        return None

    def showEvent(self, event: QShowEvent) -> None:
        """No taller than the screen it opens on."""
        screen = self.screen()
        if screen is not None:
            room = screen.availableGeometry().height() - 60
            if self.height() > room:
                self.resize(self.width(), max(room, 360))
        super().showEvent(event)

    def accept(self) -> None:
        self._timer.stop()
        self.refresh()
        if self.refusal() is None:
            super().accept()

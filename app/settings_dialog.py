"""The settings dialog, built from ``app.settings.SCHEMA``, with a live plan preview.

Every change re-plans (debounced): the plan line and its predicted memory update as you
type, and settings that cannot be loaded say why and cannot be saved.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app import file_dialogs
from app.planning import PlanPreview, preview
from app.settings import SCHEMA, Setting, validate

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


class SettingsDialog(QDialog):
    download_requested = Signal()

    def __init__(
        self,
        values: Mapping[str, Any],
        planner: Callable[[Mapping[str, Any]], PlanPreview] = preview,
        recommended: str = "",
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Pagewise settings")
        self.setMinimumWidth(640)
        self._planner = planner
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
        self.download_button: QPushButton | None = None
        if recommended:
            download = QPushButton(f"Download the recommended model: {recommended}")
            download.setToolTip("Downloads in the background; your changes here stay until you Save or Cancel")
            download.clicked.connect(self._download)
            form.addRow("", download)
            self.download_button = download
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
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        plan_box = QVBoxLayout()
        plan_title = QLabel("<b>Plan</b> (how the model will be loaded)")
        plan_box.addWidget(plan_title)
        plan_box.addWidget(self.plan_label)
        plan_box.addWidget(self.memory_label)
        plan_box.addWidget(self.problem_label)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
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
        self.download_requested.emit()

    def download_finished(self, path: str | None) -> None:
        """The download ended: its model becomes this dialog's model file (``None``: it failed)."""
        if path:
            self.set_value("model_path", path)
        if self.download_button is not None:
            self.download_button.setEnabled(not path)
            self.download_button.setText("Downloaded" if path else "Download the recommended model again")

    # Editors

    def _editor(self, setting: Setting, value: Any) -> QWidget:
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
            combo = QComboBox()
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
        self.refresh()

    # Preview

    def _changed(self, *_: object) -> None:
        self._timer.start()

    def refresh(self) -> None:
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
        save = self.buttons.button(QDialogButtonBox.StandardButton.Save)
        refused = self.refusal()
        save.setEnabled(refused is None)
        save.setToolTip(refused or "")

    def refusal(self) -> str | None:
        """Why these settings cannot be saved (None when they can)."""
        if self.problems:
            return next(iter(self.problems.values()))
        values = self.values()
        configured = bool(values.get("model_path") or values.get("remote_url"))
        if configured and self.current is not None and self.current.problem:
            return self.current.problem
        return None

    def accept(self) -> None:
        self._timer.stop()
        self.refresh()
        if self.refusal() is None:
            super().accept()

"""The status bar: a live VRAM gauge, tokens/s (running and last), the active plan, and "CPU only"
when this build's GPU support cannot be used (no NVIDIA driver)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QLabel, QProgressBar, QStatusBar, QWidget

from app.widgets.elided_label import ElidedLabel
from inference.telemetry import GpuSample

GIB = 1024**3
REFRESH_MS = 500
# The pieces right of the plan, each set apart by a thin rule (they ran together: "…goes first
# generating 13.8 tok/s", walk 2026-12-05 finding 19); a hidden piece draws nothing.
PIECE_STYLE = "QLabel { border-left: 1px solid palette(mid); padding-left: 8px; margin-left: 6px; }"


class StatusBar(QStatusBar):
    """``sample_source`` returns the telemetry's latest sample (None: no GPU); ``no_gpu_reason``
    is shown instead of the gauge when there is no NVIDIA GPU. ``gpu_notice`` says why the GPU
    cannot be used (``inference.planning.gpu_budget.gpu_unavailable_notice``): "CPU only" is shown, the
    notice in its tooltip and in the plan's, in place of "no NVIDIA GPU"."""

    def __init__(
        self,
        sample_source: Callable[[], GpuSample | None] | None,
        no_gpu_reason: str = "no NVIDIA GPU",
        parent: QWidget | None = None,
        gpu_notice: str | None = None,
    ) -> None:
        super().__init__(parent)
        self._source = sample_source
        self.gpu_notice = gpu_notice
        self.plan_label = ElidedLabel("No model")
        self.plan_label.setObjectName("plan-line")
        self.speed_label = QLabel("")
        self.speed_label.setObjectName("tokens-per-second")
        self.vram = QProgressBar()
        self.vram.setObjectName("vram-gauge")
        self.vram.setMaximumWidth(220)
        self.vram.setMinimumWidth(160)
        self.vram.setRange(0, 1000)
        self.vram.setFormat("VRAM")
        self.no_gpu = QLabel(no_gpu_reason if sample_source is None else "")
        self.no_gpu.setObjectName("no-gpu")
        self.no_gpu.setToolTip(no_gpu_reason)
        self.cpu_only = QLabel("CPU only")
        self.cpu_only.setObjectName("cpu-only")
        self.cpu_only.setToolTip(f"Models run on the CPU: {gpu_notice}." if gpu_notice else "")
        self.model_loading = QLabel("")
        self.model_loading.setObjectName("model-loading")
        self.model_loading.setToolTip("The model loads in the background; a question asked now waits for it")
        self.model_loading.hide()
        self.background = QLabel("")
        self.background.setObjectName("background-work")
        self.background.setToolTip("Summaries are made while Pagewise is idle; questions never wait for them")
        self.background.hide()
        for piece in (self.background, self.speed_label, self.no_gpu, self.cpu_only):
            piece.setStyleSheet(PIECE_STYLE)
        self.speed_label.hide()  # until there is a rate to show
        self.addWidget(self.plan_label, 1)
        self.addPermanentWidget(self.model_loading)
        self.addPermanentWidget(self.background)
        self.addPermanentWidget(self.speed_label)
        self.addPermanentWidget(self.vram)
        self.addPermanentWidget(self.no_gpu)
        self.addPermanentWidget(self.cpu_only)
        self.vram.setVisible(sample_source is not None)
        self.no_gpu.setVisible(sample_source is None and not gpu_notice)
        self.cpu_only.setVisible(bool(gpu_notice))
        if sample_source is None:
            self.no_gpu.setText("no NVIDIA GPU")
        self.last_rate: float | None = None
        self.running_rate: float | None = None
        self._timer = QTimer(self)
        self._timer.setInterval(REFRESH_MS)
        self._timer.timeout.connect(self.refresh_vram)
        if sample_source is not None:
            self._timer.start()

    def set_plan(self, text: str) -> None:
        self.plan_label.setText(text)
        notice = f"\nModels run on the CPU: {self.gpu_notice}." if self.gpu_notice else ""
        self.plan_label.setToolTip(text + notice)

    def set_background(self, text: str) -> None:
        """What runs in the background ("summarizing franchise-115p in the background, 3/12 ·
        ~4 min left"); "" hides it."""
        self.background.setText(text)
        self.background.setVisible(bool(text))

    def set_model_loading(self, text: str) -> None:
        """How far the model's load is ("loading model… step 2 of 3 · loading llama-3.1-8b.gguf · 4 s");
        "" hides it."""
        self.model_loading.setText(text)
        self.model_loading.setVisible(bool(text))

    def set_running_rate(self, rate: float | None) -> None:
        self.running_rate = rate
        self._show_speed()

    def set_last_rate(self, rate: float | None) -> None:
        self.last_rate = rate
        self.running_rate = None
        self._show_speed()

    def _show_speed(self) -> None:
        parts = []
        if self.running_rate is not None:
            parts.append(f"generating {self.running_rate:.1f} tok/s")
        if self.last_rate:
            parts.append(f"last {self.last_rate:.1f} tok/s")
        self.speed_label.setText(" · ".join(parts))
        self.speed_label.setVisible(bool(parts))

    def refresh_vram(self) -> None:
        if self._source is None:
            return
        sample = self._source()
        if sample is None:
            return
        total = max(1, sample.total_bytes)
        self.vram.setValue(int(1000 * sample.used_bytes / total))
        text = f"VRAM {sample.used_bytes / GIB:.1f}/{total / GIB:.1f} GiB"
        if sample.app_bytes is not None:
            text += f" · app {sample.app_bytes / GIB:.1f}" + ("~" if sample.app_bytes_estimated else "")
        self.vram.setFormat(text)
        self.vram.setToolTip(
            f"{sample.name}: {sample.used_bytes / GIB:.2f} GiB used of {total / GIB:.2f} GiB"
            + (f"; Pagewise {sample.app_bytes / GIB:.2f} GiB" if sample.app_bytes is not None else "")
        )

"""First run: no model configured yet. Offers to pick a GGUF file or download the
recommended model for this computer (a small one without a graphics card); documents can be
added and searched meanwhile."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QBoxLayout, QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

if TYPE_CHECKING:
    from inference.models.catalog import CatalogEntry


def recommended_model(vram_bytes: int | None) -> tuple[str, CatalogEntry]:
    """A label and the catalog entry recommended here: by the GPU's memory; without a usable GPU
    (``vram_bytes`` None) or below 8 GB, the small model for the CPU."""
    from inference.models.catalog import recommended

    entry = recommended(vram_bytes)
    return f"{entry.title} (~{entry.approx_size_gb:.1f} GB)", entry


def why_recommended(entry: CatalogEntry, vram_bytes: int | None) -> str:
    """The welcome panel's sentence: which model, its size, and why this one."""
    from inference.models.catalog import CPU_TIER_GB

    what = f"Recommended: {entry.title}, a {entry.approx_size_gb:.1f} GB download"
    if entry.tier_gb != CPU_TIER_GB:
        return f"{what} that fits {entry.tier_gb} GB of GPU memory."
    if vram_bytes:
        return f"{what}: a small model, as this GPU has less than the 8 GB the larger ones need."
    return f"{what}: a small model for a computer without a graphics card, where larger ones answer very slowly."


class WelcomePanel(QFrame):
    choose_file = Signal()
    download = Signal()

    def __init__(self, recommended: str, gpu_text: str, why: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("welcome")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        title = QLabel("<h3>Welcome to Pagewise</h3>")
        body = QLabel(
            "To ask questions, Pagewise needs a language model (a GGUF file) that runs on this computer. "
            f"{gpu_text} {why + ' ' if why else ''}You can add and search documents right away."
        )
        body.setWordWrap(True)
        pick = QPushButton("Choose a GGUF file…")
        pick.clicked.connect(self.choose_file)
        self.buttons = buttons = QHBoxLayout()
        buttons.addWidget(pick)
        if recommended:
            fetch = QPushButton(f"Download {recommended}")
            fetch.setToolTip("Downloaded from Hugging Face and checked against its published sha256")
            fetch.clicked.connect(self.download)
            buttons.addWidget(fetch)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(title)
        layout.addWidget(body)
        layout.addLayout(buttons)

    def resizeEvent(self, event: QResizeEvent) -> None:
        """In a narrow window the buttons stand one above the other instead of being cut."""
        super().resizeEvent(event)
        side_by_side = QBoxLayout.Direction.LeftToRight
        self.buttons.setDirection(side_by_side)
        if self.buttons.sizeHint().width() > self.contentsRect().width() - 20:
            self.buttons.setDirection(QBoxLayout.Direction.TopToBottom)

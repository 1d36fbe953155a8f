"""First run: no model configured yet. Offers to pick a GGUF file or download the
recommended model for this GPU; documents can be added and searched meanwhile."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QBoxLayout, QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget


def recommended_model(vram_bytes: int | None) -> tuple[str, object | None]:
    """A label and the catalog entry recommended for this GPU (the 8 GB tier without one)."""
    from inference.models.catalog import best_tier, for_tier

    tier = best_tier(vram_bytes) if vram_bytes else None
    entries = for_tier(tier or 8)
    if not entries:
        return "", None
    entry = entries[0]
    return f"{entry.title} (~{entry.approx_size_gb:.1f} GB)", entry


class WelcomePanel(QFrame):
    choose_file = Signal()
    download = Signal()

    def __init__(self, recommended: str, gpu_text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("welcome")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        title = QLabel("<h3>Welcome to Pagewise</h3>")
        body = QLabel(
            "To ask questions, Pagewise needs a language model (a GGUF file) that runs on this computer. "
            f"{gpu_text} You can add and search documents right away."
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

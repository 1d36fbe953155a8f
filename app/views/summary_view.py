"""The Summary tab: the super-summary and each segment's summary with its page range."""

from __future__ import annotations

import contextlib

from PySide6.QtCore import QUrl, Signal
from PySide6.QtWidgets import QHBoxLayout, QPushButton, QTextBrowser, QVBoxLayout, QWidget

from app.services.answering import SummaryView
from app.widgets.job_progress import JobProgress
from summarizer.page_labels import unit_label


def summary_markdown(title: str, summary: SummaryView, links: bool = True) -> str:
    def pages(start: int, end: int) -> str:
        label = unit_label(start, end, word=summary.word)  # a Word document's "pages" are its paragraphs
        return f"[{label}](page:{start})" if links else label

    lines = [f"# {title}", "", "## Summary", "", summary.super_summary, "", "## By section", ""]
    for segment in summary.segments:
        lines += [f"**{pages(segment.page_start, segment.page_end)}** — {segment.text}", ""]
    return "\n".join(lines)


class SummaryPanel(QWidget):
    summarize_requested = Signal()
    cancel_requested = Signal()
    page_clicked = Signal(int)
    export_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.summary: SummaryView | None = None
        self.title = ""
        self.browser = QTextBrowser()
        self.browser.setObjectName("summary")
        self.browser.setOpenLinks(False)
        self.browser.anchorClicked.connect(self._anchor)
        self.summarize_button = QPushButton("Summarize")
        self.summarize_button.setToolTip("Summarize the document section by section, then as a whole")
        self.summarize_button.clicked.connect(self.summarize_requested)
        self.export_button = QPushButton("Export…")
        self.export_button.setToolTip("Save the summary as Markdown, with the pages (or paragraphs) of each part")
        self.export_button.clicked.connect(self.export_requested)
        self.progress = JobProgress("Stop summarizing")
        self.progress.cancel_requested.connect(self.cancel_requested)
        buttons = QHBoxLayout()
        buttons.addWidget(self.export_button)
        buttons.addStretch(1)
        buttons.addWidget(self.summarize_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.browser, 1)
        layout.addWidget(self.progress)
        layout.addLayout(buttons)
        self.set_summary(None, None)

    def set_summary(self, title: str | None, summary: SummaryView | None) -> None:
        self.title = title or ""
        self.summary = summary
        self.summarize_button.setEnabled(title is not None and summary is None)
        self.export_button.setEnabled(summary is not None)
        if summary is not None:
            self.browser.setMarkdown(summary_markdown(self.title, summary))
        elif title is not None:
            self.browser.setMarkdown(
                "*No summary yet.* **Summarize** reads the whole document once, section by section; "
                "the summary is kept, and later questions use it."
            )
        else:
            self.browser.setMarkdown("")

    def set_unavailable(self, title: str, reason: str) -> None:
        """A document that cannot be summarized: why, and no Summarize button to press."""
        self.set_summary(title, None)
        self.summarize_button.setEnabled(False)
        self.browser.setMarkdown(f"*{reason}*")

    def markdown(self) -> str:
        return summary_markdown(self.title, self.summary, links=False) if self.summary else ""

    def _anchor(self, url: QUrl) -> None:
        if url.scheme() == "page":
            with contextlib.suppress(ValueError):
                self.page_clicked.emit(int(url.path()))

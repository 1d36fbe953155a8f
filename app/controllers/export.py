"""Markdown copies: the last answer to the clipboard, the conversation or the summary to a file."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QWidget

from app.services import answering
from app.views.conversation_view import ConversationView, library_turns_markdown
from app.views.summary_view import SummaryPanel
from app.widgets import file_dialogs
from app.widgets.messages import MessageCenter


class ExportController:
    def __init__(
        self,
        parent: QWidget,
        conversation: ConversationView,
        summary: SummaryPanel,
        messages: MessageCenter,
        document_title: Callable[[], str],
    ) -> None:
        self.parent = parent
        self.conversation = conversation
        self.summary = summary
        self.messages = messages
        self.document_title = document_title
        self.choose_path: Callable[[str], str] = self._save_dialog
        conversation.export_requested.connect(self.export_conversation)
        conversation.copy_button.clicked.connect(self.copy_answer)
        summary.export_requested.connect(self.export_summary)

    def copy_answer(self) -> None:
        if not self.conversation.turns:
            return
        title = self.document_title() or "Pagewise answer"
        QGuiApplication.clipboard().setText(
            answering.to_markdown(title, self.conversation.turns[-1:], header=False, word=self.conversation.word)
        )
        self.messages.info("The answer was copied as Markdown, with its citations.")

    def export_conversation(self) -> None:
        """The selected document's conversation and this session's library-wide questions."""
        library = library_turns_markdown(self.conversation.library_turns)
        if not self.conversation.turns and not library:
            self.messages.info("There is no conversation to export yet.")
            return
        title = (self.document_title() if self.conversation.turns else "") or "Pagewise conversation"
        text = answering.to_markdown(title, self.conversation.turns, word=self.conversation.word)
        self.save(text + ("\n" + library if library else ""), f"{title} - questions.md")

    def export_summary(self) -> None:
        text = self.summary.markdown()
        if not text:
            self.messages.info("There is no summary to export yet.")
            return
        self.save(text, f"{self.summary.title} - summary.md")

    def save(self, text: str, suggested: str) -> None:
        path = self.choose_path("".join(c for c in suggested if c not in '\\/:*?"<>|'))
        if not path:
            return
        try:
            Path(path).write_text(text, encoding="utf-8")
        except OSError as error:
            self.messages.error(f"Could not write {path}: {error.strerror}. Choose another folder.")
            return
        self.messages.info(f"Saved {path}.")

    def _save_dialog(self, suggested: str) -> str:
        path = file_dialogs.save_file(self.parent, "export", "Export as Markdown", suggested, "Markdown (*.md)")
        return path

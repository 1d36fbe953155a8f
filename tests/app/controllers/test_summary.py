"""Summaries (finding: Summarize was offered on a scanned PDF, and its error showed an internal id)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.app.conftest import wait_for_document
from tests.pdf_factory import make_pdf


def test_a_scanned_pdf_is_not_offered_for_summary(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    scan = make_pdf(tmp_path / "scan.pdf", [None, None, None])
    window = make_window()
    window.add_paths([scan])
    doc_id = wait_for_document(qtbot, window)
    assert not window.summary.summarize_button.isEnabled()
    assert "scan.pdf has no text to summarize" in window.summary.browser.toPlainText()
    assert window.summarize() is None  # asked anyway (the menu, a script): a message naming the file
    message = window.messages.history[-1].text
    assert message.startswith("scan.pdf has no text") and "OCR" in message and doc_id not in message

"""The File menu says what it adds (walk 2026-12-06, finding 16: "Open PDF…" and "Add a folder of PDF
files" added Word files too)."""

from __future__ import annotations

from typing import Any

import pytest

from app.widgets import file_dialogs


def test_the_file_menu_and_its_dialogs_say_pdf_or_word(make_window: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    window = make_window()
    file_menu = window.menuBar().actions()[0].menu()
    texts = [a.text() for a in file_menu.actions() if a.text()]
    assert texts[:2] == ["&Open PDF or Word files…", "Open a &folder of PDF or Word files…"]
    assert window.open_action.shortcut().toString() == "Ctrl+O"
    titles: list[str] = []
    monkeypatch.setattr(file_dialogs, "open_folder", lambda _parent, _kind, title, *a: titles.append(title) or "")
    monkeypatch.setattr(file_dialogs, "open_files", lambda _parent, _kind, title, _filters: titles.append(title) or [])
    window.open_folder_dialog()
    window.open_dialog()
    assert titles == ["Add a folder of PDF or Word files", "Add PDF or Word files"]

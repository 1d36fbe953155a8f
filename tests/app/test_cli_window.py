"""`pagewise` alone or with PDF files opens the window; anything else stays a CLI command."""

from __future__ import annotations

import pytest

from app import cli


@pytest.mark.parametrize(
    ("argv", "window"),
    [([], True), (["contract.pdf"], True), (["a.PDF", "b.pdf"], True), (["draft.docx", "b.pdf"], True),
     (["ingest", "a.pdf"], False),
     (["--selftest"], False), (["--help"], False), (["list"], False)],
)  # fmt: skip
def test_which_arguments_open_the_window(argv: list[str], window: bool) -> None:
    assert cli.wants_window(argv) is window


def test_main_hands_pdf_files_to_the_window(monkeypatch: pytest.MonkeyPatch) -> None:
    import app.gui_main

    opened: list[list[str]] = []
    monkeypatch.setattr(app.gui_main, "run_gui", lambda files=(): opened.append(list(files)) or 0)
    assert cli.main(["contract.pdf"]) == 0
    assert cli.main([]) == 0
    assert opened == [["contract.pdf"], []]

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


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["old.doc"], "old.doc is an old Word 97–2003 document (.doc), which Pagewise does not read: open it and save"),
        (["notes.txt"], "notes.txt is not a PDF or Word document"),
        (["room.zip"], "room.zip is a zip archive: `pagewise ingest room.zip` adds"),
    ],
)
def test_a_file_pagewise_does_not_open_is_said_not_a_list_of_commands(
    argv: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"pagewise: {said}") and "invalid choice" not in err
    assert "`pagewise FILE.pdf` or `pagewise FILE.docx` opens" in err or "zip" in said


def test_a_mistyped_command_still_gets_the_list_of_commands(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["ingset"])
    assert "invalid choice: 'ingset'" in capsys.readouterr().err

"""Terminal progress: a tqdm bar per stage on stderr, nothing with --json or off a terminal."""

from __future__ import annotations

import argparse
import io
import json

import pytest

from app.services.output import EXIT_BUG, TerminalProgress, run_command
from inference.progress import Progress, Stage


def test_bar_shows_stage_count_and_message_and_restarts_per_stage() -> None:
    stream = io.StringIO()
    bar = TerminalProgress(True, stream=stream)
    bar(Progress(Stage.READ_PAGES, 0, 10))
    bar(Progress(Stage.READ_PAGES, 4, 10, "contract.pdf"))
    bar(Progress(Stage.EMBED_PASSAGES, 30, 120))
    bar.close()
    text = stream.getvalue()
    assert "Reading pages" in text and "4/10" in text and "contract.pdf" in text
    assert "Embedding passages" in text and "30/120" in text
    assert bar._bar is None


def test_stage_without_total_counts() -> None:
    stream = io.StringIO()
    bar = TerminalProgress(True, stream=stream)
    bar(Progress(Stage.GENERATE, 17, None))
    bar.close()
    assert "generate: 17" in stream.getvalue()


def test_disabled_writes_nothing() -> None:
    stream = io.StringIO()
    bar = TerminalProgress(False, stream=stream)
    bar(Progress(Stage.READ_PAGES, 1, 2))
    bar.close()
    assert stream.getvalue() == ""


def test_an_unexpected_exception_is_one_line_with_where_not_a_traceback(capsys: pytest.CaptureFixture[str]) -> None:
    def handler(args: argparse.Namespace) -> int:
        raise OverflowError("int too large to convert to C long")

    code = run_command(argparse.Namespace(handler=handler, json=True))
    assert code == EXIT_BUG
    reply = json.loads(capsys.readouterr().out)
    assert reply["error"].startswith("Pagewise failed unexpectedly (OverflowError: int too large")
    assert "report it" in reply["error"] and reply["detail"].startswith("at test_output.py:")

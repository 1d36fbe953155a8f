"""Terminal progress: a tqdm bar per stage on stderr, nothing with --json or off a terminal."""

from __future__ import annotations

import io

from app.output import TerminalProgress
from inference.progress import Progress


def test_bar_shows_stage_count_and_message_and_restarts_per_stage() -> None:
    stream = io.StringIO()
    bar = TerminalProgress(True, stream=stream)
    bar(Progress("Reading pages", 0, 10))
    bar(Progress("Reading pages", 4, 10, "contract.pdf"))
    bar(Progress("Embedding passages", 30, 120))
    bar.close()
    text = stream.getvalue()
    assert "Reading pages" in text and "4/10" in text and "contract.pdf" in text
    assert "Embedding passages" in text and "30/120" in text
    assert bar._bar is None


def test_stage_without_total_counts() -> None:
    stream = io.StringIO()
    bar = TerminalProgress(True, stream=stream)
    bar(Progress("Generating", 17, None))
    bar.close()
    assert "Generating: 17" in stream.getvalue()


def test_disabled_writes_nothing() -> None:
    stream = io.StringIO()
    bar = TerminalProgress(False, stream=stream)
    bar(Progress("Reading pages", 1, 2))
    bar.close()
    assert stream.getvalue() == ""

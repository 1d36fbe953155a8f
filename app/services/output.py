"""How commands report: JSON on stdout with ``--json``, one-line errors, progress on a TTY."""

from __future__ import annotations

import argparse
import io
import json
import sys
from collections.abc import Callable
from typing import Any, TextIO

from inference.cancel import Cancelled
from inference.errors import PagewiseError, shorten_message
from inference.progress import Progress


def use_utf8_streams() -> None:
    """Write stdout and stderr as UTF-8, replacing what cannot be encoded, whatever they are attached to.

    A frozen app on Windows ignores ``PYTHONUTF8`` and writes a pipe or a file in the ANSI code
    page (cp1252): the first ``→`` of ``--selftest`` or ``doctor`` raised ``UnicodeEncodeError``
    as soon as the output was redirected (issue 54, reports/windows-wine10.md). A stream that is
    missing (a windowed app has none) or is not a text file is left alone.
    """
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(encoding="utf-8", errors="replace")


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON on stdout")


def emit_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def fail(args: argparse.Namespace, message: str, code: int = 1, detail: str = "") -> int:
    """Report an error as one line (and its detail on a second): stderr, or ``{"error": ...}``
    (with ``"detail"`` when there is one) on stdout with --json."""
    if getattr(args, "json", False):
        emit_json({"error": message, **({"detail": detail} if detail else {})})
    else:
        sys.stderr.write(f"pagewise: {message}\n" + (f"  {detail}\n" if detail else ""))
    return code


def run_command(args: argparse.Namespace) -> int:
    handler: Callable[[argparse.Namespace], int] = args.handler
    try:
        return handler(args)
    except Cancelled:
        return fail(args, "Cancelled.", 130)
    except KeyboardInterrupt:
        return fail(args, "Interrupted.", 130)
    except PagewiseError as error:
        return fail(args, str(error), error.exit_code, error.detail)


class TerminalProgress:
    """A progress callback drawing a tqdm bar (stage, count, rate, ETA) on stderr.

    Silent when stderr is not a terminal or with --json. Each stage gets its own bar; a stage
    without a total shows a counter. tqdm is imported only when a bar is drawn.
    """

    def __init__(self, enabled: bool, *, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self.enabled = enabled and (stream is not None or sys.stderr.isatty())
        self._bar: Any = None
        self._stage: str | None = None

    def __call__(self, progress: Progress) -> None:
        if not self.enabled:
            return
        total = progress.total or None
        if self._bar is None or progress.stage != self._stage or (total and self._bar.total != total):
            self.close()
            from tqdm import tqdm

            self._stage = progress.stage
            self._bar = tqdm(
                total=total, desc=progress.stage, file=self.stream, leave=False, dynamic_ncols=True,
                unit="", mininterval=0.1, bar_format=None if total else "{desc}: {n_fmt} [{elapsed}, {rate_fmt}]",
            )  # fmt: skip
        if progress.done != self._bar.n:
            self._bar.update(progress.done - self._bar.n)
        if progress.message:
            self._bar.set_postfix_str(shorten_message(progress.message, 60), refresh=False)
        self._bar.refresh()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
            self._stage = None

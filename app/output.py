"""How commands report: JSON on stdout with ``--json``, one-line errors, progress on a TTY."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

from inference.cancel import Cancelled
from inference.errors import PagewiseError
from inference.progress import Progress


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON on stdout")


def emit_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def fail(args: argparse.Namespace, message: str, code: int = 1) -> int:
    """Report an error as one line: stderr, or ``{"error": ...}`` on stdout with --json."""
    if getattr(args, "json", False):
        emit_json({"error": message})
    else:
        sys.stderr.write(f"pagewise: {message}\n")
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
        return fail(args, str(error), error.exit_code)


class TerminalProgress:
    """A progress callback drawing one line on stderr; silent when not a TTY or with --json."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled and sys.stderr.isatty()
        self._last_len = 0

    def __call__(self, progress: Progress) -> None:
        if not self.enabled:
            return
        parts = [progress.stage]
        if progress.total:
            width = 24
            filled = int(width * progress.done / progress.total)
            parts.append(f"[{'#' * filled}{'.' * (width - filled)}] {progress.done}/{progress.total}")
        elif progress.done:
            parts.append(str(progress.done))
        if progress.rate:
            parts.append(f"{progress.rate:.1f}/s")
        eta = progress.eta_seconds()
        if eta is not None:
            parts.append(f"ETA {eta:.0f}s")
        if progress.message:
            parts.append(progress.message)
        line = " ".join(parts)[:120]
        sys.stderr.write("\r" + line + " " * max(0, self._last_len - len(line)))
        sys.stderr.flush()
        self._last_len = len(line)

    def close(self) -> None:
        if self.enabled and self._last_len:
            sys.stderr.write("\r" + " " * self._last_len + "\r")
            sys.stderr.flush()
            self._last_len = 0

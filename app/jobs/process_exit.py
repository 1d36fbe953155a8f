"""How a child process that ended unasked ended, in words for a message (the ingest process:
"was ended by the system (SIGKILL, as when memory runs out)", "crashed (SIGSEGV)")."""

from __future__ import annotations

import signal


def how_it_ended(exitcode: int | None) -> str:
    """How a child process that ended unasked ended, for a message: a negative exit code is the
    signal that ended it (SIGKILL: what the system sends when memory runs out)."""
    if exitcode is not None and exitcode < 0:
        if -exitcode == signal.SIGKILL:
            return "was ended by the system (SIGKILL, as when memory runs out)"
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        return f"crashed ({name})"
    return f"stopped unexpectedly (exit code {exitcode})"

"""The ``pagewise`` command.

Each subcommand lives in ``app/commands/<name>.py`` with two functions:
``register(subparsers)`` adds its parser (cheap: no heavy imports at module level) and
``run(args) -> int`` does the work. Heavy libraries (torch, llama_cpp, PySide6) are only
imported inside ``run`` so that ``pagewise --help`` and a search start fast.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence

import app
import app.commands
from app.services import output

# The order shown in --help; any other module in app/commands/ follows, alphabetically.
ORDER = (
    "ingest",
    "list",
    "remove",
    "reindex",
    "search",
    "summarize",
    "ask",
    "review",
    "compare",
    "plan",
    "bench",
    "config",
    "doctor",
)


def command_modules() -> list[str]:
    found = {m.name for m in pkgutil.iter_modules(app.commands.__path__) if not m.name.startswith("_")}
    return [n for n in ORDER if n in found] + sorted(found - set(ORDER))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pagewise",
        description="Ask questions about long PDFs with a local language model.",
    )
    parser.add_argument("--selftest", action="store_true", help="run the installation self-test and exit")
    parser.add_argument("--version", action="version", version=f"pagewise {app.version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in command_modules():
        module = importlib.import_module(f"app.commands.{name}")
        module.register(sub)
    return parser


def wants_window(argv: Sequence[str]) -> bool:
    """``pagewise`` alone, or ``pagewise FILE.pdf|FILE.docx...``: open the desktop app."""
    from summarizer.library.reading.file_type import DOCUMENT_SUFFIXES

    return all(arg.lower().endswith(DOCUMENT_SUFFIXES) and not arg.startswith("-") for arg in argv)


def main(argv: Sequence[str] | None = None) -> int:
    import multiprocessing

    output.use_utf8_streams()  # first: a frozen app's worker processes start through here too
    multiprocessing.freeze_support()  # a frozen app's ingest and model workers start through here
    arguments = list(sys.argv[1:] if argv is None else argv)
    if wants_window(arguments):
        from app.gui_main import run_gui  # PySide6 is imported only here

        return run_gui(arguments)
    parser = build_parser()
    args = parser.parse_args(arguments)
    if args.selftest:
        from app.selftest import run_selftest

        return run_selftest()
    if not args.command:
        parser.print_help()
        return 0
    from app.services.settings import Settings, apply_to_process

    settings = Settings.load()
    if settings.problem:
        sys.stderr.write(f"pagewise: {settings.problem}\n")
    apply_to_process(settings)  # the window does the same: one data folder, one embedding model
    return output.run_command(args)


if __name__ == "__main__":
    sys.exit(main())

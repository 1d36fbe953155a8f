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
from pathlib import Path

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


def file_not_opened(argv: Sequence[str]) -> str | None:
    """``pagewise old.doc``: what a file that is no command means, rather than argparse's list of
    commands (walk 2026-12-06, finding 9); None when the first word may be a command."""
    first = argv[0] if argv else ""
    if not first or first.startswith("-") or first in command_modules():
        return None
    path = Path(first).expanduser()
    if not path.suffix and not path.exists():
        return None  # a mistyped command: argparse names those there are
    if path.is_dir() or path.suffix.lower() == ".zip":
        kind = "a folder" if path.is_dir() else "a zip archive"
        return f"{first} is {kind}: `pagewise ingest {first}` adds the PDF and Word documents in it to the library."
    from summarizer.library.reading.file_type import not_a_document_reason

    return (
        f"{path.name} is {not_a_document_reason(path.name)}. `pagewise FILE.pdf` or `pagewise FILE.docx` opens a "
        "PDF or Word document in the window; `pagewise ingest FILE` adds it to the library."
    )


def main(argv: Sequence[str] | None = None) -> int:
    import multiprocessing

    output.use_utf8_streams()  # first: a frozen app's worker processes start through here too
    multiprocessing.freeze_support()  # a frozen app's ingest and model workers start through here
    arguments = list(sys.argv[1:] if argv is None else argv)
    if wants_window(arguments):
        from app.gui_main import run_gui  # PySide6 is imported only here

        return run_gui(arguments)
    if problem := file_not_opened(arguments):
        sys.stderr.write(f"pagewise: {problem}\n")
        return 2
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

"""``python -m scripts.screenshots SCENE... | --list``: the options every scene shares, then the scenes."""

from __future__ import annotations

import argparse
import importlib
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path
from types import ModuleType

from scripts.screenshots import SCENES


def scene_module(name: str) -> ModuleType:
    return importlib.import_module(f"scripts.screenshots.{SCENES[name]}")


def summary(module: ModuleType) -> str:
    """The start of a scene's docstring (what its pictures show), on one line."""
    first = " ".join((module.__doc__ or "").split("\n\n")[0].split()).split(". ")[0]
    return textwrap.shorten(first.rstrip("."), 110, placeholder=" …")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m scripts.screenshots",
        description="Screenshots of the real window, one scene per picture (--list names them).",
    )
    parser.add_argument("scenes", nargs="*", metavar="SCENE", help="the scenes to take, in order")
    parser.add_argument("--list", action="store_true", help="name each scene and what it shows")
    parser.add_argument("--out", type=Path, default=Path("docs/screenshots"), help="where the pictures go")
    parser.add_argument("--dark", action="store_true", help="Qt's dark colour scheme (a desktop in dark mode)")
    parser.add_argument("--scale", default="1", help="QT_SCALE_FACTOR (2: a high-DPI screen)")
    parser.add_argument(
        "--home",
        type=Path,
        help="the data folder (default: a new temporary one); the data-room scene reuses the library of an "
        "earlier run's folder: its contracts are not added again and the review reads back what it stored",
    )
    parser.add_argument("--contracts", type=int, help="how many contracts (data-room: 30, room-ingest: 40)")
    for name in SCENES:
        add_arguments = getattr(scene_module(name), "add_arguments", None)
        if add_arguments is not None:
            add_arguments(parser.add_argument_group(f"{name} scene"))
    return parser


def start_application(dark: bool) -> object:
    """The application every scene's window joins (``make_application`` returns it again)."""
    from PySide6.QtCore import Qt

    from app.gui_main import make_application
    from app.widgets.appearance import dark_palette

    app = make_application(["pagewise"])
    if dark:
        app.styleHints().setColorScheme(Qt.ColorScheme.Dark)  # type: ignore[attr-defined]
        if app.styleHints().colorScheme() != Qt.ColorScheme.Dark:  # type: ignore[attr-defined]
            # No platform theme here (bare X server): give Fusion the palette a dark desktop gives it.
            app.setPalette(dark_palette())  # type: ignore[attr-defined]
    return app


def run_scene(name: str, args: argparse.Namespace) -> None:
    home = args.home or Path(tempfile.mkdtemp(prefix=f"pagewise-{name}-shot-"))
    os.environ["PAGEWISE_HOME"] = str(home)
    os.environ["QT_SCALE_FACTOR"] = args.scale
    args.out.mkdir(parents=True, exist_ok=True)
    start_application(args.dark)
    scene_module(name).run(args, home)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser()
    args = parser.parse_intermixed_args(argv)  # scenes and options in any order
    unknown = [name for name in args.scenes if name not in SCENES]
    if unknown:
        parser.error(f"no scene {', '.join(unknown)}: the scenes are {', '.join(SCENES)}")
    if args.list or not args.scenes:
        for name in SCENES:
            print(f"{name:<12} {summary(scene_module(name))}")
        return 0
    if len(args.scenes) == 1:
        run_scene(args.scenes[0], args)
        return 0
    options = [a for a in argv if a not in args.scenes]
    for name in args.scenes:  # each in a process of its own: one QApplication and data folder per scene
        subprocess.run([sys.executable, "-m", "scripts.screenshots", name, *options], check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

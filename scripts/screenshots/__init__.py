"""The screenshots in the README and docs/: the real window, driven by a script, one scene per picture.

    QT_QPA_PLATFORM=xcb xvfb-run -a -s "-screen 0 1600x1000x24" \\
        .venv/bin/python -m scripts.screenshots SCENE... [--out docs/screenshots]
    .venv/bin/python -m scripts.screenshots --list

Each scene is a module here with a ``run(args, home)`` and, where it takes options of its own, an
``add_arguments(parser)``; ``__main__`` parses the options they share (where the pictures go, a
dark colour scheme, a scale factor, the data folder), starts the application, and runs each of
several scenes in a process of its own (each with a fresh data folder). Most scenes use the real
window with the scripted fake model of scripts/scripted_window.py.
"""

from __future__ import annotations

SCENES = {
    "window": "window",
    "review": "review",
    "word": "word",
    "compare": "compare",
    "data-room": "data_room",
    "room-ingest": "room_ingest",
    "room-review": "room_review",
    "filing": "filing",
    "ocr": "ocr",
}
"""Each scene's name on the command line, and its module in this package."""

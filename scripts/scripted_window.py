"""The real window with the scripted fake model, for the screenshot scripts.

The model "file" is a stand-in whose GGUF facts are a Qwen2.5-7B's (so the planner's line is
real); the engine is ``tests.app.conftest.DocumentFake``, whose replies a script queues.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any


def scripted_window(home: Path, context_size: int) -> tuple[Any, Any, Any]:
    """``(application, shown main window, fake engine)`` with a library and settings in ``home``."""
    from app.gui_main import make_application
    from app.main_window import MainWindow
    from app.services import load_planning as planning
    from app.services.model_session import ModelSession
    from app.services.settings import Settings
    from app.widgets.messages import MessageCenter
    from scripts.random_gguf import shape_info
    from tests.app.conftest import DocumentFake

    app = make_application(["pagewise"])
    model_file = home / "Qwen2.5-7B-Instruct-Q4_K_M.gguf"
    model_file.write_bytes(b"GGUF")
    planning._gguf_info = lambda path, mtime: shape_info("qwen2.5-7b", "Q4_K_M", path)  # type: ignore[assignment]
    values = {
        "model_path": str(model_file),
        "vram_budget": "12GiB",
        "context_size": context_size,
        "background_summaries": "off",
    }
    engine = DocumentFake.make(piece_delay_s=0.002, model_name="scripted")
    session = ModelSession(values, engine_factory=lambda _p: engine)
    window = MainWindow(
        settings=Settings(values, path=home / "settings.json"), session=session, messages=MessageCenter()
    )
    window.resize(1360, 860)
    window.show()
    return app, window, engine


def ask_and_open_citation(window: Any, engine: Any, question: str, reply: Callable[[str], str]) -> Any:
    """Ask ``question`` with ``reply`` scripted as the model's answer, wait for it, and click its
    first citation as a reader would; the answer's turn."""
    from PySide6.QtCore import QUrl

    from app.widgets.qt_wait import wait_until

    engine.queue(reply)
    job = window.ask(question)
    wait_until(lambda: job.done, 120)
    turn = window.conversation.turns[-1]
    window.conversation.browser.anchorClicked.emit(QUrl(f"cite:0/{turn.citations[0].number}"))
    return turn

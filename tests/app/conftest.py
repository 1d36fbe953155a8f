"""GUI test setup: offscreen unless ``--onscreen``; Qt warnings fail GUI tests; bugs re-raise.

Tests in this folder that build widgets are marked ``gui`` automatically (they use
``qtbot``), and get ``qt_log_level_fail("WARNING")`` so an unexpected Qt warning fails them.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from app.widgets import pyside_refcount

pyside_refcount.apply()  # PySide6 6.12 on Python 3.11 drops references to None: see the module

# Benign messages of the offscreen platform and of fonts in a bare container.
QT_LOG_IGNORE = (
    "This plugin does not support",
    "propagateSizeHints",
    "QFont::",
    "Fontconfig",
    "OpenType support missing",
    "Populating font family aliases",
)


def pytest_configure(config: pytest.Config) -> None:
    # --onscreen is registered in tests/conftest.py so it works from the repository root too.
    if not config.getoption("--onscreen"):
        os.environ["QT_QPA_PLATFORM"] = "offscreen"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "qtbot" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.gui)
            item.add_marker(pytest.mark.qt_log_level_fail("WARNING"))
            item.add_marker(pytest.mark.qt_log_ignore(*QT_LOG_IGNORE))


@pytest.fixture(autouse=True)
def raise_unexpected_errors() -> Iterator[None]:
    """Bugs reported through app.widgets.messages are re-raised in tests, never swallowed."""
    from app.widgets.messages import MessageCenter

    MessageCenter.raise_unexpected = True
    yield
    MessageCenter.raise_unexpected = False


class DocumentFake:
    """Builds a ``FakeEngine`` that tells the summarizer's prompts apart: summary prompts get
    ``summary_reply``; answer prompts get the queued replies, where a callable receives the
    prompt's text (to cite a page of the passages actually given)."""

    @staticmethod
    def make(**kwargs: Any) -> Any:
        from inference.engines.engine import render_plain
        from inference.engines.fake import FakeEngine

        class _Fake(FakeEngine):
            summary_reply = "A summary of these pages: parties, fees, term and termination (p. 1)."

            def _next_reply(self) -> Any:
                prompt = render_plain(self.calls[-1].prompt)
                if not prompt.startswith("system: You answer"):
                    summary = self.summary_reply
                    return summary(prompt) if callable(summary) else summary
                reply = super()._next_reply()
                return reply(prompt) if callable(reply) else reply

        kwargs.setdefault("default_reply", "The document does not say.")
        kwargs.setdefault("piece_delay_s", 0.005)
        kwargs.setdefault("n_ctx", 8192)
        return _Fake(autoload=False, **kwargs)


@pytest.fixture
def fake_engine() -> Any:
    return DocumentFake.make()


@pytest.fixture
def make_window(qtbot: Any, fake_engine: Any, pagewise_home: Path) -> Iterator[Callable[..., Any]]:
    """Build a ``MainWindow`` driven by the fake engine (ingest without embeddings: fast)."""
    from app.main_window import MainWindow
    from app.services.load_planning import PlanPreview
    from app.services.model_session import ModelSession
    from app.services.settings import Settings
    from app.widgets.messages import MessageCenter

    windows: list[Any] = []

    def make(
        engine: Any = None, settings: dict[str, Any] | None = None, real_planner: bool = False, session: Any = None
    ) -> Any:
        """``session``: a ModelSession of the caller's (a real model) instead of the fake engine's."""
        engine = engine or fake_engine
        # Background summaries would take the fake engine's scripted replies: on only where asked.
        # A Word document is shown as text: LibreOffice, where this machine has it, never runs in
        # a test (one that shows pages sets "pages" and fakes the renderer: word_pages.find_renderer).
        values = {"background_summaries": "off", "word_view": "text", **(settings or {})}
        kwargs: dict[str, Any] = {"engine_factory": lambda _preview: engine}
        if not real_planner:
            kwargs["planner"] = lambda _values: PlanPreview(None, "fake-model · test plan")
        session = session or ModelSession(values, **kwargs)
        window = MainWindow(
            settings=Settings(values, path=pagewise_home / "settings.json"),
            session=session,
            messages=MessageCenter(),
        )
        window.runner.embed = False
        window.confirm_close = lambda _running: True  # a test closing during a job asks no one
        window.resize(1300, 850)
        qtbot.addWidget(window)
        window.show()
        windows.append(window)
        return window

    yield make
    for window in windows:
        if window.isVisible():
            window.close()


def wait_for_document(qtbot: Any, window: Any, timeout: int = 90_000) -> str:
    qtbot.waitUntil(lambda: window.doc_id is not None and not window.runner.ingests, timeout=timeout)
    assert window.doc_id is not None
    return str(window.doc_id)

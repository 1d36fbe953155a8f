"""Start the window: ``pagewise`` (no arguments) and ``pagewise FILE.pdf``.

Early initialisation, before any window exists (as qutebrowser does): check that Qt and
QtPdf import, install a crash handler that logs and shows unexpected errors instead of
ending the app, set up high-DPI, the icon and the system's light or dark colours.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType

from summarizer.library.storage.paths import assets_dir

log = logging.getLogger("pagewise.app")


def check_dependencies() -> str | None:
    """Why the window cannot start here (a missing Qt part or system library), or None."""
    from app.services.system_libraries import uses_x11, window_libraries_problem

    if uses_x11():
        missing = window_libraries_problem()  # Qt's own message names only the first of them
        if missing:
            return missing
    try:
        import PySide6.QtPdf
        import PySide6.QtPdfWidgets  # noqa: F401
    except ImportError as error:
        return f"The desktop app needs PySide6 with QtPdf ({error}). Reinstall Pagewise."
    return None


def make_application(argv: Sequence[str]) -> object:
    from app.widgets import pyside_refcount

    pyside_refcount.apply()  # before any Qt call: see the module for the PySide6 6.12 bug
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication, QIcon
    from PySide6.QtWidgets import QApplication

    existing = QApplication.instance()
    if existing is not None:
        return existing
    QGuiApplication.setHighDpiScaleFactorRoundingPolicy(Qt.HighDpiScaleFactorRoundingPolicy.PassThrough)
    app = QApplication(list(argv))
    app.setApplicationName("Pagewise")
    app.setOrganizationName("Pagewise")
    app.setDesktopFileName("pagewise")
    app.setStyle("Fusion")  # Fusion follows the platform's light/dark colour scheme (Qt >= 6.5)
    icon = assets_dir() / "pagewise.svg"
    if icon.exists():
        app.setWindowIcon(QIcon(str(icon)))
    return app


def install_crash_handler(report: object) -> None:
    """Unexpected exceptions in slots become messages (and the log), not a dead window."""

    def hook(kind: type[BaseException], error: BaseException, tb: TracebackType | None) -> None:
        log.error("Unhandled exception", exc_info=(kind, error, tb))
        try:
            report(error)  # type: ignore[operator]
        except BaseException:
            sys.__excepthook__(kind, error, tb)

    sys.excepthook = hook


def run_gui(files: Sequence[str] = ()) -> int:
    problem = check_dependencies()
    if problem:
        sys.stderr.write(f"pagewise: {problem}\n")
        return 1
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    from app.services.settings import Settings, apply_to_process

    settings = Settings.load()
    apply_to_process(settings)  # as every command does: the same data folder and embedding model
    app = make_application(sys.argv[:1])
    from app.widgets.single_instance import InstanceServer, hand_over, server_name
    from summarizer.library.storage.paths import data_home

    instance_name = server_name(data_home())
    if hand_over(instance_name, files):
        print(
            "Pagewise is already open on this library: "
            + ("the files were opened there." if files else "it was brought to the front.")
        )
        return 0
    from app.main_window import MainWindow
    from app.widgets.messages import MessageCenter
    from inference.telemetry import GpuTelemetry

    windows: list[MainWindow] = []

    def our_pids() -> tuple[int | None, ...]:
        """This process and the model worker count as "this app" in the VRAM gauge."""
        engine = windows[0].session.engine if windows else None
        return (os.getpid(), engine.worker_pid if engine is not None else None)

    telemetry = GpuTelemetry(pids=our_pids)
    messages = MessageCenter()
    install_crash_handler(messages.report)
    window = MainWindow(settings=settings, telemetry=telemetry, messages=messages)
    windows.append(window)

    def from_another_instance(paths: list[str]) -> None:
        if window.isMinimized():
            window.showNormal()
        window.raise_()
        window.activateWindow()
        if paths:
            window.open_paths([Path(p) for p in paths])

    instance = InstanceServer(instance_name, from_another_instance, parent=window)
    if not instance.listening:
        log.warning("Could not listen for other Pagewise instances; a second one will open its own window")
    telemetry.start()
    window.show()
    if files:
        window.open_paths([Path(f) for f in files])
    try:
        return int(app.exec())  # type: ignore[attr-defined]
    finally:
        telemetry.close()

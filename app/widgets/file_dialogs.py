"""File dialogs that open where the user was last: one remembered folder per kind of file
(PDFs, models, checklists, exports), kept beside the window's geometry in ``window.ini`` (UI
state, not a setting). The first time, a kind starts in its natural folder (the models folder
for models, the home folder otherwise), never in the process's working directory."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QFileDialog, QWidget

from summarizer.library.storage.paths import data_home, models_dir


def _state() -> QSettings:
    return QSettings(str(data_home() / "window.ini"), QSettings.Format.IniFormat)


def start_folder(kind: str) -> str:
    """Where a dialog for ``kind`` opens: the folder used last for it, else its natural one."""
    remembered = str(_state().value(f"dialogs/{kind}", "") or "")
    if remembered and Path(remembered).is_dir():
        return remembered
    return str(models_dir() if kind == "model" else Path.home())


def remember(kind: str, chosen: str) -> None:
    """Keep the folder of ``chosen`` (a file or a folder) for the next dialog of ``kind``."""
    if not chosen:
        return
    path = Path(chosen)
    folder = path if path.is_dir() else path.parent
    state = _state()
    state.setValue(f"dialogs/{kind}", str(folder))
    state.sync()


def open_file(parent: QWidget | None, kind: str, title: str, filters: str, start: str = "") -> str:
    """One file chosen by the user ("" when cancelled); ``start``: a file or folder to open at."""
    path, _ = QFileDialog.getOpenFileName(parent, title, start or start_folder(kind), filters)
    remember(kind, path)
    return path


def open_files(parent: QWidget | None, kind: str, title: str, filters: str) -> list[str]:
    paths, _ = QFileDialog.getOpenFileNames(parent, title, start_folder(kind), filters)
    if paths:
        remember(kind, paths[0])
    return paths


def open_folder(parent: QWidget | None, kind: str, title: str, start: str = "") -> str:
    folder = QFileDialog.getExistingDirectory(parent, title, start or start_folder(kind))
    remember(kind, folder)
    return folder


def save_file(parent: QWidget | None, kind: str, title: str, suggested: str, filters: str) -> str:
    """A path to write ("" when cancelled); ``suggested``: a file name, put in the folder used last."""
    path, _ = QFileDialog.getSaveFileName(parent, title, str(Path(start_folder(kind)) / suggested), filters)
    remember(kind, path)
    return path

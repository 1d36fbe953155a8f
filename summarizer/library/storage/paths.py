"""Where Pagewise keeps its data: the user data folder, or ``$PAGEWISE_HOME``."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from summarizer.library.storage.private_files import private_folder

ENV_HOME = "PAGEWISE_HOME"
ASSETS = Path(__file__).resolve().parents[3] / "assets"


def data_home() -> Path:
    """The data folder (library database, vector index, models). Created on first use."""
    override = os.environ.get(ENV_HOME)
    if override:  # the user's own folder: private when created here, never changed after
        return private_folder(Path(override).expanduser(), existing_too=False)
    import platformdirs

    return private_folder(Path(platformdirs.user_data_dir("Pagewise", appauthor=False)))  # contracts: the user's alone


def library_path() -> Path:
    return data_home() / "library.sqlite"


def cache_dir() -> Path:
    """Files made again if lost (a Word document's pages as rendered by LibreOffice): the user
    cache folder, or ``$PAGEWISE_HOME/cache``. Created on first use."""
    if os.environ.get(ENV_HOME):
        path = data_home() / "cache"
    else:
        import platformdirs

        path = Path(platformdirs.user_cache_dir("Pagewise", appauthor=False))
    return private_folder(path)  # pages of the user's contracts, as rendered


def models_dir() -> Path:
    path = data_home() / "models"
    path.mkdir(parents=True, exist_ok=True)
    return path


def assets_dir() -> Path:
    """``assets/`` inside a frozen bundle, next to the packages in a checkout, or in
    ``<prefix>/share/pagewise/assets`` where a wheel installed it (pyproject.toml's data-files)."""
    frozen = getattr(sys, "_MEIPASS", None)
    if frozen:
        return Path(frozen) / "assets"
    installed = Path(sys.prefix) / "share" / "pagewise" / "assets"
    return ASSETS if ASSETS.is_dir() or not installed.is_dir() else installed

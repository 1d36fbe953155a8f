"""The settings the summarizer's commands read: which model to use.

The desktop app owns the full settings schema (``app/settings.py``) and writes
``settings.json`` in ``$PAGEWISE_HOME`` (or the user's config folder); this reads the same
file and key (``model_path``) so that ``pagewise ask`` uses the model chosen in the window.
The environment wins over the file (``PAGEWISE_MODEL``), so a shell or a test can point
Pagewise at a model without touching the user's settings.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from inference.errors import ModelError, SettingsError
from summarizer.paths import ENV_HOME

ENV_MODEL = "PAGEWISE_MODEL"
MODEL_KEYS = ("model_path", "model")  # the app's key, and a short alias


def settings_path() -> Path:
    """``settings.json`` in ``$PAGEWISE_HOME``, or in the user's config folder."""
    home = os.environ.get(ENV_HOME)
    if home:
        return Path(home).expanduser() / "settings.json"
    import platformdirs

    return Path(platformdirs.user_config_dir("Pagewise", appauthor=False)) / "settings.json"


def load_settings() -> dict[str, Any]:
    """The stored settings (an empty dict when there is no file)."""
    path = settings_path()
    if not path.exists():
        return {}
    try:
        loaded = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise SettingsError(
            f"The settings file {path} cannot be read ({error}). Fix it or delete it.", path=path
        ) from None
    if not isinstance(loaded, dict):
        raise SettingsError(f"The settings file {path} must hold a JSON object. Fix it or delete it.", path=path)
    return loaded


def configured_model() -> Path:
    """The configured model file: ``$PAGEWISE_MODEL``, else ``model_path`` in settings.json."""
    value: Any = os.environ.get(ENV_MODEL)
    if not value:
        stored = load_settings()
        value = next((stored[key] for key in MODEL_KEYS if stored.get(key)), None)
    if value is not None and not isinstance(value, str):
        raise SettingsError(f"The setting 'model_path' in {settings_path()} must be a path (text).")
    if not value:
        raise ModelError(
            f"No model is configured. Pass --model PATH, set {ENV_MODEL}=PATH, or choose a model in the "
            f"app's settings ({settings_path()})."
        )
    return Path(value).expanduser()

"""The one settings schema: every user setting with its type, default, description and check.

Settings are stored as JSON (``settings.json``) next to the library (``PAGEWISE_HOME``) or in
the user's config folder. No Qt here: the settings dialog is built from ``SCHEMA``, and the CLI
or a test can read the same values. Window geometry is not a setting: it lives in QSettings.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inference.errors import SettingsError

KV_CHOICES = ("auto", "f16", "q8_0", "q4_0")
CONTEXT_CHOICES = (0, 4096, 8192, 16384, 32768, 65536, 131072)  # 0 = the planner chooses


def _check_model_path(value: Any) -> str | None:
    if value == "":
        return None
    path = Path(str(value)).expanduser()
    if not path.is_file():
        return f"The model file {path} does not exist. Choose a .gguf file, or download a recommended model."
    if path.suffix.lower() != ".gguf":
        return f"{path.name} is not a .gguf file. Pagewise runs GGUF models."
    return None


def _check_budget(value: Any) -> str | None:
    if value == "auto":
        return None
    from inference.errors import PlanError
    from inference.planner import parse_budget

    try:
        parse_budget(str(value))
    except PlanError as error:
        return str(error)
    return None


def _check_gpu_layers(value: Any) -> str | None:
    if value == "auto":
        return None
    try:
        layers = int(value)
    except (TypeError, ValueError):
        return f"GPU layers must be 'auto' or a number, not {value!r}."
    return None if layers >= 0 else "GPU layers cannot be negative."


def _check_context(value: Any) -> str | None:
    if not isinstance(value, int) or value < 0:
        return "The context size must be a whole number of tokens (0 = automatic)."
    if value and value < 2048:
        return "A context under 2048 tokens cannot hold a question with its passages. Choose 2048 or more."
    return None


def _check_url(value: Any) -> str | None:
    text = str(value).strip()
    if text and not text.startswith(("http://", "https://")):
        return f"The remote URL must start with http:// or https:// (got {text!r})."
    return None


def _check_folder(value: Any) -> str | None:
    text = str(value).strip()
    if not text:
        return None
    path = Path(text).expanduser()
    if path.exists() and not path.is_dir():
        return f"{path} is a file, not a folder."
    return None


@dataclass(frozen=True, slots=True)
class Setting:
    key: str
    label: str
    type: type
    default: Any
    description: str
    check: Callable[[Any], str | None] | None = None
    choices: tuple[Any, ...] = ()
    kind: str = ""  # a hint for the dialog: "file", "folder", "budget", "choice"
    affects_plan: bool = False


SCHEMA: tuple[Setting, ...] = (
    Setting("model_path", "Model file", str, "", "The GGUF model that answers questions.",
            _check_model_path, kind="file", affects_plan=True),
    Setting("vram_budget", "VRAM budget", str, "auto",
            "GPU memory Pagewise may use: 'auto' (free VRAM minus a reserve) or an amount like 11.5GiB.",
            _check_budget, kind="budget", affects_plan=True),
    Setting("context_size", "Context size", int, 0,
            "Tokens the model sees at once (question, summary and passages). 0 lets the planner choose.",
            _check_context, choices=CONTEXT_CHOICES, kind="choice", affects_plan=True),
    Setting("kv_type", "KV cache type", str, "auto",
            "Precision of the attention cache: auto, f16, q8_0 or q4_0 (smaller fits more context).",
            lambda v: None if v in KV_CHOICES else f"KV type must be one of {', '.join(KV_CHOICES)}.",
            choices=KV_CHOICES, kind="choice", affects_plan=True),
    Setting("gpu_layers", "GPU layers", str, "auto",
            "Model layers on the GPU: 'auto' (as many as fit) or a number.",
            _check_gpu_layers, kind="layers", affects_plan=True),
    Setting("embedding_model", "Embedding model", str, "all-MiniLM-L6-v2",
            "The sentence-embedding model used to search passages (changing it re-embeds the library).",
            lambda v: None if str(v).strip() else "The embedding model cannot be empty."),
    Setting("data_folder", "Data folder", str, "",
            "Where the library, vectors and models are kept (empty = the default folder). Takes effect on restart.",
            _check_folder, kind="folder"),
    Setting("remote_url", "Remote server URL", str, "",
            "An OpenAI-compatible server (llama.cpp server, vLLM, Ollama) to use instead of a local model.",
            _check_url),
)  # fmt: skip

BY_KEY: dict[str, Setting] = {s.key: s for s in SCHEMA}


def settings_path() -> Path:
    home = os.environ.get("PAGEWISE_HOME")
    if home:
        folder = Path(home).expanduser()
    else:
        import platformdirs

        folder = Path(platformdirs.user_config_dir("Pagewise", appauthor=False))
    return folder / "settings.json"


def coerce(setting: Setting, value: Any) -> Any:
    if setting.type is int and not isinstance(value, int):
        try:
            return int(str(value).strip())
        except ValueError:
            raise SettingsError(f"{setting.label} must be a whole number, not {value!r}.") from None
    if setting.type is str:
        return str(value).strip()
    return value


def validate(values: Mapping[str, Any]) -> dict[str, str]:
    """Problems by key ({} when every value is acceptable)."""
    problems: dict[str, str] = {}
    for setting in SCHEMA:
        try:
            value = coerce(setting, values.get(setting.key, setting.default))
        except SettingsError as error:
            problems[setting.key] = str(error)
            continue
        if setting.check is not None and (problem := setting.check(value)):
            problems[setting.key] = problem
    return problems


class Settings:
    """The current values; ``save()`` writes them. Unknown keys in the file are kept."""

    def __init__(self, values: Mapping[str, Any] | None = None, path: Path | None = None) -> None:
        self.path = path or settings_path()
        self._values: dict[str, Any] = {s.key: s.default for s in SCHEMA}
        if values:
            self._values.update(values)

    @classmethod
    def load(cls, path: Path | None = None) -> Settings:
        path = path or settings_path()
        values: dict[str, Any] = {}
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            if isinstance(raw, dict):
                values = raw
        except FileNotFoundError:
            pass
        except (OSError, ValueError):
            values = {}  # a damaged file: start from the defaults rather than refuse to start
        return cls(values, path)

    def __getitem__(self, key: str) -> Any:
        setting = BY_KEY[key]
        try:
            return coerce(setting, self._values.get(key, setting.default))
        except SettingsError:
            return setting.default

    def values(self) -> dict[str, Any]:
        return {s.key: self[s.key] for s in SCHEMA}

    def update(self, values: Mapping[str, Any]) -> None:
        """Set values after checking all of them; raises ``SettingsError`` naming the first problem."""
        merged = {**self.values(), **values}
        problems = validate(merged)
        if problems:
            key, problem = next(iter(problems.items()))
            raise SettingsError(f"{BY_KEY[key].label}: {problem}")
        self._values.update({k: coerce(BY_KEY[k], v) for k, v in values.items() if k in BY_KEY})

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self._values, indent=2, sort_keys=True), encoding="utf-8")
        os.replace(tmp, self.path)

    @property
    def model_configured(self) -> bool:
        return bool(self["model_path"] or self["remote_url"])

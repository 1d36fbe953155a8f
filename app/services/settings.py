"""The one settings schema and its one reader, for the window and every command.

Every user setting has a type, a default, a description and a check; the settings dialog is
built from ``SCHEMA`` and ``pagewise config`` validates with the same checks. No Qt here.

Where the file lives: ``settings.json`` in the user's config folder (platformdirs; for example
``~/.config/Pagewise`` on Linux), or the file ``$PAGEWISE_CONFIG`` names. Never inside the data
folder, which a setting can move.

What wins, first to last: a command-line flag (``--model``, ``--remote``, ``--budget``...), an
environment variable (``ENVIRONMENT``: ``PAGEWISE_MODEL``, ``PAGEWISE_REMOTE_URL``,
``PAGEWISE_HOME``, ``PAGEWISE_EMBEDDING_MODEL``), the settings file, the default.

A damaged file (not JSON, not an object) is moved aside to ``settings.json.damaged``, the
defaults are used, and ``Settings.problem`` says so, naming both files: the window shows it in a
banner and the commands print it once on stderr. It is never silently overwritten.

Window geometry is not a setting: it lives in QSettings. Nor is a remote server's API key: it
lives in the OS keyring or ``PAGEWISE_API_KEY`` (``app.services.api_key``), never in this file.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from summarizer.errors import SettingsError
from summarizer.library.storage.private_files import open_private, private_folder

KV_CHOICES = ("auto", "f16", "q8_0", "q4_0")
BACKGROUND_CHOICES = ("auto", "on", "off")
APPEARANCE_CHOICES = ("auto", "light", "dark")
WORD_VIEW_CHOICES = ("pages", "text")
CONTEXT_CHOICES = (0, 4096, 8192, 16384, 32768, 65536, 131072)  # 0 = the planner chooses


def _check_model_path(value: Any) -> str | None:
    if value == "":
        return None
    path = Path(str(value)).expanduser()
    if not path.is_file():
        return f"The model file {path} does not exist. Choose a .gguf file, or download a recommended model."
    if path.suffix.lower() != ".gguf":
        return f"{path.name} is not a .gguf file. Pagewise runs GGUF models."
    try:
        with path.open("rb") as file:
            magic = file.read(4)
    except OSError as error:
        return f"The model file {path} cannot be read ({error.strerror or error}). Check its permissions."
    if magic != b"GGUF":
        return (
            f"{path.name} is not a GGUF model (it does not start like one): it may be another kind of file "
            "or a damaged download. Choose a .gguf model file, or download the recommended model."
        )
    return None


def _check_budget(value: Any) -> str | None:
    if value == "auto":
        return None
    from inference.errors import PlanError
    from inference.planning.gpu_budget import parse_budget

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
    kind: str = ""  # a hint for the dialog: "file", "folder", "budget", "choice", "check"
    affects_plan: bool = False


SCHEMA: tuple[Setting, ...] = (
    Setting("model_path", "Model file", str, "", "The GGUF model that answers questions.",
            _check_model_path, kind="file", affects_plan=True),
    Setting("vram_budget", "VRAM budget", str, "auto",
            "GPU memory Pagewise may use: 'auto' (free VRAM minus a reserve) or an amount like 11.5GiB.",
            _check_budget, kind="budget", affects_plan=True),
    Setting("context_size", "Context size", int, 0,
            "Tokens the model sees at once (question, summary and passages). "
            "auto (0 for `pagewise config`) lets the planner choose.",
            _check_context, choices=CONTEXT_CHOICES, kind="choice", affects_plan=True),
    Setting("kv_type", "KV cache type", str, "auto",
            "Precision of the attention cache: auto, f16, q8_0 or q4_0 (smaller fits more context).",
            lambda v: None if v in KV_CHOICES else f"KV type must be one of {', '.join(KV_CHOICES)}.",
            choices=KV_CHOICES, kind="choice", affects_plan=True),
    Setting("gpu_layers", "GPU layers", str, "auto",
            "Model layers on the GPU: 'auto' (as many as fit) or a number.",
            _check_gpu_layers, kind="layers", affects_plan=True),
    Setting("embedding_model", "Embedding model", str, "pagewise/clause-embedder",
            "The sentence-embedding model used to search passages. The library keeps the model it was embedded "
            "with until a re-embed (`pagewise reindex`, or reindexing in the window) switches it to this one.",
            lambda v: None if str(v).strip() else "The embedding model cannot be empty."),
    Setting("data_folder", "Data folder", str, "",
            "Where the library, vectors and models are kept (empty = the default folder). Takes effect on restart.",
            _check_folder, kind="folder"),
    Setting("background_summaries", "Background summaries", str, "auto",
            "Make each document's summary while Pagewise is idle, so answers can use it: auto (pauses on "
            "battery power), on, or off. Questions never wait for it.",
            lambda v: None if v in BACKGROUND_CHOICES else f"Background summaries must be one of "
            f"{', '.join(BACKGROUND_CHOICES)}.", choices=BACKGROUND_CHOICES, kind="choice"),
    Setting("background_summaries_all_up_to", "Summarize every document up to", int, 25,
            "With more documents than this in the library (a data room), background summaries are made only "
            "for the documents you open or ask about, in that order; Library → Summarize all makes the rest.",
            lambda v: None if int(v) >= 0 else "The number of documents cannot be negative."),
    Setting("appearance", "Appearance", str, "auto",
            "Light or dark colours: auto follows the desktop; light or dark whatever it says (on Linux "
            "without a desktop that reports dark mode, choose dark here).",
            lambda v: None if v in APPEARANCE_CHOICES else f"Appearance must be one of "
            f"{', '.join(APPEARANCE_CHOICES)}.", choices=APPEARANCE_CHOICES, kind="choice"),
    Setting("word_view", "Word documents", str, "pages",
            "How a Word document is shown: pages, as LibreOffice lays them out when it is installed (its text "
            "meanwhile, and where it is not); or text, the paragraphs Pagewise read, always. Pagewise never "
            "needs LibreOffice.",
            lambda v: None if v in WORD_VIEW_CHOICES else f"Word documents must be one of "
            f"{', '.join(WORD_VIEW_CHOICES)}.", choices=WORD_VIEW_CHOICES, kind="choice"),
    Setting("load_model_at_start", "Load the model when the window opens", bool, True,
            "Start loading the configured model file in the background as soon as the window is shown, so "
            "the first question does not wait for it; a question asked meanwhile waits for the load.",
            kind="check"),
    Setting("remote_url", "Remote server URL", str, "",
            "To use your firm's model server instead of a model file on this computer: the server's address "
            "with its port, e.g. https://llm.firm.example or http://10.0.0.5:8080. Any server that answers "
            "OpenAI-style requests works: llama.cpp's llama-server, vLLM, LM Studio, Ollama (port 11434). Empty: "
            "the model file above. The contracts' text goes to this server, so use https unless it is on this "
            "computer.",
            _check_url),
    Setting("remote_parallel", "Requests at once to the server", int, 8,
            "How many questions a long job (a data room's review) sends to the server at once, default 8: the "
            "number of requests the server answers side by side (llama-server's --parallel N, vLLM's "
            "--max-num-seqs). A llama.cpp server says its own number, which is used instead.",
            lambda v: None if 1 <= int(v) <= 256 else "Requests at once must be between 1 and 256."),
)  # fmt: skip

BY_KEY: dict[str, Setting] = {s.key: s for s in SCHEMA}


ENV_CONFIG = "PAGEWISE_CONFIG"
ENVIRONMENT: dict[str, str] = {
    "model_path": "PAGEWISE_MODEL",
    "remote_url": "PAGEWISE_REMOTE_URL",
    "data_folder": "PAGEWISE_HOME",
    "embedding_model": "PAGEWISE_EMBEDDING_MODEL",
}
"""Settings an environment variable overrides (for a shell, a script or a test)."""


def settings_path() -> Path:
    """The settings file: ``$PAGEWISE_CONFIG``, or settings.json in the user's config folder."""
    override = os.environ.get(ENV_CONFIG)
    if override:
        return Path(override).expanduser()
    import platformdirs

    return Path(platformdirs.user_config_dir("Pagewise", appauthor=False)) / "settings.json"


def _read(path: Path) -> tuple[dict[str, Any], str]:
    """The stored values and a problem ("" when none); a damaged file is moved aside."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}, ""
    except (OSError, ValueError) as error:
        reason = f"it is not valid JSON ({error})" if isinstance(error, ValueError) else str(error)
    else:
        if isinstance(raw, dict):
            return raw, ""
        reason = "it does not hold a JSON object"
    aside = path.with_name(path.name + ".damaged")
    try:
        os.replace(path, aside)
        kept = f"It was kept as {aside}."
    except OSError:
        kept = "It was left as it is."
    return {}, f"The settings file {path} could not be read: {reason}. Pagewise uses the defaults. {kept}"


TRUE_WORDS = ("true", "on", "yes", "1")
FALSE_WORDS = ("false", "off", "no", "0")


def coerce(setting: Setting, value: Any) -> Any:
    if setting.type is int and not isinstance(value, int):
        try:
            return int(str(value).strip())
        except ValueError:
            raise SettingsError(f"{setting.label} must be a whole number, not {value!r}.") from None
    if setting.type is str:
        return str(value).strip()
    if setting.type is bool and not isinstance(value, bool):
        word = str(value).strip().lower()
        if word in TRUE_WORDS:
            return True
        if word in FALSE_WORDS:
            return False
        raise SettingsError(f"{setting.label} must be on or off (true or false), not {value!r}.")
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
    """The stored values (file, else default); ``save()`` writes them. Unknown keys in the file
    are kept. ``effective(key)`` adds the environment's overrides."""

    def __init__(self, values: Mapping[str, Any] | None = None, path: Path | None = None, problem: str = "") -> None:
        self.path = path or settings_path()
        self.problem = problem
        self._values: dict[str, Any] = {s.key: s.default for s in SCHEMA}
        if values:
            self._values.update(values)

    @classmethod
    def load(cls, path: Path | None = None) -> Settings:
        path = path or settings_path()
        values, problem = _read(path)
        return cls(values, path, problem)

    def __getitem__(self, key: str) -> Any:
        setting = BY_KEY[key]
        try:
            return coerce(setting, self._values.get(key, setting.default))
        except SettingsError:
            return setting.default

    def source(self, key: str) -> str:
        """Where ``effective(key)`` comes from: "environment", "file" or "default"."""
        env = ENVIRONMENT.get(key)
        if env and os.environ.get(env):
            return "environment"
        return "file" if key in self._values and self._values[key] != BY_KEY[key].default else "default"

    def effective(self, key: str) -> Any:
        """The value after the environment's override (flags are the caller's to apply)."""
        env = ENVIRONMENT.get(key)
        if env and os.environ.get(env):
            return coerce(BY_KEY[key], os.environ[env])
        return self[key]

    def values(self) -> dict[str, Any]:
        """The stored values (what the settings dialog edits)."""
        return {s.key: self[s.key] for s in SCHEMA}

    def effective_values(self) -> dict[str, Any]:
        """The values in force: the environment's overrides on the stored ones."""
        return {s.key: self.effective(s.key) for s in SCHEMA}

    def update(self, values: Mapping[str, Any]) -> None:
        """Set values after checking all of them; raises ``SettingsError`` naming the first problem."""
        merged = {**self.values(), **values}
        problems = validate(merged)
        if problems:
            key, problem = next(iter(problems.items()))
            raise SettingsError(f"{BY_KEY[key].label}: {problem}")
        self._values.update({k: coerce(BY_KEY[k], v) for k, v in values.items() if k in BY_KEY})

    def save(self) -> None:
        private_folder(self.path.parent, existing_too=False)
        tmp = self.path.with_suffix(".tmp")
        with os.fdopen(open_private(tmp), "w", encoding="utf-8") as handle:  # 0600: it names the user's server
            handle.write(json.dumps(self._values, indent=2, sort_keys=True))
        os.replace(tmp, self.path)

    @property
    def model_configured(self) -> bool:
        return bool(self.effective("model_path") or self.effective("remote_url"))


def apply_to_process(settings: Settings) -> None:
    """Make the data folder and embedding model settings hold for this process and the
    processes it starts (the ingest worker), unless the environment already decided: the
    window and every command call this first, so both see the same library."""
    for key in ("data_folder", "embedding_model"):
        env = ENVIRONMENT[key]
        value = settings[key]
        if value and value != BY_KEY[key].default and not os.environ.get(env):
            os.environ[env] = str(Path(value).expanduser()) if key == "data_folder" else str(value)


def configured_model(settings: Settings | None = None) -> Path:
    """The configured model file: ``$PAGEWISE_MODEL``, else ``model_path`` in the settings."""
    from inference.errors import ModelError

    settings = settings or Settings.load()
    value = settings.effective("model_path")
    if not value:
        raise ModelError(
            f"No model is configured. Pass --model PATH, set PAGEWISE_MODEL=PATH, or choose one with "
            f"`pagewise config set model_path PATH` or in the window's settings ({settings.path})."
        )
    return Path(value).expanduser()

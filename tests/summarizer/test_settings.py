from __future__ import annotations

import json
from pathlib import Path

import pytest

from inference.errors import ModelError, SettingsError
from summarizer.settings import configured_model, settings_path


def test_no_model_configured_says_how_to_configure_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PAGEWISE_MODEL", raising=False)
    with pytest.raises(ModelError, match="--model PATH, set PAGEWISE_MODEL"):
        configured_model()


def test_settings_file_then_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("PAGEWISE_MODEL", raising=False)
    settings_path().parent.mkdir(parents=True, exist_ok=True)
    settings_path().write_text(json.dumps({"model_path": str(tmp_path / "a.gguf"), "context_size": 0}))
    assert configured_model() == tmp_path / "a.gguf"
    monkeypatch.setenv("PAGEWISE_MODEL", str(tmp_path / "b.gguf"))
    assert configured_model() == tmp_path / "b.gguf"


@pytest.mark.parametrize("content", ["{not json", "[1, 2]", '{"model_path": 3}'])
def test_broken_settings_name_the_file(content: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PAGEWISE_MODEL", raising=False)
    settings_path().parent.mkdir(parents=True, exist_ok=True)
    settings_path().write_text(content)
    with pytest.raises(SettingsError, match="settings"):
        configured_model()

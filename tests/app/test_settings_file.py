"""One settings file and one reader for the window and the commands (`pagewise config`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.cli import main
from app.services.settings import Settings, apply_to_process, configured_model, settings_path
from inference.errors import ModelError


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    code = "import sys; from app.cli import main; sys.exit(main())"
    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, env={**os.environ, **(env or {})}
    )


def test_the_file_lives_in_the_config_folder_not_the_data_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PAGEWISE_CONFIG")
    assert "pagewise-home" not in str(settings_path())
    assert settings_path().name == "settings.json"


def test_no_model_configured_says_how_to_configure_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PAGEWISE_MODEL", raising=False)
    with pytest.raises(ModelError, match="--model PATH, set PAGEWISE_MODEL"):
        configured_model()


def test_file_then_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("PAGEWISE_MODEL", raising=False)
    settings_path().parent.mkdir(parents=True, exist_ok=True)
    settings_path().write_text(json.dumps({"model_path": str(tmp_path / "a.gguf"), "context_size": 0}))
    assert configured_model() == tmp_path / "a.gguf"
    assert Settings.load().source("model_path") == "file"
    monkeypatch.setenv("PAGEWISE_MODEL", str(tmp_path / "b.gguf"))
    assert configured_model() == tmp_path / "b.gguf"
    assert Settings.load().source("model_path") == "environment"


@pytest.mark.parametrize("content", ["{not json", "[1, 2]"])
def test_a_damaged_file_is_named_kept_aside_and_the_defaults_used(content: str) -> None:
    path = settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content)
    settings = Settings.load()
    assert str(path) in settings.problem and "defaults" in settings.problem
    assert settings["vram_budget"] == "auto"
    aside = path.with_name("settings.json.damaged")
    assert aside.read_text() == content and not path.exists()
    settings.update({"vram_budget": "4GiB"})
    settings.save()
    assert aside.read_text() == content  # saving never overwrites the damaged copy


def test_a_command_says_the_file_is_damaged_and_goes_on(capsys: pytest.CaptureFixture[str]) -> None:
    settings_path().parent.mkdir(parents=True, exist_ok=True)
    settings_path().write_text("{not json")
    assert main(["list"]) == 0
    assert "could not be read" in capsys.readouterr().err


def test_config_set_get_list_unset_check_values_as_the_dialog_does(
    capsys: pytest.CaptureFixture[str], smollm2_path: Path
) -> None:
    assert main(["config", "set", "vram_budget", "11.5GiB"]) == 0
    assert main(["config", "set", "model_path", str(smollm2_path)]) == 0
    assert main(["config", "get", "vram_budget"]) == 0
    assert capsys.readouterr().out.strip() == "11.5GiB"
    assert main(["config", "set", "context_size", "512"]) != 0
    assert "2048" in capsys.readouterr().err
    assert main(["config", "set", "no_such_key", "1"]) != 0
    assert "no setting" in capsys.readouterr().err
    assert main(["config", "list", "--json"]) == 0
    listed = {row["key"]: row for row in json.loads(capsys.readouterr().out)["settings"]}
    assert listed["vram_budget"]["value"] == "11.5GiB" and listed["vram_budget"]["source"] == "file"
    assert listed["kv_type"]["source"] == "default"
    assert Settings.load()["model_path"] == str(smollm2_path)  # what the window reads
    assert main(["config", "unset", "vram_budget"]) == 0
    assert Settings.load()["vram_budget"] == "auto"


def test_the_data_folder_setting_is_the_library_of_every_command(tmp_path: Path, contracts: Path) -> None:
    """Set in the window (the settings file), seen by `pagewise list`; the environment still wins."""
    folder = tmp_path / "elsewhere"
    settings = Settings.load()
    settings.update({"data_folder": str(folder)})
    settings.save()
    env = {"PAGEWISE_HOME": ""}
    added = _cli("ingest", str(contracts / "endorsement-8p.pdf"), "--json", env=env)
    assert added.returncode == 0, added.stderr
    assert (folder / "library.sqlite").exists()
    listed = _cli("list", "--json", env=env)
    assert "endorsement" in listed.stdout
    other = _cli("list", "--json", env={"PAGEWISE_HOME": str(tmp_path / "other")})
    assert "endorsement" not in other.stdout


def test_apply_to_process_leaves_an_environment_choice(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    settings = Settings({"data_folder": str(tmp_path / "a"), "embedding_model": "my-model"})
    monkeypatch.setenv("PAGEWISE_HOME", str(tmp_path / "b"))
    monkeypatch.setenv("PAGEWISE_EMBEDDING_MODEL", "")  # restored after the test
    apply_to_process(settings)
    assert os.environ["PAGEWISE_HOME"] == str(tmp_path / "b")
    assert os.environ["PAGEWISE_EMBEDDING_MODEL"] == "my-model"

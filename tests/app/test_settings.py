"""Settings: one schema with checks; plans that cannot fit are refused, with the reason."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from app.planning import preview
from app.settings import SCHEMA, Settings, validate
from app.settings_dialog import SettingsDialog
from summarizer.errors import SettingsError


def test_every_setting_has_a_default_that_validates() -> None:
    assert validate({s.key: s.default for s in SCHEMA}) == {}
    assert all(s.description for s in SCHEMA)


def test_bad_values_are_refused_with_a_reason(tmp_path: Path) -> None:
    settings = Settings(path=tmp_path / "settings.json")
    with pytest.raises(SettingsError, match="Model file"):
        settings.update({"model_path": str(tmp_path / "missing.gguf")})
    with pytest.raises(SettingsError, match="2048"):
        settings.update({"context_size": 512})
    with pytest.raises(SettingsError, match="http"):
        settings.update({"remote_url": "localhost:8080"})
    settings.update({"vram_budget": "11.5GiB", "kv_type": "q8_0"})
    settings.save()
    assert Settings.load(tmp_path / "settings.json")["vram_budget"] == "11.5GiB"


@pytest.fixture
def a_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    """An NVIDIA GPU with 8 GiB free and a llama.cpp built for it (simulated): a typed-in
    budget counts only where a GPU is."""
    import inference.planning.gpu_budget as gpu_budget

    monkeypatch.setattr(gpu_budget, "auto_budget", lambda *a, **k: 8 * 1024**3)
    monkeypatch.setattr(gpu_budget, "llama_gpu_build", lambda: True)


@pytest.mark.usefixtures("a_gpu")
def test_a_plan_that_cannot_fit_is_refused_before_loading(qtbot: Any, smollm2_path: Path) -> None:
    values = {"model_path": str(smollm2_path), "vram_budget": "64MiB", "gpu_layers": "31"}
    chosen = preview(values)
    assert chosen.plan is None and chosen.problem
    dialog = SettingsDialog({**{s.key: s.default for s in SCHEMA}, **values})
    qtbot.addWidget(dialog)
    assert dialog.refusal() == chosen.problem
    assert dialog.problem_label.text() == chosen.problem
    assert not dialog.buttons.buttons()[0].isEnabled()
    # A budget that fits: the live preview shows the plan and saving is allowed.
    dialog.set_value("vram_budget", "4GiB")
    assert dialog.refusal() is None, dialog.problem_label.text()
    assert "layers GPU" in dialog.plan_label.text() and "GiB" in dialog.memory_label.text()


@pytest.mark.usefixtures("a_gpu")
def test_the_plan_has_room_for_batched_summaries_on_a_gpu_only(smollm2_path: Path) -> None:
    gpu = preview({"model_path": str(smollm2_path), "vram_budget": "4GiB"})
    assert gpu.plan is not None and gpu.plan.n_seq_max > 1 and gpu.plan.predicted_batch_bytes > 0
    assert f"batches of {gpu.plan.n_seq_max}" in gpu.summary
    assert gpu.plan.predicted.total + gpu.plan.predicted_batch_bytes <= 4 * 1024**3
    cpu = preview({"model_path": str(smollm2_path), "vram_budget": "0"})
    assert cpu.plan is not None and cpu.plan.n_seq_max == 1


def test_the_dialog_refuses_an_invalid_value(qtbot: Any) -> None:
    dialog = SettingsDialog({s.key: s.default for s in SCHEMA})
    qtbot.addWidget(dialog)
    assert dialog.refusal() is None
    dialog.set_value("remote_url", "ftp://example")
    assert dialog.refusal() is not None and "http" in dialog.refusal()


def test_the_context_size_hint_names_what_the_field_shows(qtbot: Any) -> None:
    """The field shows 'auto' for 0; the hint under it must not speak of '0' as the choice."""
    from PySide6.QtWidgets import QComboBox, QLabel

    dialog = SettingsDialog({s.key: s.default for s in SCHEMA})
    qtbot.addWidget(dialog)
    combo = dialog.editors["context_size"]
    assert isinstance(combo, QComboBox) and combo.currentText() == "auto"
    hint = next(
        label.text()
        for label in dialog.findChildren(QLabel)
        if label.property("class") == "hint" and label.text().startswith("Tokens the model sees")
    )
    assert "auto" in hint and not hint.rstrip(".").endswith("0 lets the planner choose")


def test_the_help_texts_show_no_markdown_and_download_keeps_the_edits(qtbot: Any, make_window: Any) -> None:
    """Issue 24: backticks in the help texts; "Download…" closed the dialog and lost the edits."""
    from PySide6.QtWidgets import QLabel

    window = make_window()
    dialog = window.model_setup.open_settings()
    qtbot.addWidget(dialog)
    hints = [label.text() for label in dialog.findChildren(QLabel) if "pagewise config" in label.text()]
    assert hints and all("`" not in text and "<code>pagewise config</code>" in text for text in hints)
    dialog.set_value("remote_url", "http://team-server:8080")
    started: list[bool] = []
    window.model_setup.download_recommended = lambda: started.append(True)  # no network here
    assert dialog.download_button is not None
    dialog.download_button.click()
    assert started and dialog.isVisible() and dialog.values()["remote_url"] == "http://team-server:8080"

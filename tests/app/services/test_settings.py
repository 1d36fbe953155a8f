"""Settings: one schema with checks; plans that cannot fit are refused, with the reason."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from app.services.load_planning import preview
from app.services.settings import SCHEMA, Settings, validate
from app.views.settings_dialog import SettingsDialog
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


def test_load_at_start_is_on_by_default_and_takes_the_words_of_pagewise_config(tmp_path: Path) -> None:
    settings = Settings(path=tmp_path / "settings.json")
    assert settings["load_model_at_start"] is True
    settings.update({"load_model_at_start": "off"})  # `pagewise config set load_model_at_start off`
    assert settings["load_model_at_start"] is False
    settings.update({"load_model_at_start": "yes"})
    assert settings["load_model_at_start"] is True
    with pytest.raises(SettingsError, match="Load the model when the window opens must be on or off"):
        settings.update({"load_model_at_start": "sometimes"})


def test_the_dialog_shows_load_at_start_as_a_check_box(qtbot: Any) -> None:
    from PySide6.QtWidgets import QCheckBox

    dialog = SettingsDialog({"load_model_at_start": False})
    qtbot.addWidget(dialog)
    box = dialog.editors["load_model_at_start"]
    assert isinstance(box, QCheckBox) and not box.isChecked()
    assert dialog.values()["load_model_at_start"] is False
    box.setChecked(True)
    assert dialog.values()["load_model_at_start"] is True


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


# The remote server's API key (issue 24, item 4): a password field under the server's URL, kept
# in the OS keyring (here the tests' in-memory one), never in settings.json.

KEYED_URL = "http://gpu-box:8080"


def test_the_api_key_is_kept_in_the_keyring_never_in_settings_json(
    make_window: Any, memory_keyring: Any, pagewise_home: Path
) -> None:
    from PySide6.QtWidgets import QLineEdit

    window = make_window(settings={"remote_url": KEYED_URL + "/v1"})
    dialog = window.open_settings()
    field = dialog.api_key_edit
    assert field.echoMode() == QLineEdit.EchoMode.Password and field.isEnabled()
    assert "never in settings.json" in dialog.api_key_hint.text()
    field.setText("s3cret-key")
    dialog.accept()
    assert memory_keyring.entries == {("pagewise", KEYED_URL): "s3cret-key"}  # the server's base address
    saved = (pagewise_home / "settings.json").read_text(encoding="utf-8")
    assert "s3cret-key" not in saved and "api_key" not in saved and KEYED_URL in saved
    # Never shown back: the field is empty and says a key is kept; Forget removes it on Save.
    again = window.open_settings()
    assert again.api_key_edit.text() == "" and "kept in the keyring" in again.api_key_edit.placeholderText()
    assert again.forget_key_button.isEnabled()
    again.forget_key_button.click()
    again.accept()
    assert memory_keyring.entries == {}
    third = window.open_settings()
    assert not third.forget_key_button.isEnabled()
    third.accept()  # an untouched field leaves the keyring as it is
    assert memory_keyring.entries == {}


def test_the_key_field_says_when_pagewise_api_key_decides(qtbot: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAGEWISE_API_KEY", "from-env")
    dialog = SettingsDialog({**{s.key: s.default for s in SCHEMA}, "remote_url": KEYED_URL})
    qtbot.addWidget(dialog)
    assert not dialog.api_key_edit.isEnabled()
    assert dialog.api_key_edit.placeholderText() == "key from PAGEWISE_API_KEY"
    assert dialog.api_key_change() is None


@pytest.mark.usefixtures("no_keyring")
def test_without_a_keyring_the_key_field_says_to_use_the_environment(make_window: Any) -> None:
    window = make_window(settings={"remote_url": KEYED_URL})
    dialog = window.open_settings()
    assert not dialog.api_key_edit.isEnabled()
    assert "no keyring" in dialog.api_key_hint.text() and "PAGEWISE_API_KEY" in dialog.api_key_hint.text()
    # A keyring that goes away between opening the dialog and Save: the settings are saved, the
    # key is not, and a message says why.
    assert not window.model_setup.apply_settings({"remote_url": KEYED_URL}, api_key=(KEYED_URL, "k1"))
    assert window.settings["remote_url"] == KEYED_URL
    shown = [m.text for m in window.messages.history if m.key == "api-key"]
    assert shown and "no keyring" in shown[-1] and "PAGEWISE_API_KEY" in shown[-1]


def test_a_key_needs_the_server_it_is_for(qtbot: Any) -> None:
    dialog = SettingsDialog({s.key: s.default for s in SCHEMA})
    qtbot.addWidget(dialog)
    assert not dialog.api_key_edit.isEnabled() and "URL first" in dialog.api_key_hint.text()
    dialog.set_value("remote_url", KEYED_URL)
    assert dialog.api_key_edit.isEnabled()


# A new context size (issue 25, finding 9): saying beforehand when it makes stored summaries again.


def test_a_context_the_stored_summaries_do_not_fit_is_said_before_saving(qtbot: Any) -> None:
    from app.services.load_planning import PlanPreview

    asked: list[int] = []

    def stale(values: Any, n_ctx: int) -> int:
        asked.append(n_ctx)
        return 3 if n_ctx < 8192 else 0

    dialog = SettingsDialog(
        {**{s.key: s.default for s in SCHEMA}, "context_size": 16384},
        planner=lambda _values: PlanPreview(None, "fake-model · test plan"),
        stale_summaries=stale,
    )
    qtbot.addWidget(dialog)
    assert dialog.summaries_label.text() == "" and asked == []  # nothing changed yet
    dialog.set_value("context_size", 4096)
    assert dialog.summaries_label.text() == (
        "The stored summaries of 3 documents were made for a larger context: they will be made again at the next "
        "summary."
    )
    assert dialog.refusal() is None  # a note, not a reason to refuse
    dialog.set_value("context_size", 32768)
    assert dialog.summaries_label.text() == ""
    dialog.set_value("context_size", 16384)  # back to the context it opened with
    assert dialog.summaries_label.text() == ""
    dialog.set_value("context_size", 4096)
    assert "3 documents" in dialog.summaries_label.text() and asked == [4096, 32768]  # read once per context


def test_the_window_counts_the_summaries_a_new_context_makes_again(make_window: Any, tmp_path: Path) -> None:
    from inference.engines.fake import FakeEngine
    from summarizer.llm.model_identity import model_sha256
    from summarizer.summaries.compress import compress
    from tests.summarizer.doc_factory import add_document, numbered_pages

    window = make_window()
    library = window.model_setup.library
    model = tmp_path / "model.gguf"
    model.write_bytes(b"GGUF fake weights")
    sha = model_sha256(library, model)
    doc_id = add_document(library, numbered_pages(12, words_per_page=1700), title="Long Lease")
    compress(library, FakeEngine(default_reply="made at 8K", n_ctx=8192), doc_id, model_sha256=sha)
    count = window.model_setup.summaries_to_redo
    assert count({"model_path": str(model)}, 4096) == 1
    assert count({"model_path": str(model)}, 16384) == 0
    assert count({"model_path": str(tmp_path / "never-hashed.gguf")}, 4096) == 0
    dialog = window.open_settings()
    assert dialog.stale_summaries == count  # what the dialog asks


def test_a_failed_download_is_said_in_the_settings_dialog(qtbot: Any, make_window: Any) -> None:
    """Walk 2026-12-05, finding 27: Settings' Download showed its failure only in a banner behind
    the dialog; the button just became "Download the recommended model again"."""
    from inference.errors import ModelError

    window = make_window()
    dialog = window.model_setup.open_settings()
    qtbot.addWidget(dialog)

    def failing(_job: Any) -> None:
        raise ModelError("Could not download the model: [Errno -2] Name or service not known.")

    def download() -> Any:  # the real job's failure path, without a network
        job = window.runner.submit_llm("download", failing)
        return window.model_setup._on_activity_line(job, "downloading the model", "download")

    window.model_setup.download_recommended = download
    assert dialog.download_button is not None
    dialog.download_button.click()
    qtbot.waitUntil(lambda: dialog.download_button.isEnabled(), timeout=10_000)
    assert dialog.isVisible() and dialog.download_problem.isVisible()
    assert "Name or service not known" in dialog.download_problem.text()
    assert dialog.download_problem.text().startswith("The download did not finish:")


def test_dark_colours_can_be_asked_for_in_the_settings(qtbot: Any, make_window: Any) -> None:
    """Walk 2026-12-05, finding 28: dark mode had no setting and no documented way to ask for it
    on Linux without a desktop that reports dark (the offscreen platform here reports none)."""
    from PySide6.QtWidgets import QApplication

    from app.widgets.appearance import apply_appearance, is_dark

    app = QApplication.instance()
    assert isinstance(app, QApplication)
    try:
        window = make_window(settings={"appearance": "dark"})
        assert is_dark(app)
        assert window.model_setup.apply_settings({"appearance": "light"})
        assert not is_dark(app)
        assert window.model_setup.apply_settings({"appearance": "dark"}) and is_dark(app)
        assert window.model_setup.apply_settings({"appearance": "auto"}) and not is_dark(app)  # this desktop's
    finally:
        apply_appearance(app, "auto")


def test_the_mouse_wheel_over_the_form_scrolls_it_and_changes_no_setting(qtbot: Any) -> None:
    """Walk 2026-12-05, finding 5: scrolling Settings with the pointer over the fields turned
    "Background summaries" from auto to off and "GPU layers" from auto to 0."""
    from PySide6.QtCore import QPoint, QPointF
    from PySide6.QtGui import QWheelEvent
    from PySide6.QtWidgets import QApplication, QScrollArea

    dialog = SettingsDialog({s.key: s.default for s in SCHEMA})
    qtbot.addWidget(dialog)
    dialog.resize(700, 420)  # short: the form scrolls
    dialog.show()
    qtbot.waitExposed(dialog)
    bar = dialog.findChild(QScrollArea).verticalScrollBar()
    assert bar.maximum() > 0
    before = dialog.values()

    def wheel_down(widget: Any) -> bool:
        """A wheel turn over ``widget``; whether it took it (an ignored one goes on to the scroll
        area, as the window system's own wheel events do)."""
        centre = QPointF(widget.rect().center())
        event = QWheelEvent(centre, QPointF(widget.mapToGlobal(centre.toPoint())), QPoint(0, 0), QPoint(0, -120),
                            Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase,
                            False)  # fmt: skip
        QApplication.sendEvent(widget, event)
        return event.isAccepted()

    dialog.buttons.setFocus()
    for key in ("background_summaries", "gpu_layers", "context_size", "kv_type"):
        assert not wheel_down(dialog.editors[key]), key  # left to the form's scroll area
        assert dialog.values()[key] == before[key], key
        assert not dialog.editors[key].hasFocus()
    editor = dialog.editors["background_summaries"]
    editor.setFocus()  # clicked or tabbed to: the wheel moves its choice as usual
    qtbot.waitUntil(editor.hasFocus)
    assert wheel_down(editor)
    assert dialog.values()["background_summaries"] != before["background_summaries"]


def test_the_key_field_warns_of_plain_http_to_another_computer(qtbot: Any) -> None:
    dialog = SettingsDialog({**{s.key: s.default for s in SCHEMA}, "remote_url": "http://10.0.0.5:8080"})
    qtbot.addWidget(dialog)
    dialog.refresh()
    assert "Warning" in dialog.api_key_hint.text() and "unencrypted" in dialog.api_key_hint.text()
    local = SettingsDialog({**{s.key: s.default for s in SCHEMA}, "remote_url": "http://127.0.0.1:8080"})
    qtbot.addWidget(local)
    local.refresh()
    assert "Warning" not in local.api_key_hint.text()

"""The model's status line and settings (finding: after switching from a remote server back to
a local model, the status bar still said "Remote model at …")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.app.conftest import wait_for_document
from tests.conftest import CONTRACTS


def test_the_status_line_follows_a_switch_from_a_remote_server_to_a_local_model(
    qtbot: Any, make_window: Any, smollm2_path: Path
) -> None:
    window = make_window(settings={"remote_url": "http://127.0.0.1:9/v1"}, real_planner=True)
    window.add_paths([CONTRACTS / "endorsement-8p.pdf"])
    wait_for_document(qtbot, window)
    with qtbot.waitSignal(window.ask("Who signs?").finished, timeout=20_000):
        pass
    assert window.session.loaded and window.status.plan_label.text().startswith("Remote model at http://127.0.0.1:9")
    assert window.model_setup.apply_settings({"remote_url": "", "model_path": str(smollm2_path)})
    line = window.status.plan_label.text()
    assert "Remote" not in line and line.endswith("not loaded yet"), line
    assert window.model_setup.apply_settings({"data_folder": ""})  # not a model setting: nothing changes
    assert window.status.plan_label.text() == line


def test_a_file_that_is_not_a_gguf_model_is_refused_and_the_welcome_panel_stays(
    qtbot: Any, make_window: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    """Issue 24: "Choose a GGUF file…" saved a text file named x.gguf, and the welcome panel went."""
    from PySide6.QtWidgets import QFileDialog

    fake = tmp_path / "x.gguf"
    fake.write_text("not a model\n")
    window = make_window(settings={"model_path": ""})
    assert not window.welcome.isHidden()
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(fake), ""))  # the user picks it
    window.model_setup.choose_model_file()
    assert window.settings["model_path"] == ""
    assert not window.welcome.isHidden()
    message = window.messages.history[-1].text
    assert "x.gguf is not a GGUF model" in message


def test_file_dialogs_open_where_the_user_was_last(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    """Issue 24: every file dialog opened in the working directory."""
    from app.widgets import file_dialogs
    from summarizer.library.storage.paths import models_dir

    make_window()
    assert file_dialogs.start_folder("model") == str(models_dir())
    assert file_dialogs.start_folder("pdf") == str(Path.home())
    folder = tmp_path / "contracts"
    folder.mkdir()
    file_dialogs.remember("pdf", str(folder / "a.pdf"))
    assert file_dialogs.start_folder("pdf") == str(folder)
    assert file_dialogs.start_folder("export") == str(Path.home())  # each kind its own


def test_a_failed_download_banner_goes_when_a_model_is_chosen(qtbot: Any, make_window: Any, smollm2_path: Path) -> None:
    from inference.errors import ModelError

    window = make_window(settings={"model_path": ""})
    window.messages.report(ModelError("Could not download the model: no network."), key="download")
    assert any("no network" in item.message.text for item in window.message_bar.items())
    assert window.model_setup.apply_settings({"model_path": str(smollm2_path)})
    assert not any("no network" in item.message.text for item in window.message_bar.items())


def test_a_key_saved_in_the_settings_reaches_the_server_and_a_new_one_reconnects(make_window: Any) -> None:
    """The window's session makes its remote engine with the keyring's key for the server; a key
    saved later is used from the next question on (an engine keeps the key it was made with)."""
    from app.services.model_session import ModelSession
    from inference.engines.engine import ChatMessage
    from tests.inference.engines.openai_fake import FakeServer, serving

    server = FakeServer(api_key="k1")
    with serving(server) as url:
        session = ModelSession({"remote_url": url})  # the real engine factory and planner
        window = make_window(settings={"remote_url": url}, session=session)
        dialog = window.open_settings()
        dialog.api_key_edit.setText("k1")
        dialog.accept()
        engine = session.ensure_loaded()
        assert engine.complete([ChatMessage("user", "Hi")], max_tokens=8).text == "Hello there, friend."
        assert set(server.authorizations) == {"Bearer k1"}
        server.api_key = "k2"  # the key was changed on the server
        assert window.model_setup.apply_settings({}, api_key=(url, "k2"))
        assert window.status.plan_label.text().endswith("not loaded yet")
        engine = session.ensure_loaded()
        assert engine.complete([ChatMessage("user", "Hi")], max_tokens=8).text == "Hello there, friend."
        assert server.authorizations[-1] == "Bearer k2"
        session.close()


# Loading the model when the window opens (issue 47)


def _fake_model_file(tmp_path: Path) -> str:
    path = tmp_path / "model.gguf"
    path.write_bytes(b"GGUF")  # the fake planner never reads it
    return str(path)


def test_a_question_asked_while_the_model_loads_waits_for_it_and_then_answers(
    qtbot: Any, make_window: Any, fake_engine: Any, tmp_path: Path
) -> None:
    import threading

    fake_engine.load_gate = threading.Event()  # the load holds until the test lets it finish
    fake_engine.queue("The endorser signs it (p. 1).")
    window = make_window(settings={"model_path": _fake_model_file(tmp_path)})
    qtbot.waitUntil(fake_engine.load_started.is_set, timeout=10_000)
    assert window.status.model_loading.isVisibleTo(window)
    assert window.status.model_loading.text().startswith("loading model…")
    window.add_paths([CONTRACTS / "endorsement-8p.pdf"])
    wait_for_document(qtbot, window)
    job = window.ask("Who signs?")
    assert job is not None
    assert window.conversation.progress.label.text() == "Waiting for the model to load…"
    assert not window.session.loaded
    failures: list[BaseException] = []
    job.failed.connect(failures.append)
    with qtbot.waitSignal(job.finished, timeout=20_000):
        fake_engine.load_gate.set()
    assert not failures
    assert window.conversation.turns[-1].text.startswith("The endorser signs it")
    assert fake_engine.load_count == 1  # the answer used the load it waited for
    assert window.status.model_loading.isHidden()
    assert window.status.plan_label.text().startswith("fake-model")


def test_the_background_load_hashes_the_model_file_so_the_first_question_does_not(
    qtbot: Any, make_window: Any, fake_engine: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    """Issue 47 on the GPU machine: the load was done 3.7 s after the window opened, but the first
    question then hashed the 4.9 GB model file (the key of the stored summaries) before its
    first token: 5.2 s. The load job starts the digest in a thread of its own (nobody waits for
    it: a first question reads the file only where a stored summary may be this model's)."""
    from summarizer.llm.model_identity import known_model_sha256

    model = _fake_model_file(tmp_path)
    monkeypatch.setattr(type(fake_engine), "model_path", property(lambda _self: model))  # the fake plans none
    window = make_window(settings={"model_path": model})
    qtbot.waitUntil(lambda: known_model_sha256(window.library, model) is not None, timeout=10_000)
    assert window.session.loaded  # before any question


def test_escape_on_a_question_waiting_for_the_load_stops_the_question_not_the_load(
    qtbot: Any, make_window: Any, fake_engine: Any, tmp_path: Path
) -> None:
    import threading

    fake_engine.load_gate = threading.Event()
    window = make_window(settings={"model_path": _fake_model_file(tmp_path)})
    window.add_paths([CONTRACTS / "endorsement-8p.pdf"])
    wait_for_document(qtbot, window)
    qtbot.waitUntil(fake_engine.load_started.is_set, timeout=10_000)
    load = window.model_setup.load_job
    job = window.ask("Who signs?")
    assert job is not None and load is not None
    with qtbot.waitSignal(job.cancelled, timeout=20_000):
        window.answers.cancel()
        fake_engine.load_gate.set()
    qtbot.waitUntil(lambda: window.model_setup.load_job is None, timeout=10_000)
    assert window.session.loaded and fake_engine.load_count == 1


def test_the_load_at_start_begins_after_the_first_paint(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    from inference.engines.fake import FakeEngine

    painted_when_loading: list[bool] = []

    class Watched(FakeEngine):
        def load(self, *args: Any, **kwargs: Any) -> Any:
            painted_when_loading.append(window.first_painted)
            return super().load(*args, **kwargs)

    engine = Watched(autoload=False)
    window = make_window(engine=engine, settings={"model_path": _fake_model_file(tmp_path)})
    assert not window.first_painted and window.model_setup.load_job is None  # shown, not yet drawn
    qtbot.waitUntil(lambda: window.session.loaded, timeout=10_000)
    assert painted_when_loading == [True]


def test_the_setting_off_loads_nothing_at_start(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    from inference.engines.fake import FakeEngine

    for setting in (True, False):  # the same steps: only the setting differs
        engine = FakeEngine(autoload=False)
        window = make_window(engine=engine, settings={"model_path": _fake_model_file(tmp_path),
                                                      "load_model_at_start": setting})  # fmt: skip
        qtbot.waitUntil(lambda window=window: window.first_painted, timeout=10_000)
        qtbot.wait(200)  # the timer after the first paint has fired
        assert (window.model_setup.load_job is not None or engine.load_count == 1) is setting
        assert engine.load_started.is_set() is setting
        window.close()


def test_no_load_at_start_without_a_model_file(qtbot: Any, make_window: Any, fake_engine: Any) -> None:
    window = make_window()  # no model configured
    qtbot.waitUntil(lambda: window.first_painted, timeout=10_000)
    qtbot.wait(200)
    assert window.model_setup.load_job is None and not fake_engine.load_started.is_set()

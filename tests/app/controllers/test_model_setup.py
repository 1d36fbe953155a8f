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

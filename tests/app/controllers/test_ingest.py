"""Adding a data room in the window (issue 46): one progress over the set, a summary at the end,
failed files' rows, and a batch the window was closed in the middle of offered at the next start."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from inference.cancel import Cancelled, CancelToken
from inference.progress import Progress
from summarizer.library.batches.batch_store import unfinished_batch
from summarizer.library.batches.run_batch import run_batch, start_batch
from summarizer.library.ingest import IngestOptions
from summarizer.library.storage.store import Library
from tests.summarizer.library.batches.conftest import data_room  # noqa: F401  (a fixture)


def _wait_idle(qtbot: Any, window: Any) -> None:
    qtbot.waitUntil(lambda: not window.runner.ingests, timeout=90_000)


def test_a_dropped_folder_is_added_as_one_batch_with_a_summary(
    qtbot: Any,
    make_window: Any,
    data_room: Path,  # noqa: F811
) -> None:
    window = make_window()
    seen: list[Progress] = []
    job = window.add_paths([data_room])
    job.batch_progress.connect(seen.append)
    labels: list[str] = []
    job.batch_progress.connect(lambda _p: labels.append(window.ingest_progress.label.text()))
    _wait_idle(qtbot, window)
    assert [p.done for p in seen] == list(range(10)) and {p.total for p in seen} == {9}
    assert any(label.startswith("Adding files 3/9 · ") and "pages/s" in label for label in labels), labels
    summary = window.messages.history[-1]
    assert summary.text.startswith(f"Added {data_room.name}: 6 added, 1 skipped as duplicate, 2 failed")
    panel = window.library_panel
    assert panel.file_state(str(data_room / "broken.pdf")) == "error · could not be added"
    assert panel.file_state(str(data_room / "services" / "locked.pdf")) == "encrypted · needs its password"
    qtbot.waitUntil(lambda: len([k for k in panel.row_keys() if not k.startswith("path:")]) == 6, timeout=5000)
    with Library.open() as library:
        assert unfinished_batch(library) is None


def test_the_window_closed_mid_batch_offers_to_continue_at_the_next_start(
    qtbot: Any,
    make_window: Any,
    data_room: Path,  # noqa: F811
) -> None:
    """The library as a window closed after two files leaves it (each file's outcome is committed
    as it ends; the process killed mid-file leaves that file pending, resumed by ingest)."""
    token = CancelToken()

    def close_after_two(file: Any, _outcome: str, _reason: str, _result: Any) -> None:
        if file.seq == 1:
            token.cancel()

    with Library.open() as library:
        batch_id = start_batch(library, [data_room])
        with pytest.raises(Cancelled):
            run_batch(library, batch_id, IngestOptions(embed=False), on_file=close_after_two, cancel=token)
    again = make_window()
    offer = next(m for m in again.messages.history if m.key == "ingest-batch")
    assert offer.text == f"Adding {data_room.name} was stopped before it finished: 2 of 9 files done, 7 to add."
    assert offer.action == "Continue"
    assert offer.on_action is not None
    offer.on_action()
    _wait_idle(qtbot, again)
    assert "6 added, 1 skipped as duplicate, 2 failed" in again.messages.history[-1].text
    with Library.open() as library:
        assert unfinished_batch(library) is None and len(library.documents()) == 6

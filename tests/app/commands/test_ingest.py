"""``pagewise ingest FOLDER/`` as a batch (issue 46): JSON events, the summary, --resume."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.cli import main
from summarizer.library.batches.batch_store import unfinished_batch
from summarizer.library.batches.run_batch import start_batch
from summarizer.library.storage.store import Library
from tests.summarizer.library.batches.conftest import data_room  # noqa: F401  (a fixture)


def _events(capsys: pytest.CaptureFixture[str]) -> list[dict[str, object]]:
    return [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.strip()]


def test_a_folder_is_added_with_progress_events_and_a_summary(
    data_room: Path,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["ingest", "--ocr", "never", str(data_room), "--json"])
    events = _events(capsys)
    assert code == 1, "some files failed"
    progress = [e for e in events if e.get("event") == "progress"]
    assert [e["files_done"] for e in progress] == list(range(10)) and progress[0]["files_total"] == 9
    assert progress[-1]["pages_per_s"] is not None and progress[-1]["pages"] == 10
    added = {Path(str(e["path"])).name: e for e in events if e.get("outcome") == "added"}
    assert added["licence.pdf"]["folder"] == "licensing/2019" and added["a.pdf"]["folder"] == "archive/inner"
    errors = {Path(str(e["path"])).name: e["error"] for e in events if "error" in e}
    assert set(errors) == {"broken.pdf", "locked.pdf"}
    summary = events[-1]
    assert summary["event"] == "summary" and (summary["added"], summary["duplicates"]) == (6, 1)
    assert main(["list", "--json"]) == 0
    folders = {Path(str(row["path"])).name: row["folder"] for row in _events(capsys)}
    assert folders["Vertrag über Dienste – Zürich.pdf"] == "services" and folders["supply.pdf"] == ""


def test_resume_continues_the_unfinished_batch(
    data_room: Path,  # noqa: F811
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["ingest", "--resume"]) == 2
    assert "no unfinished batch" in capsys.readouterr().err
    with Library.open() as library:  # a batch planned, then the window closed before any file
        batch_id = start_batch(library, [data_room / "licensing"], tmp_path / "unpacked")
    main(["ingest", "--resume", "--ocr", "never"])
    out = capsys.readouterr().out
    assert "licence" in out and "Batch 1: 1 added" in out
    with Library.open() as library:
        assert unfinished_batch(library) is None and batch_id == 1

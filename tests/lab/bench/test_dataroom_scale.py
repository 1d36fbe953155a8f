"""The data room benchmark's room is one the product's folder walk adds: plain files in their
folders, no links (a dropped folder's links are skipped, never followed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lab.bench import dataroom_scale
from summarizer.library.batches.folder_walk import find_documents


def test_the_room_is_added_whole_by_the_folder_walk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rendered = tmp_path / "dataroom"
    for folder, name in (("licensing", "a.pdf"), ("services", "b.pdf"), ("services", "c.pdf")):
        (rendered / folder).mkdir(parents=True, exist_ok=True)
        (rendered / folder / name).write_bytes(b"%PDF-1.4 " + name.encode())
    monkeypatch.setattr(dataroom_scale, "ROOM", rendered)
    monkeypatch.setattr(dataroom_scale, "WORK", tmp_path / "bench")
    stale = tmp_path / "bench" / "room-3" / "licensing" / "a.pdf"
    stale.parent.mkdir(parents=True)
    stale.symlink_to(rendered / "licensing" / "a.pdf")  # what the benchmark made before

    room = dataroom_scale.room_for(3)

    entries = sorted(p.relative_to(room).as_posix() for p in room.rglob("*.pdf"))
    assert entries == ["licensing/a.pdf", "services/b.pdf", "services/c.pdf"]
    assert not any(p.is_symlink() for p in room.rglob("*.pdf"))
    found = find_documents([room], tmp_path / "unpacked")
    assert found.skipped == []
    assert len(found.files) == 3

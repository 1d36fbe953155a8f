"""The library kept private to the user on POSIX (shared/reports/hostile-inputs-2026-12-06.md,
section 5): the data folder 0700, the library, vectors, settings and unpacked copies 0600."""

from __future__ import annotations

import os
import stat
import zipfile
from pathlib import Path

import pytest

from summarizer.library.storage.paths import data_home
from summarizer.library.storage.store import Library

pytestmark = pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX's; AppData is private on Windows")


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture(autouse=True)
def _usual_umask() -> object:
    old = os.umask(0o022)  # the usual one, which left files 0644 in 0755 folders
    yield None
    os.umask(old)


def test_the_data_folder_and_library_are_the_user_s_alone(pagewise_home: Path) -> None:
    assert not pagewise_home.exists()
    with Library.open() as library:
        library.db.execute("CREATE TABLE IF NOT EXISTS probe (x)")
    assert _mode(data_home()) == 0o700
    assert _mode(pagewise_home / "library.sqlite") == 0o600
    assert all(_mode(p) == 0o600 for p in pagewise_home.glob("library.sqlite-*"))


def test_the_default_data_folder_is_made_private_when_it_exists_already(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import platformdirs

    folder = tmp_path / "share" / "Pagewise"
    folder.mkdir(parents=True, mode=0o755)
    monkeypatch.delenv("PAGEWISE_HOME")
    monkeypatch.setattr(platformdirs, "user_data_dir", lambda *a, **k: str(folder))
    assert data_home() == folder and _mode(folder) == 0o700


def test_a_folder_the_user_named_is_not_changed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o755)
    monkeypatch.setenv("PAGEWISE_HOME", str(shared))
    assert data_home() == shared and _mode(shared) == 0o755


def test_settings_vectors_and_unpacked_copies_are_0600(tmp_path: Path) -> None:
    from app.services.settings import Settings, settings_path
    from summarizer.library.batches.archives import unpack_archive
    from summarizer.library.vectors.vector_index import VectorIndex, _write

    Settings({"remote_url": "https://llm.example.com"}).save()
    assert _mode(settings_path()) == 0o600 and _mode(settings_path().parent) == 0o700

    import faiss

    index = VectorIndex(faiss.IndexIDMap(faiss.IndexFlatIP(4)), 1, "model")
    _write(data_home() / "vectors.faiss", index)
    assert _mode(data_home() / "vectors.faiss") == 0o600

    archive = tmp_path / "room.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("deals/a.pdf", b"%PDF-1.4 x")
    result = unpack_archive(archive, data_home() / "unpacked")
    ((file, _),) = result.files
    assert _mode(file) == 0o600 and _mode(result.folder) == 0o700

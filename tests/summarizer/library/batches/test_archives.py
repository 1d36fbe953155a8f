"""Unpacking a data room's .zip: only documents, never outside the target folder, bounded."""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

import pytest

from summarizer.errors import DocumentError
from summarizer.library.batches import archives
from summarizer.library.batches.archives import safe_member_path, unpack_archive
from tests.pdf_factory import make_pdf, text_pages


def test_member_names_that_leave_the_folder_are_refused() -> None:
    assert safe_member_path("deal/a.pdf") is not None
    for name in ("../evil.pdf", "a/../../evil.pdf", "/etc/evil.pdf", "C:/evil.pdf", "..\\evil.pdf"):
        assert safe_member_path(name) is None, name


def test_a_zip_slip_member_is_skipped_and_nothing_is_written_outside(tmp_path: Path) -> None:
    pdf = make_pdf(tmp_path / "x.pdf", text_pages(1))
    archive = tmp_path / "room.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.write(pdf, "../../escaped.pdf")
        z.write(pdf, "ok/kept.pdf")
        z.write(pdf, "~$lock.docx")
        z.writestr("nested.zip", b"PK")
    result = unpack_archive(archive, tmp_path / "unpacked")
    assert [inner for _, inner in result.files] == ["ok/kept.pdf"]
    assert result.files[0][0].is_file() and result.files[0][0].is_relative_to(tmp_path / "unpacked")
    reasons = dict(result.skipped)
    assert "outside" in reasons["../../escaped.pdf"]
    assert "lock file" in reasons["~$lock.docx"] and "zip inside the zip" in reasons["nested.zip"]
    assert not (tmp_path / "escaped.pdf").exists() and not (tmp_path.parent / "escaped.pdf").exists()


def test_an_archive_larger_than_the_limit_is_refused_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    archive = tmp_path / "big.zip"
    with zipfile.ZipFile(archive, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("big.pdf", b"%PDF-1.4\n" + b"0" * 4096)
    monkeypatch.setattr(archives, "MAX_UNPACKED_BYTES", 1024)
    with pytest.raises(DocumentError, match="more than the"):
        unpack_archive(archive, tmp_path / "unpacked")
    assert not (tmp_path / "unpacked").exists()


def test_a_file_that_is_not_a_zip_says_so(tmp_path: Path) -> None:
    fake = tmp_path / "room.zip"
    fake.write_bytes(b"not a zip at all")
    with pytest.raises(DocumentError, match=r"room\.zip is not a zip archive"):
        unpack_archive(fake, tmp_path / "unpacked")


def test_unpacking_again_reuses_the_folder(tmp_path: Path) -> None:
    pdf = make_pdf(tmp_path / "x.pdf", text_pages(1))
    archive = tmp_path / "room.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.write(pdf, "Verträge/x.pdf")
    first = unpack_archive(archive, tmp_path / "unpacked")
    stamp = first.files[0][0].stat().st_mtime_ns
    second = unpack_archive(archive, tmp_path / "unpacked")
    assert second.files == first.files and second.files[0][0].stat().st_mtime_ns == stamp
    assert second.files[0][1] == "Verträge/x.pdf"


def _interrupted_unpack(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A room unpacked, then its folder left unmarked as an interrupted unpack leaves it."""
    archive = tmp_path / "room.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.write(make_pdf(tmp_path / "a.pdf", text_pages(1)), "deal/a.pdf")
        z.write(make_pdf(tmp_path / "b.pdf", text_pages(2)), "deal/b.pdf")
    first = unpack_archive(archive, tmp_path / "unpacked")
    (first.folder / archives.COMPLETE_MARK).unlink()
    return archive, first.files[0][0], first.folder


def test_unpacking_again_leaves_an_open_document_alone(tmp_path: Path, windows_file_locks: Any) -> None:
    """On Windows the window or the ingest process may hold an unpacked document open: an open
    file cannot be replaced, so one already out whole is kept (issue 54)."""
    archive, shown, folder = _interrupted_unpack(tmp_path)
    before = shown.read_bytes()
    with shown.open("rb"):  # the viewer shows it
        again = unpack_archive(archive, tmp_path / "unpacked")
    assert [inner for _, inner in again.files] == ["deal/a.pdf", "deal/b.pdf"]
    assert shown.read_bytes() == before and (folder / archives.COMPLETE_MARK).is_file()
    assert not windows_file_locks.refusals


def test_a_damaged_copy_held_open_is_named(tmp_path: Path, windows_file_locks: Any) -> None:
    archive, shown, _ = _interrupted_unpack(tmp_path)
    shown.write_bytes(b"%PDF-1.4 cut short")
    with shown.open("rb"), pytest.raises(DocumentError, match="is open in another program"):
        unpack_archive(archive, tmp_path / "unpacked")
    assert not list(shown.parent.glob("*.part"))

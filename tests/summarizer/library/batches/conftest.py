"""A data room with every kind of bad input beside its good documents (issue 46)."""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

import pytest

from tests.pdf_factory import make_pdf, text_pages


def encrypted_pdf(path: Path) -> Path:
    from pypdf import PdfReader, PdfWriter

    source = make_pdf(path.with_name("plain-" + path.name), text_pages(2, tag="locked"))
    writer = PdfWriter()
    for page in PdfReader(source).pages:
        writer.add_page(page)
    writer.encrypt("secret", algorithm="AES-128")
    with path.open("wb") as handle:
        writer.write(handle)
    source.unlink()
    return path


@pytest.fixture
def data_room(tmp_path: Path) -> Path:
    """room/: 3 good PDFs (one in a nested folder, one with a non-ASCII name), a duplicate, an
    encrypted one, a broken one, an unreadable one, a Word lock file, a text file and a zip of two."""
    room = tmp_path / "room"
    (room / "licensing" / "2019").mkdir(parents=True)
    (room / "services").mkdir()
    make_pdf(room / "licensing" / "2019" / "licence.pdf", text_pages(3, tag="licence"))
    make_pdf(room / "services" / "Vertrag über Dienste – Zürich.pdf", text_pages(2, tag="dienste"))
    make_pdf(room / "supply.pdf", text_pages(2, tag="supply"))
    (room / "services" / "copy of supply.pdf").write_bytes((room / "supply.pdf").read_bytes())
    encrypted_pdf(room / "services" / "locked.pdf")
    (room / "broken.pdf").write_bytes(b"%PDF-1.7\n1 0 obj\n<< /Type /Catalog >>\ngarbage")
    make_pdf(room / "unreadable.pdf", text_pages(1, tag="secret"))  # made unreadable by `unreadable`
    (room / "~$licence.docx").write_bytes(b"\x05alice" + b"\x00" * 150)
    (room / "notes.txt").write_text("not a document")
    zipped = tmp_path / "zip-src"
    zipped.mkdir()
    make_pdf(zipped / "a.pdf", text_pages(1, tag="zip a"))
    make_pdf(zipped / "b.pdf", text_pages(1, tag="zip b"))
    with zipfile.ZipFile(room / "archive.zip", "w") as archive:
        archive.write(zipped / "a.pdf", "inner/a.pdf")
        archive.write(zipped / "b.pdf", "b.pdf")
        archive.writestr("readme.md", "hello")
    return room


@pytest.fixture
def unreadable(data_room: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Opening any file named unreadable.pdf fails as a file without read permission does (a
    chmod would not do: the tests may run as root, who reads it anyway)."""
    real_open = Path.open

    def guarded(self: Path, *args: Any, **kwargs: Any) -> Any:
        mode = args[0] if args else kwargs.get("mode", "r")
        if self.name == "unreadable.pdf" and "r" in mode:
            raise PermissionError(13, "Permission denied", str(self))
        return real_open(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", guarded)

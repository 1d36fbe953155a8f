"""A data room from the other side (shared/reports/hostile-inputs-2026-12-06.md, sections 2 to 4): any
exception on one file is that file's error and the batch goes on; links, pipes and odd zip members
are skipped with their reason, the rest of the room added."""

from __future__ import annotations

import os
import zipfile
from pathlib import Path
from typing import Any

import pytest

from summarizer.errors import DocumentError
from summarizer.library import ingest_read
from summarizer.library.batches import run_batch as run_batch_module
from summarizer.library.batches.archives import unpack_archive
from summarizer.library.batches.batch_store import unfinished_batch
from summarizer.library.batches.folder_walk import find_documents
from summarizer.library.batches.run_batch import run_batch, start_batch
from summarizer.library.ingest import IngestOptions, ingest_path
from summarizer.library.reading.file_type import sniff
from summarizer.library.storage.store import Library
from tests.docx_factory import para, write_docx
from tests.pdf_factory import make_pdf, text_pages

FAST = IngestOptions(embed=False, ocr="never")


def test_an_unexpected_exception_on_one_file_is_its_error_and_the_batch_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    room = tmp_path / "room"
    room.mkdir()
    make_pdf(room / "a.pdf", text_pages(1, tag="a"))
    make_pdf(room / "b.pdf", text_pages(1, tag="b"))
    real = run_batch_module.ingest_path

    def poisoned(library: Library, path: Path, *args: Any, **kwargs: Any) -> Any:
        if path.name == "a.pdf":
            raise RecursionError("maximum recursion depth exceeded")
        return real(library, path, *args, **kwargs)

    monkeypatch.setattr(run_batch_module, "ingest_path", poisoned)
    with Library.open() as library:
        summary = run_batch(library, start_batch(library, [room], tmp_path / "unpacked"), FAST)
        assert unfinished_batch(library) is None  # finished: no --resume stops at a.pdf again
    ((path, reason),) = summary.failed
    assert path.endswith("a.pdf") and "Pagewise failed on it (RecursionError" in reason
    assert summary.added == 1


def test_a_reader_s_own_exception_becomes_the_file_s_document_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(path: Path) -> None:
        raise OverflowError("int too large to convert")

    monkeypatch.setattr(ingest_read, "DocxPages", broken)
    path = write_docx(tmp_path / "odd.docx", para("Text."))
    with Library.open() as library, pytest.raises(DocumentError, match=r"odd\.docx could not be read: .*Overflow"):
        ingest_path(library, path, FAST)


def test_links_and_pipes_in_a_dropped_folder_are_skipped_with_a_reason(tmp_path: Path) -> None:
    outside = tmp_path / "my own"
    outside.mkdir()
    make_pdf(outside / "private.pdf", text_pages(1, tag="private"))
    room = tmp_path / "room"
    room.mkdir()
    make_pdf(room / "deal.pdf", text_pages(1, tag="deal"))
    (room / "linked.pdf").symlink_to(outside / "private.pdf")
    (room / "linked folder").symlink_to(outside, target_is_directory=True)
    os.mkfifo(room / "pipe.docx")
    found = find_documents([room], tmp_path / "unpacked")
    assert [f.path.name for f in found.files] == ["deal.pdf"]
    reasons = {Path(path).name: reason for path, reason in found.skipped}
    assert "a link to a file elsewhere: not followed" in reasons["linked.pdf"]
    assert "a link to a folder elsewhere" in reasons["linked folder"]
    assert "pipe" in reasons["pipe.docx"]
    assert not any("my own" in reason for reason in reasons.values())  # where a link points is not said


def test_a_pipe_added_by_name_is_refused_without_opening_it(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.docx")
    with pytest.raises(DocumentError, match=r"pipe\.docx is not a file"):
        sniff(tmp_path / "pipe.docx")


def test_a_zip_without_documents_unpacks_to_nothing_without_an_error(tmp_path: Path) -> None:
    archive = tmp_path / "sheets.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("budget.xlsx", b"PK")
    result = unpack_archive(archive, tmp_path / "unpacked")
    assert result.files == [] and "not a PDF or Word document" in dict(result.skipped)["budget.xlsx"]


def _set_method(path: Path, name: str, method: int) -> None:
    """Write ``method`` as the compression method of member ``name`` (local header and central directory)."""
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as z:
        offset = z.getinfo(name).header_offset
    data[offset + 8 : offset + 10] = method.to_bytes(2, "little")
    central = data.index(b"PK\x01\x02")
    while data[central + 46 : central + 46 + len(name)] != name.encode():
        central = data.index(b"PK\x01\x02", central + 4)
    data[central + 10 : central + 12] = method.to_bytes(2, "little")
    path.write_bytes(bytes(data))


def test_a_deflate64_member_or_a_name_too_long_skips_that_member_only(tmp_path: Path) -> None:
    pdf = make_pdf(tmp_path / "x.pdf", text_pages(1))
    archive = tmp_path / "room.zip"
    long_name = "a" * 252 + ".pdf"
    with zipfile.ZipFile(archive, "w") as z:
        z.write(pdf, "kept.pdf")
        z.write(pdf, "deflate64.pdf")
        z.write(pdf, long_name)
    _set_method(archive, "deflate64.pdf", 9)
    result = unpack_archive(archive, tmp_path / "unpacked")
    assert [inner for _, inner in result.files] == ["kept.pdf"]
    reasons = dict(result.skipped)
    assert "Deflate64" in reasons["deflate64.pdf"] and "too long" in reasons[long_name]


def test_removing_a_room_s_documents_deletes_their_unpacked_copies(tmp_path: Path) -> None:
    from summarizer.library.batches.run_batch import unpack_folder
    from summarizer.library.storage.paths import data_home

    pdf_a = make_pdf(tmp_path / "a.pdf", text_pages(1, tag="a"))
    pdf_b = make_pdf(tmp_path / "b.pdf", text_pages(1, tag="b"))
    archive = tmp_path / "room.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.write(pdf_a, "deals/a.pdf")
        z.write(pdf_b, "b.pdf")
    outside = make_pdf(tmp_path / "mine.pdf", text_pages(1, tag="mine"))
    with Library.open() as library:
        summary = run_batch(library, start_batch(library, [archive, outside]), FAST)
        assert summary.added == 3
        docs = {Path(d.path).name: d for d in library.documents()}
        folder = Path(docs["a.pdf"].path).parents[1]
        assert folder.parent == unpack_folder() and (folder / ".unpacked").is_file()
        library.remove(docs["a.pdf"].doc_id)
        assert not Path(docs["a.pdf"].path).exists() and not (folder / "deals").exists()
        assert Path(docs["b.pdf"].path).is_file() and not (folder / ".unpacked").exists()
        library.remove(docs["b.pdf"].doc_id)
        assert not folder.exists()
        library.remove(docs["mine.pdf"].doc_id)
        assert outside.is_file()  # a file the user added is never deleted
    assert data_home().is_dir()


def test_files_not_added_are_named_with_what_to_do(tmp_path: Path) -> None:
    """Walk 2026-12-06, finding 9: "1 not added (not documents)" named nothing and said nothing to do."""
    from summarizer.library.batches.batch_store import describe_not_added

    room = tmp_path / "room"
    room.mkdir()
    (room / "old.doc").write_bytes(b"\xd0\xcf\x11\xe0")
    (room / "~$draft.docx").write_bytes(b"\x05alice")
    found = find_documents([room], tmp_path / "unpacked")
    line = describe_not_added(found.skipped)
    assert line.startswith("2 not added: old.doc (an old Word 97–2003 document (.doc)")
    assert "save it as a Word Document (.docx)" in line and "~$draft.docx (Word's lock file" in line
    assert "add draft.docx itself" in line
    many = describe_not_added([(f"/r/{i}.xls", "not a PDF") for i in range(5)])
    assert many == "5 not added, not PDF or Word documents (0.xls, 1.xls, 2.xls and 2 more)"

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from inference.cancel import Cancelled, CancelToken
from inference.progress import Progress, Stage
from summarizer.errors import DocumentError, DocumentNotFound, PasswordRequired
from summarizer.library.cutting.passages import PAGE_JOIN
from summarizer.library.ingest import IngestOptions, ingest_path
from summarizer.library.storage.store import Library
from tests.conftest import CONTRACTS
from tests.pdf_factory import make_pdf, make_pdf_with_broken_page, text_pages


def snapshot(library: Library) -> str:
    return "\n".join(library.db.conn.iterdump())


def test_ingest_a_contract(tmp_path: Path) -> None:
    events: list[Progress] = []
    with Library.open() as library:
        result = ingest_path(library, CONTRACTS / "license-17p.pdf", progress=events.append)
        assert result.status == "indexed"
        assert result.pages == 17
        assert result.passages > 30
        assert result.warnings == []
        doc = library.document(result.doc_id)
        assert doc.state == "ready"
        assert doc.content_sha256 == result.content_sha256
        # Every page stored, 1-based, raw text exactly as extracted.
        pages = library.db.execute(
            "SELECT page, text FROM pages WHERE doc_id = ? ORDER BY page", [result.doc_id]
        ).fetchall()
        assert [p[0] for p in pages] == list(range(1, 18))
        raw = {p[0]: p[1] for p in pages}
        # Every stored passage round-trips through its spans, and has one vector.
        rows = library.db.execute(
            "SELECT p.text, p.spans, p.page_start, p.page_end, e.dim FROM passages p "
            "JOIN embeddings e USING (passage_id) WHERE p.doc_id = ?",
            [result.doc_id],
        ).fetchall()
        assert len(rows) == result.passages
        for text, spans, start, end, dim in rows:
            spans = json.loads(spans)
            assert PAGE_JOIN.join(raw[p][s:e] for p, s, e in spans) == text
            assert (spans[0][0], spans[-1][0]) == (start, end)
            assert dim == 384
    stages = {e.stage for e in events}
    assert {Stage.READ_PAGES, Stage.EMBED_PASSAGES} <= stages
    reading = [e for e in events if e.stage == Stage.READ_PAGES]
    assert reading[-1].done == reading[-1].total == 17


def test_adding_the_same_file_again_does_nothing(tmp_path: Path) -> None:
    copy = shutil.copy(CONTRACTS / "endorsement-8p.pdf", tmp_path / "elsewhere.pdf")
    with Library.open() as library:
        first = ingest_path(library, CONTRACTS / "endorsement-8p.pdf")
        before = snapshot(library)
        again = ingest_path(library, CONTRACTS / "endorsement-8p.pdf")
        moved = ingest_path(library, Path(copy))
        assert again.status == moved.status == "unchanged"
        assert again.doc_id == moved.doc_id == first.doc_id
        assert snapshot(library) == before
        # Issue 24: the copy under another name was dropped without a word; the same path says nothing
        assert again.warnings == []
        assert moved.warnings == [
            "it is the same file as endorsement-8p.pdf, already in the library, so it was not added a second time"
        ]


@pytest.mark.parametrize(
    "title",
    [
        b"\xfe\xff" + "imagemagick-lzw\x00".encode("utf-16-be"),  # ImageMagick's LZW sample: UTF-16, NUL last
        "imagemagick-lzw\x00",  # the same NUL in a plain string
        "imagemagick-lzw\x07\t\r\n",  # other control characters and whitespace at the end
    ],
    ids=["utf16-bom", "literal-nul", "controls"],
)
def test_a_title_with_a_nul_is_stored_and_shown_without_it(tmp_path: Path, title: str | bytes) -> None:
    """Issue 42: `pagewise ingest --json` showed "title": "imagemagick-lzw\\u0000"."""
    path = make_pdf(tmp_path / "lzw.pdf", text_pages(2), title=title)
    with Library.open() as library:
        result = ingest_path(library, path, IngestOptions(embed=False))
        stored = library.db.execute("SELECT title FROM documents WHERE doc_id = ?", [result.doc_id]).fetchone()[0]
        shown = library.document(result.doc_id).title
    assert result.to_json()["title"] == stored == shown == "imagemagick-lzw"


def test_a_changed_file_is_reindexed_under_the_same_doc_id(tmp_path: Path) -> None:
    path = make_pdf(tmp_path / "memo.pdf", text_pages(3, tag="v1-"))
    with Library.open() as library:
        first = ingest_path(library, path)
        make_pdf(path, text_pages(5, tag="v2-"))
        second = ingest_path(library, path)
        assert second.doc_id == first.doc_id
        assert second.content_sha256 != first.content_sha256
        assert second.status == "indexed" and second.pages == 5
        assert len(library.documents()) == 1
        texts = " ".join(r[0] for r in library.db.execute("SELECT text FROM passages").fetchall())
        assert "v2-5" in texts and "v1-" not in texts


def test_remove_deletes_everything_derived(tmp_path: Path) -> None:
    with Library.open() as library:
        keep = ingest_path(library, CONTRACTS / "endorsement-8p.pdf")
        gone = ingest_path(library, CONTRACTS / "supply-16p.pdf")
        library.remove(gone.doc_id)
        with pytest.raises(DocumentNotFound, match="pagewise list"):
            library.document(gone.doc_id)
        for table in ("pages", "passages"):
            count = library.db.execute(f"SELECT COUNT(*) FROM {table} WHERE doc_id = ?", [gone.doc_id]).fetchone()
            assert count[0] == 0
        n_passages = library.db.execute("SELECT COUNT(*) FROM passages").fetchone()[0]
        assert n_passages == keep.passages
        assert library.db.execute("SELECT COUNT(*) FROM embeddings").fetchone()[0] == n_passages
        fts = library.db.execute("SELECT COUNT(*) FROM passages_fts WHERE passages_fts MATCH 'seller'").fetchone()
        assert fts[0] == 0  # 'seller' only occurs in the supply agreement
        library.db.execute("INSERT INTO passages_fts(passages_fts) VALUES ('integrity-check')")
        assert library.integrity_ok()


def test_a_pdf_without_text_is_recorded_as_needing_ocr_and_blank_pages_are_named(tmp_path: Path) -> None:
    path = make_pdf(tmp_path / "scan.pdf", [None, None, None])
    with Library.open() as library:
        result = ingest_path(library, path)
        assert result.status == "needs_ocr"
        assert result.passages == 0
        assert "scan.pdf" not in result.warnings[0]  # the CLI prefixes the file; the warning says why
        # Nothing is drawn on these pages: OCR has nothing to read, and the note does not send the
        # user to read them by OCR again.
        assert "no image for OCR to read" in result.warnings[0] and "reindex" not in result.warnings[0]
        assert library.document(result.doc_id).ocr_pages == [1, 2, 3]


def test_a_scan_added_without_ocr_is_sent_to_pagewise_own_ocr(tmp_path: Path) -> None:
    """The note named another tool (ocrmypdf) after Pagewise learned to read scans itself."""
    from tests.pdf_factory import scanned_copy

    scan = scanned_copy(CONTRACTS / "endorsement-8p.pdf", [1, 2], tmp_path / "scan.pdf", dpi=50)
    with Library.open() as library:
        result = ingest_path(library, scan, IngestOptions(ocr="never"))
        assert result.status == "needs_ocr" and result.passages == 0
        assert "looks like a scan" in result.warnings[0]
        assert "pagewise reindex --ocr" in result.warnings[0] and "ocrmypdf" not in result.warnings[0]


def test_some_pages_without_text_are_listed(tmp_path: Path) -> None:
    path = make_pdf(tmp_path / "mixed.pdf", [*text_pages(2), None, None, *text_pages(1, tag="z")])
    with Library.open() as library:
        # Without OCR nothing looks at the pages: those without text are listed as needing it.
        result = ingest_path(library, path, IngestOptions(ocr="never"))
        assert result.status == "indexed"
        assert result.warnings == ["pages with no text layer (need OCR): 3-4"]
        assert library.document(result.doc_id).ocr_pages == [3, 4]


def test_blank_pages_without_an_image_are_not_scans(tmp_path: Path) -> None:
    path = make_pdf(tmp_path / "mixed.pdf", [*text_pages(2), None, ["Date:"], *text_pages(1, tag="z")])
    with Library.open() as library:
        result = ingest_path(library, path)
        assert result.status == "indexed"
        assert result.warnings == []  # nothing on pages 3-4 to read: OCR was not even loaded
        assert library.document(result.doc_id).ocr_pages == []


def test_partly_broken_pdf_keeps_the_good_pages(tmp_path: Path) -> None:
    path = make_pdf_with_broken_page(tmp_path / "partial.pdf", good_pages=4, broken_page=3)
    with Library.open() as library:
        result = ingest_path(library, path)
        assert result.status == "partial"
        assert result.warnings == ["pages that could not be read: 3"]
        assert result.passages > 0
        pages = {r[0] for r in library.db.execute("SELECT page_end FROM passages").fetchall()}
        assert 5 in pages  # a good page after the broken one


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("empty.pdf", b"", "is empty"),
        ("notes.pdf", b"plain text, not a pdf\n", "is not a PDF"),
        ("cut.pdf", None, "damaged"),
        ("missing.pdf", "absent", "no such file"),
    ],
)
def test_bad_input_leaves_the_library_untouched(
    tmp_path: Path, name: str, content: bytes | str | None, message: str
) -> None:
    path = tmp_path / name
    if content is None:
        path.write_bytes((CONTRACTS / "endorsement-8p.pdf").read_bytes()[:3000])
    elif isinstance(content, bytes):
        path.write_bytes(content)
    with Library.open() as library:
        ingest_path(library, CONTRACTS / "endorsement-8p.pdf")
        before = snapshot(library)
        with pytest.raises(DocumentError) as info:
            ingest_path(library, path)
        assert name in str(info.value) and message in str(info.value)
        assert snapshot(library) == before


def test_encrypted_pdf_needs_the_right_password(tmp_path: Path) -> None:
    from pypdf import PdfWriter

    writer = PdfWriter(clone_from=make_pdf(tmp_path / "plain.pdf", text_pages(2)))
    writer.encrypt(user_password="s3cret", algorithm="AES-256")
    locked = tmp_path / "locked.pdf"
    with locked.open("wb") as handle:
        writer.write(handle)
    with Library.open() as library:
        before = snapshot(library)
        with pytest.raises(PasswordRequired, match="--password"):
            ingest_path(library, locked)
        with pytest.raises(PasswordRequired, match="wrong password"):
            ingest_path(library, locked, IngestOptions(password="nope"))
        assert snapshot(library) == before
        result = ingest_path(library, locked, IngestOptions(password="s3cret"))
        assert result.status == "indexed"


def test_cancel_then_resume_gives_the_same_passages(tmp_path: Path) -> None:
    source = CONTRACTS / "license-17p.pdf"
    with Library.open(tmp_path / "reference.sqlite") as reference:
        expected = ingest_path(reference, source)
        expected_rows = reference.db.execute("SELECT seq, text, spans FROM passages ORDER BY seq").fetchall()
    token = CancelToken()

    def cancel_midway(progress: Progress) -> None:
        if progress.stage == Stage.READ_PAGES and progress.done == 9:
            token.cancel()

    with Library.open() as library:
        with pytest.raises(Cancelled):
            ingest_path(library, source, progress=cancel_midway, cancel=token)
        assert library.documents()[0].state == "extracting"
        assert library.integrity_ok()
        resumed = ingest_path(library, source)
        assert resumed.doc_id == expected.doc_id and resumed.passages == expected.passages
        rows = library.db.execute("SELECT seq, text, spans FROM passages ORDER BY seq").fetchall()
        assert rows == expected_rows

"""Opening a file to read: any exception a reader raises is the file's DocumentError
(shared/reports/hostile-inputs-2026-12-06.md, section 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from summarizer.errors import DocumentError
from summarizer.library import ingest_read
from summarizer.library.ingest import IngestOptions, ingest_path
from summarizer.library.storage.store import Library
from tests.docx_factory import para, write_docx

FAST = IngestOptions(embed=False, ocr="never")


def test_a_reader_s_own_exception_becomes_the_file_s_document_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(path: Path) -> None:
        raise OverflowError("int too large to convert")

    monkeypatch.setattr(ingest_read, "DocxPages", broken)
    path = write_docx(tmp_path / "odd.docx", para("Text."))
    with Library.open() as library, pytest.raises(DocumentError, match=r"odd\.docx could not be read: .*Overflow"):
        ingest_path(library, path, FAST)

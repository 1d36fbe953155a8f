"""A data room's unpacked copies go with their documents (shared/reports/hostile-inputs-2026-12-06.md,
section 5)."""

from __future__ import annotations

import zipfile
from pathlib import Path

from summarizer.library.batches.run_batch import run_batch, start_batch
from summarizer.library.ingest import IngestOptions
from summarizer.library.storage.store import Library
from tests.pdf_factory import make_pdf, text_pages

FAST = IngestOptions(embed=False, ocr="never")


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

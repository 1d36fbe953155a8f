"""Adding a data room as one batch (issue 46): every bad input named with its reason, the folder
kept per document, a batch that continues where it stopped (cancelled, window closed, disk full)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from inference.cancel import Cancelled, CancelToken
from inference.progress import Progress
from summarizer.errors import DiskFull
from summarizer.library.batches import run_batch as run_batch_module
from summarizer.library.batches.batch_store import ADDED, DUPLICATE, batch_files, unfinished_batch
from summarizer.library.batches.run_batch import BatchProgress, run_batch, start_batch
from summarizer.library.ingest import IngestOptions
from summarizer.library.storage.store import Library
from tests.pdf_factory import make_pdf, text_pages

FAST = IngestOptions(embed=False, ocr="never")


def _names(pairs: list[tuple[str, str]]) -> dict[str, str]:
    return {Path(path).name: reason for path, reason in pairs}


@pytest.mark.usefixtures("unreadable")
def test_a_data_room_is_added_with_every_file_accounted_for(data_room: Path, tmp_path: Path) -> None:
    seen: list[BatchProgress] = []
    with Library.open() as library:
        batch_id = start_batch(library, [data_room], tmp_path / "unpacked")

        def progress(p: Progress) -> None:
            assert isinstance(p, BatchProgress)
            seen.append(p)

        summary = run_batch(library, batch_id, FAST, progress)
        folders = {Path(r.path).name: r.folder for r in library.documents()}
    # added: supply, licence, Vertrag über Dienste, and the zip's two
    assert (summary.added, summary.duplicates, summary.pending) == (5, 1, 0) and summary.finished
    failed = _names(summary.failed)
    assert set(failed) == {"broken.pdf", "locked.pdf", "unreadable.pdf"}
    assert "password" in failed["locked.pdf"] and "permission denied" in failed["unreadable.pdf"]
    skipped = _names(summary.skipped)
    assert "lock file" in skipped["~$licence.docx"] and "not a PDF" in skipped["notes.txt"]
    assert "not a PDF" in skipped["readme.md"]
    assert folders == {
        "supply.pdf": "",
        "licence.pdf": "licensing/2019",
        "Vertrag über Dienste – Zürich.pdf": "services",
        "a.pdf": "archive/inner",
        "b.pdf": "archive",
    }
    # one progress over the whole set: files done of 9, pages counted, a rate once pages are read
    assert [p.done for p in seen] == list(range(10)) and {p.total for p in seen} == {9}
    assert seen[-1].pages == 3 + 2 + 2 + 1 + 1 and seen[-1].rate is not None
    assert "5 added, 1 skipped as duplicate, 3 failed" in summary.describe()


def test_a_batch_stopped_half_way_continues_where_it_stopped(data_room: Path, tmp_path: Path) -> None:
    """Cancelled, or the window closed (the process gone): the next start finds the batch and the
    same paths continue it, without adding a file twice."""
    token = CancelToken()
    added: list[str] = []

    def stop_after_two(file: Any, outcome: str, _reason: str, _result: Any) -> None:
        added.append(Path(file.path).name)
        if len(added) == 2:
            token.cancel()

    with Library.open() as library:
        batch_id = start_batch(library, [data_room], tmp_path / "unpacked")
        with pytest.raises(Cancelled):
            run_batch(library, batch_id, FAST, on_file=stop_after_two, cancel=token)
    with Library.open() as library:  # the next start
        assert unfinished_batch(library) == batch_id
        assert start_batch(library, [data_room], tmp_path / "unpacked") == batch_id
        summary = run_batch(library, batch_id, FAST, on_file=lambda f, *_: added.append(Path(f.path).name))
        assert unfinished_batch(library) is None
        documents = library.documents()
    assert len(added) == len(set(added)) == 9  # each file once, over the two runs
    assert summary.added == len(documents) == 6  # (unreadable.pdf is readable here); failed ones have no record


def test_a_full_disk_half_way_keeps_what_was_added_and_says_what_to_free(
    data_room: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = run_batch_module.ingest_path
    calls = 0

    def fills_the_disk(*args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls == 3:
            raise DiskFull(
                f"No space left on the disk holding {tmp_path} (3 MiB free): free some space and try again.",
                path=tmp_path,
            )
        return real(*args, **kwargs)

    monkeypatch.setattr(run_batch_module, "ingest_path", fills_the_disk)
    with Library.open() as library:
        batch_id = start_batch(library, [data_room], tmp_path / "unpacked")
        with pytest.raises(DiskFull) as full:
            run_batch(library, batch_id, FAST)
        # Said for the batch: what to free for the files left, and that those added stay (the
        # file's own "add supply.pdf again" would be the wrong advice: the batch continues).
        assert str(full.value).startswith(f"No space left on the disk holding {library.path.parent} (")
        assert "free at least 64 MiB there, then continue; the 2 files added so far stay." in str(full.value)
        assert re.search(r"The 7 files still to add take about \d+ MiB in the library, going by the 2", str(full.value))
        outcomes = [f.outcome for f in batch_files(library, batch_id) if f.outcome != "skipped"]
        kept = len(library.documents())
        assert outcomes[:2] == [ADDED, ADDED] and set(outcomes[2:]) == {"pending"} and kept == 2
        monkeypatch.setattr(run_batch_module, "ingest_path", real)  # space was freed
        summary = run_batch(library, batch_id, FAST)
    assert (summary.added, summary.pending) == (6, 0)


def test_a_one_gigabyte_pdf_is_refused_with_the_stated_limit(tmp_path: Path) -> None:
    """A 1 GB PDF (sparse: no disk used) is refused by its size before a byte of it is parsed."""
    room = tmp_path / "room"
    room.mkdir()
    with (room / "huge.pdf").open("wb") as handle:
        handle.write(b"%PDF-1.7\n")
        handle.truncate(1024**3)
    with Library.open() as library:
        summary = run_batch(library, start_batch(library, [room], tmp_path / "unpacked"), FAST)
    ((path, reason),) = summary.failed
    assert path.endswith("huge.pdf")
    assert "huge.pdf is 1,024 MiB, larger than the 256 MiB Pagewise reads" in reason and "Split it" in reason


def test_the_same_file_twice_is_a_duplicate_not_a_second_document(tmp_path: Path, data_room: Path) -> None:
    with Library.open() as library:
        run_batch(library, start_batch(library, [data_room / "services"], tmp_path / "unpacked"), FAST)
        again = run_batch(library, start_batch(library, [data_room / "services"], tmp_path / "unpacked"), FAST)
        outcomes = {Path(f.path).name: f.outcome for f in batch_files(library, again.batch_id)}
    assert outcomes["copy of supply.pdf"] == DUPLICATE and again.added == 0


def test_a_batch_writes_the_vector_index_once_at_its_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from summarizer.library.vectors import vector_index
    from tests.pdf_factory import make_pdf, text_pages

    room = tmp_path / "room"
    room.mkdir()
    for n in range(3):
        make_pdf(room / f"contract-{n}.pdf", text_pages(2, tag=f"contract {n}"))
    writes: list[Path] = []
    write = vector_index._write
    monkeypatch.setattr(vector_index, "_write", lambda path, built: (writes.append(path), write(path, built)))
    with Library.open() as library:
        summary = run_batch(library, start_batch(library, [room], tmp_path / "unpacked"), IngestOptions(ocr="never"))
        assert summary.added == 3
        assert len(writes) == 1  # not once per document: the file grows with the library
        assert vector_index._file_generation(writes[0]) == library.embeddings_generation()
        vector_index.forget_loaded()
        count = library.db.execute("SELECT COUNT(*) FROM embeddings").fetchone()[0]
        assert vector_index.load_index(library).size == count > 0


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

"""What a dropped folder holds: links, pipes and devices skipped with a reason
(shared/reports/hostile-inputs-2026-12-06.md, sections 3 and 4); files not added named with what to
do (walk 2026-12-06, finding 9)."""

from __future__ import annotations

import os
from pathlib import Path

from summarizer.library.batches.folder_walk import find_documents
from tests.pdf_factory import make_pdf, text_pages


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

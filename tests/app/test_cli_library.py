"""The CLI contract for the library commands: names, JSON keys, errors, exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.cli import main
from tests.conftest import CONTRACTS
from tests.docx_factory import para, write_docx
from tests.pdf_factory import make_pdf


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[dict[str, object]]]:
    code = main([*argv, "--json"])
    out = capsys.readouterr().out
    return code, [json.loads(line) for line in out.splitlines() if line.strip()]


def test_ingest_list_search_remove(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, rows = run_json(capsys, "ingest", str(CONTRACTS / "endorsement-8p.pdf"))
    assert code == 0
    (doc,) = rows
    assert set(doc) == {
        "doc_id",
        "content_sha256",
        "title",
        "pages",
        "passages",
        "status",
        "warnings",
        "file_type",
        "tracked_changes",
        "comments",
    }
    assert (doc["file_type"], doc["tracked_changes"], doc["comments"]) == ("pdf", 0, 0)
    assert doc["status"] == "indexed" and doc["pages"] == 8 and doc["warnings"] == []

    code, rows = run_json(capsys, "ingest", str(CONTRACTS / "endorsement-8p.pdf"))
    assert rows[0]["status"] == "unchanged"

    code, rows = run_json(capsys, "list")
    assert code == 0
    assert rows == [
        {
            "doc_id": doc["doc_id"],
            "title": doc["title"],
            "pages": 8,
            "passages": doc["passages"],
            "status": "indexed",
            "path": str((CONTRACTS / "endorsement-8p.pdf").resolve()),
            "needs_reindex": False,
            "kind": "contract",
            "file_type": "pdf",
            "tracked_changes": 0,
            "comments": 0,
            "folder": "",
            "words_only": False,
        }
    ]

    code, rows = run_json(capsys, "search", str(doc["doc_id"]), "endorsement fee payment", "-k", "2")
    assert code == 0
    results = rows[0]["results"]
    assert isinstance(results, list) and len(results) == 2
    for r in results:
        keys = {"passage_id", "doc_id", "heading", "text", "page_start", "page_end", "score", "locator", "matched"}
        assert set(r) == keys
        assert r["locator"] is None  # a PDF's pages say where a passage is
        # the query's words in the passage's text (issue 58): character ranges of ``text``
        assert all(str(r["text"])[s:e].lower().startswith(("endor", "fee", "payme")) for s, e in r["matched"])
        assert isinstance(r["heading"], str)
        assert 1 <= r["page_start"] <= r["page_end"] <= 8

    code, rows = run_json(capsys, "search", "--all", "endorsement")
    assert code == 0 and rows[0]["results"]
    assert any(r["matched"] for r in rows[0]["results"])
    assert main(["search", "--all", "endorsement", "-k", "1"]) == 0
    shown = capsys.readouterr().out  # not a terminal: the query's words marked **so**
    assert "**endorsement**" in shown.lower() or "**endorsements**" in shown.lower()

    assert main(["remove", str(doc["doc_id"])]) == 0
    capsys.readouterr()
    code, rows = run_json(capsys, "list")
    assert rows == []


def test_a_bad_file_among_good_ones(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bad = tmp_path / "broken.pdf"
    bad.write_bytes(b"%PDF-1.4\nthis is not really a pdf")
    good = make_pdf(tmp_path / "good.pdf", [["Hello world. This is a small contract page with words."]])
    code, rows = run_json(capsys, "ingest", str(bad), str(good))
    assert code == 1
    assert "broken.pdf" in str(rows[0]["error"]) and rows[0]["path"] == str(bad)
    assert rows[1]["status"] == "indexed"


def test_errors_are_one_line_on_stderr(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code = main(["ingest", str(tmp_path / "nope.pdf")])
    err = capsys.readouterr().err
    assert code == 1
    assert err.count("\n") == 1 and "nope.pdf: no such file" in err

    code = main(["search", "deadbeef", "anything"])
    captured = capsys.readouterr()
    assert code == 1 and "No document 'deadbeef'" in captured.err and captured.out == ""

    code, rows = run_json(capsys, "search", "deadbeef", "anything")
    assert code == 1 and "deadbeef" in str(rows[0]["error"])

    code = main(["remove", "deadbeef"])
    assert code == 1 and "deadbeef" in capsys.readouterr().err


def test_encrypted_pdf_password_option(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from pypdf import PdfWriter

    writer = PdfWriter(clone_from=make_pdf(tmp_path / "p.pdf", [["Secret terms of the deal are here."]]))
    writer.encrypt(user_password="pw", algorithm="AES-256")
    locked = tmp_path / "locked.pdf"
    with locked.open("wb") as handle:
        writer.write(handle)
    code, rows = run_json(capsys, "ingest", str(locked))
    assert code == 1 and "--password" in str(rows[0]["error"])
    code, rows = run_json(capsys, "ingest", str(locked), "--password", "bad")
    assert "wrong password" in str(rows[0]["error"])
    code, rows = run_json(capsys, "ingest", str(locked), "--password", "pw")
    assert code == 0 and rows[0]["status"] == "indexed"


def test_search_needs_a_target(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["search", "onlyquery"]) == 2
    assert "--all" in capsys.readouterr().err


def test_reindex_recuts_an_old_format_document(capsys: pytest.CaptureFixture[str]) -> None:
    code, rows = run_json(capsys, "ingest", str(CONTRACTS / "endorsement-8p.pdf"))
    doc_id = str(rows[0]["doc_id"])
    code, rows = run_json(capsys, "reindex")
    assert code == 0 and rows == [], "nothing to do: the document was cut by this version"

    from summarizer.library.storage.store import Library

    with Library.open() as library:  # as if an older Pagewise had cut it
        library.db.execute("UPDATE documents SET passage_format = 1 WHERE doc_id = ?", [doc_id])
    code, rows = run_json(capsys, "list")
    assert rows[0]["needs_reindex"] is True
    assert main(["search", doc_id, "termination", "--json"]) == 0
    assert "pagewise reindex" in capsys.readouterr().err, "an old-format document is never silently left so"

    code, rows = run_json(capsys, "reindex")
    assert code == 0
    (result,) = rows
    assert set(result) == {"doc_id", "title", "status", "passages_before", "passages", "passage_format"}
    assert result["doc_id"] == doc_id and result["status"] == "reindexed" and result["passage_format"] >= 2
    code, rows = run_json(capsys, "list")
    assert rows[0]["needs_reindex"] is False

    code, rows = run_json(capsys, "reindex", doc_id)  # named: re-cut even when current
    assert [r["status"] for r in rows] == ["reindexed"]
    code, rows = run_json(capsys, "reindex", "no-such-doc")
    assert code != 0 and "error" in rows[0]


def test_a_folder_of_pdf_and_word_files_skips_word_lock_files(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    folder = tmp_path / "deal"
    folder.mkdir()
    make_pdf(folder / "signed.pdf", [["This Agreement is signed by the parties below."]])
    body = para("The Supplier shall deliver the goods.") + (
        '<w:p><w:ins w:id="1" w:author="Buyer" w:date="2026-01-01T00:00:00Z"><w:r><w:t>Time is of the essence.'
        "</w:t></w:r></w:ins></w:p>"
    )
    write_docx(folder / "draft.docx", body, title="Supply Draft")
    (folder / "~$draft.docx").write_bytes(b"\x05alice" + b"\x00" * 150)  # Word's lock file: skipped
    code, events = run_json(capsys, "ingest", "--ocr", "never", str(folder))
    assert code == 0
    rows = [row for row in events if "event" not in row]  # a folder is a batch: progress and summary too
    assert events[-1]["event"] == "summary" and events[-1]["added"] == 2 and len(events[-1]["skipped"]) == 1
    by_type = {row["file_type"]: row for row in rows}
    assert sorted(by_type) == ["docx", "pdf"] and len(rows) == 2
    assert (by_type["docx"]["title"], by_type["docx"]["pages"], by_type["docx"]["tracked_changes"]) == (
        "Supply Draft",
        2,
        1,
    )
    assert main(["list"]) == 0
    listed = capsys.readouterr().out
    assert "Word" in listed and "PDF" in listed and "2 ¶" in listed
    code, rows = run_json(capsys, "search", by_type["docx"]["doc_id"], "time is of the essence", "-k", "1")
    # the paragraph that holds the matched words, not the passage's whole range (issue 56, item 1)
    assert rows[0]["results"][0]["locator"] == "¶ 2"

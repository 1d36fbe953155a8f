"""`pagewise review --all` with a model server: the data room's review, JSON progress lines,
skipped on a second run, and the pause when the server goes away."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.cli import main
from summarizer.library.storage.store import Library
from tests.inference.engines.openai_fake import FakeServer, Running
from tests.summarizer.doc_factory import add_document
from tests.summarizer.review.test_room_review_remote import answer, contract

CHECKLIST = (
    "id,category,question,queries,type\n"
    "law,Governing Law,Which law governs?,governed by the laws of,jurisdiction\n"
    "coc,Change of Control,Change of control?,change of control,yes_no\n"
)


def lines(capsys: pytest.CaptureFixture[str]) -> list[dict[str, object]]:
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_review_all_through_a_server_reports_and_continues(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    with Library.open() as library:
        ids = [add_document(library, contract(n), title=f"Contract {n}") for n in range(3)]
    checklist = tmp_path / "two.csv"
    checklist.write_text(CHECKLIST)
    server = Running(FakeServer(total_slots=2, reply_for=answer, drop_after=3))
    argv = ["review", "--all", "--checklist", str(checklist), "--remote", server.url, "--json"]
    try:
        assert main(argv) == 75  # the fourth request finds the server gone: paused
        (error,) = [line for line in lines(capsys) if "error" in line]
        assert server.url in str(error["error"]) and "run the command again" in str(error["error"])
        server.state.drop_after = None
        assert main(argv) == 0
        *progress, room, reviews = lines(capsys)
    finally:
        server.stop()
    assert [p["progress"]["contracts_done"] for p in progress] == list(range(len(progress)))  # type: ignore[index]
    last = progress[-1]["progress"]
    assert last["contracts"] == 3 and last["contracts_done"] == 3 and last["items_per_min"]  # type: ignore[index]
    assert room["room"]["skipped"] >= 1 and room["room"]["reviewed"] + room["room"]["skipped"] == 3  # type: ignore[index]
    assert room["room"]["busy_share"] is not None  # type: ignore[index]
    assert sorted(r["doc_id"] for r in reviews["reviews"]) == sorted(ids)  # type: ignore[index]
    assert all(r["items"][0]["value"] == "New York" for r in reviews["reviews"])  # type: ignore[index]

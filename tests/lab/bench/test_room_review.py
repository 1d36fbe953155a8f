"""``lab.bench.room_review`` against the fake OpenAI-compatible server with a few tiny contracts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lab.bench.room_review import main
from summarizer.library.storage.store import Library
from tests.inference.engines.openai_fake import FakeServer, serving
from tests.summarizer.doc_factory import add_document
from tests.summarizer.review.room_contracts import answer, contract


def test_the_bench_prints_the_rooms_figures(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    with Library.open() as library:
        for n in range(3):
            add_document(library, contract(n), title=f"Contract {n}")
    checklist_rows = (
        "id,category,question,queries,type\nlaw,Governing Law,Which law governs?,governed by,jurisdiction\n"
    )
    with serving(FakeServer(total_slots=2, reply_for=answer, first_delay_s=0.05)) as url:
        path = tmp_path / "law.csv"
        path.write_text(checklist_rows)
        assert main(["--url", url, "--checklist", str(path), "--limit", "2"]) == 0
        first = json.loads(capsys.readouterr().out)
        assert main(["--url", url, "--checklist", str(path), "--keep"]) == 0
        again = json.loads(capsys.readouterr().out)
    assert (first["contracts"], first["reviewed"], first["items"], first["slots"]) == (2, 2, 2, 2)
    assert first["model"] == "fake-7b" and 0 < first["busy_share"] <= 1 and first["contracts_per_hour"] > 0
    assert (again["contracts"], again["skipped"], again["reviewed"]) == (3, 2, 1)  # --keep: the first two read back

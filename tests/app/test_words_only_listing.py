"""``pagewise list`` and the window's library list say which documents are searchable by words only
(the embedding model could not be loaded when they were added: issue 54)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from app.commands import list as list_command
from app.views.library_panel import record_state
from summarizer.library.ingest import ingest_path
from summarizer.library.storage.store import Library
from tests.conftest import CONTRACTS


def test_list_says_words_only(embedding_model_fails: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with Library.open() as library:
        doc_id = ingest_path(library, CONTRACTS / "endorsement-8p.pdf").doc_id
    assert list_command.run(argparse.Namespace(json=False)) == 0
    line = next(line for line in capsys.readouterr().out.splitlines() if line.startswith(doc_id))
    assert "searchable by words only" in line
    assert list_command.run(argparse.Namespace(json=True)) == 0
    assert json.loads(capsys.readouterr().out)["words_only"] is True


def test_library_panel_says_words_only(embedding_model_fails: Path) -> None:
    with Library.open() as library:
        record = library.document(ingest_path(library, CONTRACTS / "endorsement-8p.pdf").doc_id)
    assert record_state(record).endswith(" · searchable by words only")
    assert "interrupted" not in record_state(record)

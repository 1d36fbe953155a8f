"""`pagewise reindex` re-embeds the library with the configured model; search and ingest say
when the settings name another model than the library's, and how far a re-embed got."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app.cli import main
from inference.cancel import Cancelled, CancelToken
from inference.progress import Progress, Stage
from summarizer.library.reindex import reindex_library
from summarizer.library.storage.store import PASSAGE_FORMAT, Library
from summarizer.library.vectors.embed_passages import embed_missing
from summarizer.library.vectors.embedding_model import DEFAULT_EMBEDDING_MODEL
from summarizer.library.vectors.reembed import reembed, reembed_status
from tests.summarizer.doc_factory import add_document, numbered_pages
from tests.summarizer.tiny_embedder import build_tiny_embedder

DEFAULT_MODEL = DEFAULT_EMBEDDING_MODEL  # the default: Pagewise's clause embedder
ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(build_tiny_embedder(tmp_path_factory.mktemp("tiny") / "tiny-embedder"))


def _search(capsys: pytest.CaptureFixture[str]) -> tuple[dict[str, object], str]:
    assert main(["search", "--all", "clause1", "--json"]) == 0
    captured = capsys.readouterr()
    return json.loads(captured.out), captured.err


def test_reindex_reembeds_and_search_reports_an_unfinished_reembed(
    tiny: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with Library.open() as library:
        for n in range(2):
            add_document(library, numbered_pages(2, 60), title=f"Doc {n}", words_per_passage=30)
        library.db.execute("UPDATE documents SET passage_format = ?", [PASSAGE_FORMAT])  # current: no re-cut
        embed_missing(library, None, DEFAULT_MODEL)
        passages = library.db.execute("SELECT COUNT(*) FROM passages").fetchone()[0]
    out, err = _search(capsys)
    assert out["embedding_model"] == DEFAULT_MODEL and out["reembedding"] is None and err == ""

    monkeypatch.setenv("PAGEWISE_EMBEDDING_MODEL", tiny)
    out, err = _search(capsys)
    assert out["results"] and out["embedding_model"] == DEFAULT_MODEL and out["reembedding"] is None
    assert f"Run `pagewise reindex` to re-embed the library with {tiny}" in err

    token = CancelToken()

    def cancel_after_one(progress: Progress) -> None:
        if progress.stage == Stage.REEMBED_PASSAGES and progress.done == 1:
            token.cancel()

    with Library.open() as library, pytest.raises(Cancelled):
        reindex_library(library, progress=cancel_after_one, cancel=token)  # the window's job, stopped
    out, err = _search(capsys)
    assert out["results"] and out["embedding_model"] == DEFAULT_MODEL
    assert out["reembedding"] == {"model": tiny, "searching_with": DEFAULT_MODEL, "documents_done": 1, "documents": 2}
    assert "(1 of 2 documents)" in err and "pagewise reindex" in err

    assert main(["reindex", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(rows) == 1 and set(rows[0]) == {"reembedded"}
    done = rows[0]["reembedded"]
    assert (done["from"], done["to"], done["documents"]) == (DEFAULT_MODEL, tiny, 2)
    assert 0 < done["passages"] < passages, "the resumed job embeds only what was left"

    out, err = _search(capsys)
    assert out["results"] and out["embedding_model"] == tiny and out["reembedding"] is None and err == ""
    assert main(["reindex"]) == 0
    assert "up to date" in capsys.readouterr().out


def test_a_killed_reembed_continues_where_it_stopped(tiny: str, pagewise_home: Path) -> None:
    with Library.open() as library:
        for n in range(20):
            add_document(library, numbered_pages(3, 120), title=f"Doc {n}", words_per_passage=30)
        library.db.execute("UPDATE documents SET passage_format = ?", [PASSAGE_FORMAT])
        embed_missing(library, None, DEFAULT_MODEL)
        passages = library.db.execute("SELECT COUNT(*) FROM passages").fetchone()[0]
    env = {**os.environ, "PAGEWISE_EMBEDDING_MODEL": tiny}
    job = subprocess.Popen([sys.executable, "-m", "app.cli", "reindex", "--json"], cwd=ROOT, env=env)
    try:
        with Library.open() as library:
            while job.poll() is None and not library.db.execute("SELECT 1 FROM embeddings_staging").fetchone():
                time.sleep(0.005)
            job.send_signal(signal.SIGKILL)  # as soon as the first vectors are staged
            assert job.wait() == -signal.SIGKILL, "killed before the re-embed finished"
            status = reembed_status(library)
            assert status is not None and status.target == tiny and status.documents_done < 20
            staged = library.db.execute("SELECT COUNT(*) FROM embeddings_staging").fetchone()[0]
            assert 0 < staged < passages
            assert library.embedding_model == DEFAULT_MODEL
            assert library.db.execute("SELECT model, COUNT(*) FROM embeddings GROUP BY model").fetchall() == [
                (DEFAULT_MODEL, passages)
            ], "the old vectors stay whole"
    finally:
        job.kill()
    with Library.open() as library:
        result = reembed(library, tiny)
        assert result is not None and result.passages == passages - staged
        assert library.db.execute("SELECT model, COUNT(*) FROM embeddings GROUP BY model").fetchall() == [
            (tiny, passages)
        ]

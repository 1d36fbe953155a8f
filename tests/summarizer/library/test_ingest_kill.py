"""Kill a real ingest process at random moments: the library stays consistent and a re-run
finishes with exactly the passages of an uninterrupted ingest."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from summarizer.library.ingest import IngestOptions, ingest_path
from summarizer.library.storage.store import Library
from tests.conftest import CONTRACTS
from tests.pdf_factory import make_pdf, text_pages

ROOT = Path(__file__).resolve().parents[3]
SOURCE = CONTRACTS / "endorsement-8p.pdf"
KILLS = 20
OPTIONS = ["--max-tokens", "64"]  # small passages: more rows, more moments to interrupt


def _spawn(home: Path, extra_env: dict[str, str] | None = None, source: Path = SOURCE) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PAGEWISE_HOME": str(home), **(extra_env or {})}
    return subprocess.Popen(
        [sys.executable, "-m", "app.cli", "ingest", str(source), *OPTIONS, "--json"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def _check_consistent(db_path: Path) -> None:
    if not db_path.exists():
        return
    with Library.open(db_path) as library:
        assert library.integrity_ok()
        library.db.execute("INSERT INTO passages_fts(passages_fts) VALUES ('integrity-check')")
        for doc in library.documents():
            seqs = [
                r[0]
                for r in library.db.execute(
                    "SELECT seq FROM passages WHERE doc_id = ? ORDER BY seq", [doc.doc_id]
                ).fetchall()
            ]
            assert seqs == list(range(len(seqs))), "passages have gaps or duplicates"
            pages = [
                r[0]
                for r in library.db.execute(
                    "SELECT page FROM pages WHERE doc_id = ? ORDER BY page", [doc.doc_id]
                ).fetchall()
            ]
            assert pages == list(range(1, len(pages) + 1)), "pages have gaps"
            if doc.state == "ready":
                missing = library.db.execute(
                    "SELECT COUNT(*) FROM passages p LEFT JOIN embeddings e USING (passage_id) "
                    "WHERE p.doc_id = ? AND e.passage_id IS NULL",
                    [doc.doc_id],
                ).fetchone()[0]
                assert missing == 0
            elif doc.state in ("extracting",):
                assert not seqs


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_ingest_survives_being_killed_at_random_moments(tmp_path: Path) -> None:
    with Library.open(tmp_path / "reference" / "library.sqlite") as reference:
        ingest_path(reference, SOURCE, IngestOptions(max_tokens=64))
        expected = reference.db.execute(
            "SELECT seq, text, spans, page_start, page_end FROM passages ORDER BY seq"
        ).fetchall()

    # How long an uninterrupted run takes, to spread the kills over all of it.
    started = time.monotonic()
    full = _spawn(tmp_path / "timing")
    assert full.wait(timeout=300) == 0, full.stderr.read() if full.stderr else ""
    duration = time.monotonic() - started

    home = tmp_path / "home"
    seed = random.randrange(1 << 30)
    rng = random.Random(seed)
    finished_early = 0
    for attempt in range(KILLS):
        proc = _spawn(home)
        time.sleep(rng.uniform(0.05, duration * 1.05))
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
        else:
            finished_early += 1
        proc.wait(timeout=60)
        try:
            _check_consistent(home / "library.sqlite")
        except AssertionError as error:
            raise AssertionError(f"inconsistent after kill {attempt} (seed {seed})") from error
        # Once a run got to the end, start the document over so that the next kill again
        # lands in real work (a fresh ingest or the resume of a partial one).
        with Library.open(home / "library.sqlite") as library:
            for doc in library.documents():
                if doc.state == "ready":
                    library.remove(doc.doc_id)

    # One more kill, certainly while the FAISS file is being written: add a second document
    # and stop the process half way through the index write that ends its ingest.
    marker = tmp_path / "writing-index"
    second = make_pdf(tmp_path / "second.pdf", text_pages(4))
    proc = _spawn(home, {"PAGEWISE_TEST_PAUSE_INDEX_WRITE": f"30:{marker}"}, source=second)
    deadline = time.monotonic() + 120
    while not marker.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert marker.exists(), "the index write never started"
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=60)
    _check_consistent(home / "library.sqlite")

    for source in (SOURCE, second):
        final = _spawn(home, source=source)
        _, err = final.communicate(timeout=300)
        assert final.returncode == 0, err.decode()
    with Library.open(home / "library.sqlite") as library:
        docs = {d.path: d for d in library.documents()}
        assert len(docs) == 2 and {d.state for d in docs.values()} == {"ready"}
        rows = library.db.execute(
            "SELECT seq, text, spans, page_start, page_end FROM passages WHERE doc_id = ? ORDER BY seq",
            [docs[str(SOURCE.resolve())].doc_id],
        ).fetchall()
        assert rows == expected
        from summarizer.library.vectors.vector_index import load_index
        from summarizer.search.retrieval import search

        index = load_index(library)
        assert index.size == library.db.execute("SELECT COUNT(*) FROM passages").fetchone()[0]
        assert search(library, "endorsement", k=1)
    assert finished_early < KILLS // 2, "most kills should land before the ingest finished"

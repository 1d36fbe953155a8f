from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np

from summarizer.library.storage.store import Library
from summarizer.library.vectors.chunk_tokenizer import chunk_tokenizer
from summarizer.library.vectors.embed_passages import embed_missing
from summarizer.library.vectors.embedder import load_embedder
from summarizer.library.vectors.embedding_windows import SPECIAL_TOKENS, mean_of_windows, passage_windows
from tests.summarizer.doc_factory import add_document

MAX_SEQ = 256  # all-MiniLM-L6-v2
HEADING = "ARTICLE IX INDEMNITY > 9.1 Indemnification"
LONG = " ".join(f"The Supplier shall indemnify the Customer against claim number {n}." for n in range(60))


def test_a_passage_that_fits_is_one_window() -> None:
    assert passage_windows("Short clause.", HEADING, chunk_tokenizer(), MAX_SEQ) == [f"{HEADING}: Short clause."]
    assert passage_windows("Short clause.", "", chunk_tokenizer(), MAX_SEQ) == ["Short clause."]


def test_a_long_passage_is_several_windows_that_fit_and_cover_it_all() -> None:
    tokenizer = chunk_tokenizer()
    windows = passage_windows(LONG, HEADING, tokenizer, MAX_SEQ)
    assert len(windows) >= 3
    for window in windows:
        assert window.startswith(HEADING + ": ")
        assert tokenizer.count(window) <= MAX_SEQ - SPECIAL_TOKENS, "never truncated by the model"
    bodies = [w.removeprefix(HEADING + ": ") for w in windows]
    assert LONG.startswith(bodies[0]) and LONG.endswith(bodies[-1])
    # Consecutive windows overlap, so every sentence is read whole by at least one window.
    for left, right in itertools.pairwise(bodies):
        assert LONG.index(right) < LONG.index(left) + len(left)


def test_mean_of_windows_is_normalized_per_passage() -> None:
    vectors = np.array([[1, 0], [0, 1], [3, 4]], dtype=np.float32)
    out = mean_of_windows(vectors, [2, 1])
    assert np.allclose(out, [[2**-0.5, 2**-0.5], [0.6, 0.8]])


def test_a_long_passage_is_embedded_from_all_its_windows(tmp_path: Path) -> None:
    with Library.open(tmp_path / "lib.sqlite") as library:
        add_document(library, [LONG], words_per_passage=10_000)
        library.db.execute("UPDATE passages SET heading = ?", [HEADING])
        (passage_id, search_text) = library.db.execute("SELECT passage_id, search_text FROM passages").fetchone()
        assert embed_missing(library, None) == 1
        stored = library.db.execute("SELECT vector FROM embeddings WHERE passage_id = ?", [passage_id]).fetchone()[0]
    embedder = load_embedder()
    windows = passage_windows(search_text, HEADING, chunk_tokenizer(), embedder.max_seq_length)
    assert len(windows) > 1
    expected = mean_of_windows(embedder.encode(windows), [len(windows)])[0]
    assert np.allclose(np.frombuffer(stored, dtype=np.float32), expected, atol=1e-5)
    # ... and not the same as embedding the passage cut at the model's window.
    truncated = embedder.encode([windows[0]])[0]
    assert not np.allclose(expected, truncated, atol=1e-3)

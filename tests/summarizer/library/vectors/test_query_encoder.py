from __future__ import annotations

import numpy as np

from summarizer.library.vectors.embedder import load_embedder
from summarizer.library.vectors.query_encoder import NumpyBertEncoder, RememberedQueries, load_query_encoder

TEXTS = [
    "The weather is lovely today.",
    "It's so sunny outside!",
    "Either Party may immediately terminate this Agreement if the other Party becomes insolvent.",
    '§ 12.3(b) "Licensee" AND termination*',
    "北京新浪互联信息服务有限公司",
    "word " * 400,  # longer than the model's 256 word pieces: truncated the same way
]


def test_numpy_query_encoder_matches_sentence_transformers() -> None:
    fast = load_query_encoder("sentence-transformers/all-MiniLM-L6-v2")
    assert isinstance(fast, RememberedQueries) and isinstance(fast.encoder, NumpyBertEncoder)
    reference = load_embedder("sentence-transformers/all-MiniLM-L6-v2").encode(TEXTS)
    for text, expected in zip(TEXTS, reference, strict=True):
        got = fast.encode_query(text)
        assert got.dtype == np.float32 and got.shape == (384,)
        assert float(got @ expected) > 0.99999, text[:40]
        assert np.allclose(got, expected, atol=2e-4)


def test_published_similarity_is_reproduced() -> None:
    fast = load_query_encoder("all-MiniLM-L6-v2")
    a, b = (fast.encode_query(t) for t in TEXTS[:2])
    assert round(float(a @ b), 4) == 0.6660


class _Counting:
    name = "counting"
    dim = 2

    def __init__(self) -> None:
        self.calls: list[str] = []

    def encode_query(self, text: str) -> np.ndarray:
        self.calls.append(text)
        return np.array([len(text), 1.0], dtype=np.float32)


def test_a_query_asked_again_is_not_embedded_again_and_the_oldest_is_forgotten() -> None:
    inner = _Counting()
    remembered = RememberedQueries(inner, size=2)
    first = remembered.encode_query("governing law")
    assert remembered.encode_query("governing law") is first
    assert not first.flags.writeable  # shared by every caller: nobody may change it
    remembered.encode_query("cap on liability")
    remembered.encode_query("governing law")  # used again: now the newest
    remembered.encode_query("termination")  # pushes out the oldest, "cap on liability"
    remembered.encode_query("governing law")
    remembered.encode_query("cap on liability")
    assert inner.calls == ["governing law", "cap on liability", "termination", "cap on liability"]

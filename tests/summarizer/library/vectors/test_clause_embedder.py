from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from inference.errors import ModelError
from summarizer.library.vectors import clause_embedder
from summarizer.library.vectors.clause_embedder import CLAUSE_EMBEDDER, WEIGHTS, dequantize, load_weights, quantize
from summarizer.library.vectors.embedding_model import canonical_name, resolve_model_dir
from summarizer.library.vectors.query_encoder import NumpyBertEncoder, RememberedQueries, load_query_encoder

TEXTS = [
    "Which state's law governs this agreement?",
    "This Agreement shall be governed by the laws of the State of New York.",
    "Neither party may assign this Agreement, including by merger or change of control.",
    "word " * 400,
]


def test_int8_rows_round_trip_within_half_a_step() -> None:
    rng = np.random.default_rng(0)
    weights = {"m": rng.normal(size=(50, 384)).astype(np.float32), "bias": rng.normal(size=384).astype(np.float32)}
    stored = quantize(weights)
    assert stored["m"].dtype == np.int8 and stored["m::scale"].shape == (50, 1)
    assert stored["bias"].dtype == np.float32  # vectors are kept as they are
    back = dequantize(stored)
    assert set(back) == {"m", "bias"}
    step = np.abs(weights["m"]).max(axis=1, keepdims=True) / 127
    assert np.all(np.abs(back["m"] - weights["m"]) <= step / 2 + 1e-7)
    assert np.array_equal(back["bias"], weights["bias"])


def test_shipped_weights_fit_the_base_model() -> None:
    weights = load_weights()
    base = NumpyBertEncoder(resolve_model_dir(clause_embedder.BASE_MODEL), clause_embedder.BASE_MODEL)
    assert set(weights) <= {f"{k}" for k in base.w} | {"embeddings.position_ids"}
    assert weights["embeddings.word_embeddings.weight"].shape == (30522, 384)
    assert canonical_name("clause-embedder") == CLAUSE_EMBEDDER


@pytest.mark.slow
def test_numpy_queries_match_sentence_transformers_and_differ_from_the_base() -> None:
    from summarizer.library.vectors.embedder import load_embedder

    fast = load_query_encoder(CLAUSE_EMBEDDER)
    assert isinstance(fast, RememberedQueries) and isinstance(fast.encoder, NumpyBertEncoder)
    reference = load_embedder(CLAUSE_EMBEDDER).encode(TEXTS)
    base = load_embedder(clause_embedder.BASE_MODEL).encode(TEXTS)
    for text, expected, original in zip(TEXTS, reference, base, strict=True):
        got = fast.encode_query(text)
        assert np.allclose(got, expected, atol=2e-4), text[:40]
        assert float(got @ original) < 0.99, "the fine-tuned weights were not loaded"
    # Trained to put a question beside its clause: the governing-law question is nearer its clause.
    question, law, assignment = (fast.encode_query(t) for t in TEXTS[:3])
    assert float(question @ law) > float(question @ assignment)


def _use_local(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setenv("PAGEWISE_HOME", str(tmp_path))
    folder = tmp_path / "models" / "clause-embedder"
    folder.mkdir(parents=True)
    return folder / WEIGHTS


def test_damaged_weights_name_the_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    path = _use_local(monkeypatch, tmp_path)
    shipped = clause_embedder.assets_dir() / "models" / "clause-embedder" / WEIGHTS
    path.write_bytes(shipped.read_bytes()[: 1 << 20])  # truncated
    with pytest.raises(ModelError, match="damaged") as caught:
        load_weights()
    assert str(path) in str(caught.value) and "Reinstall Pagewise" in str(caught.value)


def test_missing_weights_name_the_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PAGEWISE_HOME", str(tmp_path))
    monkeypatch.setattr(clause_embedder, "assets_dir", lambda: tmp_path / "nowhere")
    with pytest.raises(ModelError, match="missing") as caught:
        load_weights()
    assert str(tmp_path / "nowhere" / "models" / "clause-embedder" / WEIGHTS) in str(caught.value)

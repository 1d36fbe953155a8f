"""A fast path for embedding one search query: the BERT forward pass in NumPy.

``pagewise search`` in a new process would otherwise spend seconds importing torch and
transformers to embed a dozen words. For sentence-transformers models that are a plain BERT
encoder with mean pooling and normalization (all-MiniLM-L6-v2, the default), this module runs
the same computation with NumPy on the model's own safetensors weights; anything else falls
back to ``summarizer.library.vectors.embedder``. Passages are always embedded by sentence-transformers; a test
checks that both give the same vectors.
"""

from __future__ import annotations

import json
import math
import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from summarizer.library.vectors.clause_embedder import is_clause_embedder, load_weights
from summarizer.library.vectors.embedding_model import canonical_name, resolve_model_dir

Vector = npt.NDArray[np.float32]


class QueryEncoder(Protocol):
    name: str
    dim: int

    def encode_query(self, text: str) -> Vector: ...


def _layer_norm(x: Vector, weight: Vector, bias: Vector, eps: float) -> Vector:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    out: Vector = (x - mean) / np.sqrt(var + eps) * weight + bias
    return out


def _erf(x: Vector) -> Vector:
    """erf to within 1.5e-7 (Abramowitz & Stegun 7.1.26), so scipy need not be imported."""
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    out: Vector = sign * (1.0 - poly * np.exp(-a * a))
    return out


def _gelu(x: Vector) -> Vector:
    """The exact (erf) GELU that BERT's "gelu" means."""
    out: Vector = 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))
    return out


_SAFETENSORS_DTYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64, "I32": np.int32}


def load_safetensors_mapped(path: Path) -> dict[str, Vector]:
    """The tensors of a .safetensors file as read-only NumPy views of the memory-mapped file.

    Nothing is copied: loading takes no time holding the GIL (a 47 MB embedding table copied
    in one piece stalls the window's event loop when done in a worker thread), and only the
    rows used are ever read from disk.
    """
    import struct

    mapped = np.memmap(path, dtype=np.uint8, mode="r")
    (header_len,) = struct.unpack("<Q", mapped[:8].tobytes())
    header = json.loads(mapped[8 : 8 + header_len].tobytes())
    base = 8 + header_len
    tensors: dict[str, Vector] = {}
    for key, meta in header.items():
        if key == "__metadata__":
            continue
        dtype = _SAFETENSORS_DTYPES.get(meta["dtype"])
        if dtype is None:
            raise ValueError(f"{path}: tensor {key} has dtype {meta['dtype']}, which this loader does not read")
        start, end = meta["data_offsets"]
        tensors[key] = mapped[base + start : base + end].view(dtype).reshape(meta["shape"])
    return tensors


@contextmanager
def _one_blas_thread() -> Iterator[None]:
    """Run a query's small matrix products on one thread.

    A dozen tokens gain nothing from BLAS threads, and on a busy machine the threads wait on each
    other: measured on two shared cores, 430 ms per query with OpenBLAS's two threads against 8.5 ms
    with one (docs/retrieval.md). threadpoolctl comes with sentence-transformers' dependencies;
    without it the query runs as before.
    """
    controller = _blas_controller()
    if controller is None:
        yield
        return
    with controller.limit(limits=1, user_api="blas"):
        yield


@lru_cache(maxsize=1)
def _blas_controller() -> Any:
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:
        return None
    return ThreadpoolController()


class NumpyBertEncoder:
    """BERT encoder + mean pooling + L2 normalization, for one text at a time."""

    def __init__(self, folder: Path, name: str) -> None:
        from tokenizers import Tokenizer

        config = json.loads((folder / "config.json").read_text())
        self.name = name
        self.heads = int(config["num_attention_heads"])
        self.layers = int(config["num_hidden_layers"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        weights = load_safetensors_mapped(folder / "model.safetensors")
        if is_clause_embedder(name):  # the base model's folder, the fine-tuned weights
            weights = {**weights, **load_weights()}
        # Dense weights are stored transposed and copied into fresh, aligned arrays (a few MB
        # each): NumPy's BLAS path is ~20x slower on unaligned buffers. The embedding tables
        # stay mapped: a query reads only its tokens' rows.
        self.w: dict[str, Any] = {}
        for key, value in weights.items():
            key = key.removeprefix("bert.")
            is_dense = value.ndim == 2 and key.startswith("encoder.")
            self.w[key] = np.ascontiguousarray(value.T) if is_dense else value
        self.dim = int(self.w["embeddings.word_embeddings.weight"].shape[1])
        st_config = folder / "sentence_bert_config.json"
        self.max_len = int(json.loads(st_config.read_text()).get("max_seq_length", 256)) if st_config.exists() else 256
        self.tokenizer: Any = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(self.max_len)

    def encode_query(self, text: str) -> Vector:
        with _one_blas_thread():
            return self._encode(text)

    def _encode(self, text: str) -> Vector:
        w = self.w
        ids = np.asarray(self.tokenizer.encode(text).ids, dtype=np.int64)
        n = len(ids)
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:n]
            + w["embeddings.token_type_embeddings.weight"][0]
        )
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], self.eps)
        head_dim = self.dim // self.heads
        for i in range(self.layers):
            p = f"encoder.layer.{i}."

            def dense(h: Vector, name: str, p: str = p) -> Vector:
                out: Vector = h @ w[p + name + ".weight"] + w[p + name + ".bias"]
                return out

            q = dense(x, "attention.self.query").reshape(n, self.heads, head_dim).transpose(1, 0, 2)
            k = dense(x, "attention.self.key").reshape(n, self.heads, head_dim).transpose(1, 0, 2)
            v = dense(x, "attention.self.value").reshape(n, self.heads, head_dim).transpose(1, 0, 2)
            scores = q @ k.transpose(0, 2, 1) / math.sqrt(head_dim)
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            scores /= scores.sum(axis=-1, keepdims=True)
            context = (scores @ v).transpose(1, 0, 2).reshape(n, self.dim)
            x = _layer_norm(
                dense(context, "attention.output.dense") + x,
                w[p + "attention.output.LayerNorm.weight"],
                w[p + "attention.output.LayerNorm.bias"],
                self.eps,
            )
            hidden = _gelu(dense(x, "intermediate.dense"))
            x = _layer_norm(
                dense(hidden, "output.dense") + x,
                w[p + "output.LayerNorm.weight"],
                w[p + "output.LayerNorm.bias"],
                self.eps,
            )
        pooled = x.mean(axis=0)
        result: Vector = (pooled / max(float(np.linalg.norm(pooled)), 1e-12)).astype(np.float32)
        return result


class _SentenceTransformerQueries:
    def __init__(self, name: str) -> None:
        from summarizer.library.vectors.embedder import load_embedder

        self._embedder = load_embedder(name)
        self.name = self._embedder.name
        self.dim = self._embedder.dim

    def encode_query(self, text: str) -> Vector:
        vector: Vector = self._embedder.encode([text])[0]
        return vector


def _is_plain_bert_mean_pooling(folder: Path) -> bool:
    try:
        config = json.loads((folder / "config.json").read_text())
        modules = json.loads((folder / "modules.json").read_text())
        pooling = json.loads((folder / "1_Pooling" / "config.json").read_text())
    except (OSError, ValueError):
        return False
    kinds = [m.get("type", "").rsplit(".", 1)[-1] for m in modules]
    return (
        config.get("model_type") == "bert"
        and config.get("hidden_act") == "gelu"
        and config.get("position_embedding_type", "absolute") == "absolute"
        and kinds == ["Transformer", "Pooling", "Normalize"]
        and bool(pooling.get("pooling_mode_mean_tokens"))
        and not any(pooling.get(k) for k in ("pooling_mode_cls_token", "pooling_mode_max_tokens"))
        and (folder / "model.safetensors").is_file()
    )


class RememberedQueries:
    """An encoder that keeps the vectors of the last ``size`` queries it embedded.

    A review asks the same checklist queries of every contract (162 for CUAD's 41 items): over a
    data room each is embedded once instead of once per contract (about 1.5 s a contract on two
    cores, issue 46). The vectors come back read-only, shared by every caller."""

    def __init__(self, encoder: QueryEncoder, size: int = 1024) -> None:
        self.encoder = encoder
        self.name = encoder.name
        self.dim = encoder.dim
        self.size = size
        self._vectors: OrderedDict[str, Vector] = OrderedDict()
        self._lock = threading.Lock()

    def encode_query(self, text: str) -> Vector:
        with self._lock:
            vector = self._vectors.get(text)
            if vector is not None:
                self._vectors.move_to_end(text)
                return vector
        vector = self.encoder.encode_query(text)
        vector.setflags(write=False)
        with self._lock:
            self._vectors[text] = vector
            while len(self._vectors) > self.size:
                self._vectors.popitem(last=False)
        return vector


@lru_cache(maxsize=2)
def load_query_encoder(name: str) -> QueryEncoder:
    name = canonical_name(name)
    folder = resolve_model_dir(name)
    if _is_plain_bert_mean_pooling(folder):
        return RememberedQueries(NumpyBertEncoder(folder, name))
    return RememberedQueries(_SentenceTransformerQueries(name))

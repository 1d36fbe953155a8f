"""Embedding a passage longer than the embedding model reads, without truncating it.

all-MiniLM-L6-v2 reads at most 256 word pieces ([CLS] and [SEP] included); a clause passage
can hold 400. Such a passage is embedded as several windows of the model's length, spread
evenly over it and overlapping, and its vector is the mean of the windows' normalized
vectors, normalized again: one vector per passage, so the FAISS index and the embeddings
table keep one row per passage (docs/retrieval.md compares this with the best window's score).

Each window is prefixed with the passage's heading path, so a window from the middle of a
clause still says which clause it is in.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np
import numpy.typing as npt

from summarizer.library.cutting.passages import HEADING_JOIN

Vectors = npt.NDArray[np.float32]
# Windows overlap by at least this share of a window, so no sentence is only ever seen cut.
MIN_OVERLAP_SHARE = 0.25
SPECIAL_TOKENS = 2  # [CLS] and [SEP]
MAX_HEADING_SHARE = 4  # a heading takes at most a quarter of a window
WORD_MARGIN = 8  # room for moving a window's edges to whole words


class WindowTokenizer(Protocol):
    def offsets(self, text: str) -> list[tuple[int, int]]: ...

    def count(self, text: str) -> int: ...


def embedding_input(heading: str, text: str) -> str:
    """What the embedding model reads for a passage (or a window of it)."""
    return f"{heading}: {text}" if heading else text


def _fit_heading(heading: str, tokenizer: WindowTokenizer, limit: int) -> str:
    """The heading path, dropping its outermost parts while it is longer than ``limit`` tokens."""
    parts = heading.split(HEADING_JOIN)
    while parts and tokenizer.count(HEADING_JOIN.join(parts) + ": ") > limit:
        parts = parts[1:]
    return HEADING_JOIN.join(parts)


def passage_windows(text: str, heading: str, tokenizer: WindowTokenizer, max_seq_length: int) -> list[str]:
    """The texts to embed for one passage: itself when it fits, else overlapping windows."""
    room = max_seq_length - SPECIAL_TOKENS
    heading = _fit_heading(heading, tokenizer, room // MAX_HEADING_SHARE) if heading else ""
    budget = room - (tokenizer.count(heading + ": ") if heading else 0)
    offsets = tokenizer.offsets(text)
    if len(offsets) <= budget and tokenizer.count(embedding_input(heading, text)) <= room:
        return [embedding_input(heading, text)]
    budget -= WORD_MARGIN
    step = max(1, int(budget * (1 - MIN_OVERLAP_SHARE)))
    count = 1 + -(-(len(offsets) - budget) // step)  # ceil
    # Spread the windows evenly so the last one ends at the end of the passage; each starts and
    # ends on a whole word, and is shrunk until it fits (word pieces at a cut can differ).
    starts = np.linspace(0, len(offsets) - budget, count).round().astype(int)
    windows = []
    for start in starts:
        first, last = int(start), int(start) + budget - 1
        while 0 < first < last and not text[offsets[first][0] - 1].isspace():
            first += 1  # inside a word: start after it
        while True:
            while last > first and last + 1 < len(offsets) and offsets[last + 1][0] == offsets[last][1]:
                last -= 1  # inside a word: end before it
            window = embedding_input(heading, text[offsets[first][0] : offsets[last][1]])
            if tokenizer.count(window) <= room or last == first:
                break
            last -= 1
        windows.append(window)
    return windows


def mean_of_windows(vectors: Vectors, counts: Sequence[int]) -> Vectors:
    """One normalized vector per passage from its windows' vectors (rows, in passage order)."""
    out = np.zeros((len(counts), vectors.shape[1]), dtype=np.float32)
    row = 0
    for n, count in enumerate(counts):
        mean = vectors[row : row + count].mean(axis=0)
        out[n] = mean / max(float(np.linalg.norm(mean)), 1e-12)
        row += count
    return out

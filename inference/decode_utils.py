"""Small pieces shared by the worker's decode loops (run in the worker process)."""

from __future__ import annotations

import ctypes
from typing import Any

CHUNK_TARGET_S = 0.08
"""Aim for prefill chunks of this duration: cancel then lands within ~2 chunks."""


class ChunkSizer:
    """Picks the next prefill chunk so that it takes about ``target_s``.

    Starts small (the first chunk on a slow device must not take seconds), then follows the
    measured rate, growing at most 2x per step (attention cost grows with position).
    """

    def __init__(self, maximum: int, target_s: float = CHUNK_TARGET_S, initial: int = 16, minimum: int = 4) -> None:
        self.maximum = max(1, maximum)
        self.minimum = min(minimum, self.maximum)
        self.target_s = target_s
        self.size = max(self.minimum, min(initial, self.maximum))

    def next(self, remaining: int) -> int:
        return max(1, min(self.size, remaining))

    def record(self, n_tokens: int, seconds: float) -> None:
        if seconds <= 0:
            self.size = min(self.maximum, self.size * 2)
            return
        ideal = int(n_tokens / seconds * self.target_s)
        self.size = max(self.minimum, min(self.maximum, ideal, self.size * 2))


class TokenBytes:
    """A token's text as bytes (``llama_token_to_piece`` with a reused buffer).

    llama-cpp-python's ``LlamaModel.token_to_piece`` returns its whole 32-byte buffer,
    NUL padding included, so it is not used.
    """

    def __init__(self, llama_cpp: Any, vocab: Any) -> None:
        self._llama_cpp = llama_cpp
        self._vocab = vocab
        self._size = 64
        self._buffer = ctypes.create_string_buffer(self._size)

    def __call__(self, token: int) -> bytes:
        n = self._llama_cpp.llama_token_to_piece(self._vocab, token, self._buffer, self._size, 0, False)
        if n < 0:  # the buffer is too small: -n bytes are needed
            self._size = -n
            self._buffer = ctypes.create_string_buffer(self._size)
            n = self._llama_cpp.llama_token_to_piece(self._vocab, token, self._buffer, self._size, 0, False)
        return bytes(self._buffer.raw[: max(0, n)])


class GreedySampler:
    """Greedy sampling as an argmax over the logits in NumPy.

    The same token as llama.cpp's greedy sampler (the first maximum; llama-cpp-python's chain
    adds only penalties, which do nothing at 1.0), without building and scanning an n_vocab
    candidate array per token: with a 152K vocabulary that costs about a millisecond, a
    quarter of a 7B model's decode step on a fast GPU, and 16 of them per step when 16
    sequences decode together.
    """

    def __init__(self, llama_cpp: Any, n_vocab: int) -> None:
        import numpy as np  # imported here, not per token

        self._as_array = np.ctypeslib.as_array
        self._get_logits_ith = llama_cpp.llama_get_logits_ith
        self._shape = (int(n_vocab),)

    def sample(self, ctx: Any, idx: int) -> int:
        """The most likely token at output row ``idx`` (-1: the last); ``ctx`` is a raw
        ``llama_context`` pointer or llama-cpp-python's ``LlamaContext``."""
        raw = getattr(ctx, "ctx", ctx)
        return int(self._as_array(self._get_logits_ith(raw, idx), shape=self._shape).argmax())

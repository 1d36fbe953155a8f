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

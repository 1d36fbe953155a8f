"""Small pieces shared by the worker's decode loops (run in the worker process)."""

from __future__ import annotations

import ctypes
from typing import Any


def prefill_step(n_batch: int, n_ubatch: int) -> int:
    """Prompt tokens per prefill call: one whole micro-batch.

    Every ``llama_decode`` call pays a fixed cost when layers live in CPU memory (llama.cpp
    copies their weights to the GPU once per micro-batch for calls of 32 tokens or more, and
    runs smaller calls on the CPU), and calls smaller than a micro-batch leave the GPU idle.
    Measured for a 32B with 38/65 layers on the GPU: 512 prompt tokens in 16-token calls ran
    at 30 tok/s, in one call at 405 (docs/benchmarks.md). Cancel is checked between calls.
    """
    return max(1, min(n_batch, n_ubatch))


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


class LogitsRow:
    """The logits of one output row as a NumPy view (no copy) of llama.cpp's buffer."""

    def __init__(self, llama_cpp: Any, n_vocab: int) -> None:
        import numpy as np  # imported here, not per token

        self._as_array = np.ctypeslib.as_array
        self._get_logits_ith = llama_cpp.llama_get_logits_ith
        self._shape = (int(n_vocab),)

    def row(self, ctx: Any, idx: int) -> Any:
        """Output row ``idx`` (-1: the last); ``ctx`` is a raw ``llama_context`` pointer or
        llama-cpp-python's ``LlamaContext``."""
        raw = getattr(ctx, "ctx", ctx)
        return self._as_array(self._get_logits_ith(raw, idx), shape=self._shape)


class NanCheck(LogitsRow):
    """Whether the logits at an output row hold a NaN. A grammar sampler given NaN logits
    chooses a token its grammar cannot take, and llama.cpp then throws a C++ exception that
    ends the worker (seen with random-weight models on CUDA, whose activations overflow): the
    reply is ended as ``invalid`` before sampling instead."""

    def __call__(self, ctx: Any, idx: int) -> bool:
        import numpy as np

        return bool(np.isnan(self.row(ctx, idx)).any())


class GreedySampler(LogitsRow):
    """Greedy sampling as an argmax over the logits in NumPy.

    The same token as llama.cpp's greedy sampler (the first maximum; llama-cpp-python's chain
    adds only penalties, which do nothing at 1.0), without building and scanning an n_vocab
    candidate array per token: with a 152K vocabulary that costs about a millisecond, a
    quarter of a 7B model's decode step on a fast GPU, and 16 of them per step when 16
    sequences decode together.
    """

    def sample(self, ctx: Any, idx: int) -> int:
        """The most likely token at output row ``idx`` (-1: the last)."""
        return int(self.row(ctx, idx).argmax())

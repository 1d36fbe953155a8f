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


class GrammarCheck:
    """Greedy decoding held to a grammar, fast: the argmax token is checked alone.

    A grammar sampler in front of a greedy one filters every candidate of the vocabulary
    (128K for Llama 3) through the grammar at each token: tens of milliseconds of CPU per token
    and sequence, more than an 8B model's decode step on a GPU. The greedy choice among the
    tokens the grammar allows is the argmax itself whenever the grammar allows the argmax, which
    is almost always (a model asked for JSON writes JSON; inside a string value the grammar
    takes nearly any token). So the argmax is offered to the grammar as a one-token candidate
    list, and only a refused one pays for the full filtering (``refused`` counts those). The
    chosen token is the same either way; llama.cpp's own sampler (common/sampling.cpp) does
    the same.
    """

    def __init__(self, llama_cpp: Any) -> None:
        import ctypes

        self._llama_cpp = llama_cpp
        self._data = llama_cpp.llama_token_data(id=0, logit=0.0, p=0.0)
        self._array = llama_cpp.llama_token_data_array(
            data=ctypes.pointer(self._data), size=1, selected=-1, sorted=False
        )
        self._ref = ctypes.byref(self._array)
        self.checked = 0
        self.refused = 0

    def takes(self, grammar_sampler: Any, token: int) -> bool:
        """Whether the grammar (a llama.cpp grammar sampler, not a chain) allows ``token`` next."""
        self._data.id = token
        self._data.logit = 0.0
        self._data.p = 0.0
        self._array.size = 1
        self._array.selected = -1
        self._array.sorted = False
        self._llama_cpp.llama_sampler_apply(grammar_sampler, self._ref)
        self.checked += 1
        allowed = bool(self._data.logit != float("-inf"))
        self.refused += not allowed
        return allowed

    def sample(self, chain: Any, greedy: GreedySampler, ctx: Any, row: int) -> int:
        """The greedy token at output ``row`` that the grammar of ``chain`` (a grammar sampler
        followed by a greedy one, as ``batch_decode`` builds it) allows; the chain accepts it."""
        llama_cpp = self._llama_cpp
        token = greedy.sample(ctx, row)
        if self.takes(llama_cpp.llama_sampler_chain_get(chain, 0), token):
            llama_cpp.llama_sampler_accept(chain, token)
            return token
        return int(llama_cpp.llama_sampler_sample(chain, ctx, row))

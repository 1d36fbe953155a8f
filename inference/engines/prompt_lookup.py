"""Prompt-lookup drafting: guess the next tokens by finding the last tokens earlier in the text.

Answers grounded in a document often copy phrases from it. When the last few tokens
(an n-gram) appeared before, the tokens that followed them then are a cheap guess (a
draft) for what comes next; the model checks the whole draft in one decode call and keeps
the part it agrees with (see ``single_decode`` for the verify step, greedy decoding only).

llama-cpp-python's ``LlamaPromptLookupDecoding`` forces ``logits_all`` (an n_ctx x n_vocab
float array: ~20 GB at 32K context with a 152K vocabulary), hence this small index of
our own, updated in O(1) per token.
"""

from __future__ import annotations

from collections.abc import Iterable


class NgramIndex:
    """Where each n-gram (``min_n`` to ``max_n`` tokens) last ended, for drafting."""

    def __init__(self, tokens: Iterable[int] = (), *, max_n: int = 3, min_n: int = 1) -> None:
        self.max_n = max_n
        self.min_n = min_n
        self.history: list[int] = []
        self._last_end: dict[tuple[int, ...], int] = {}
        # For the current suffix of each length: where it ended before (None: never).
        self._previous: dict[int, int | None] = {}
        for token in tokens:
            self.add(token)

    def add(self, token: int) -> None:
        self.history.append(token)
        end = len(self.history) - 1
        for n in range(self.min_n, self.max_n + 1):
            if end - n + 1 < 0:
                self._previous[n] = None
                continue
            key = tuple(self.history[end - n + 1 : end + 1])
            self._previous[n] = self._last_end.get(key)
            self._last_end[key] = end

    def draft(self, limit: int) -> list[int]:
        """Up to ``limit`` tokens that followed the longest earlier match of the suffix."""
        if limit <= 0:
            return []
        for n in range(self.max_n, self.min_n - 1, -1):
            end = self._previous.get(n)
            if end is not None:
                follow = self.history[end + 1 : end + 1 + limit]
                if follow:
                    return follow
        return []

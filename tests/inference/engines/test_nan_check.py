"""Logits holding a NaN are seen before a grammar sampler is given them."""

from __future__ import annotations

import ctypes
import math
from typing import Any

from inference.engines.decode_utils import NanCheck


class _Llama:
    """What NanCheck uses of llama_cpp: llama_get_logits_ith over one context's rows."""

    def __init__(self, rows: list[list[float]]) -> None:
        self.rows = [(ctypes.c_float * len(r))(*r) for r in rows]

    def llama_get_logits_ith(self, ctx: Any, idx: int) -> Any:
        return ctypes.cast(self.rows[idx], ctypes.POINTER(ctypes.c_float))


def test_a_nan_anywhere_in_the_row_is_seen() -> None:
    llama = _Llama([[0.5, -2.0, 3.0, float("-inf")], [0.1, math.nan, 0.3, 0.4]])
    check = NanCheck(llama, 4)
    assert not check(object(), 0)  # -inf is a legal logit
    assert check(object(), 1)

"""The batch context of ``inference.engines.batch_decode``: how many sequences of how many cells
it holds for a plan, making it, and one ``llama_decode`` call on it (runs in the worker process)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from inference.planning.plan import GGML_TYPE_IDS, Plan

_KV_ROUND = 256


class BatchContextError(Exception):
    """The batch context could not be created or a prompt does not fit."""


def batch_layout(llama_cpp: Any, plan: Plan, need: int, n_prompts: int) -> tuple[int, int, int]:
    """(cells per sequence, sequences at once, micro-batch) for prompts that need at most
    ``need`` tokens with their replies. One KV stream per slot, each as long as the longest
    prompt and its reply needs. The plan sized the batch for n_seq_max sequences of batch_n_ctx
    tokens: longer prompts (a reduction's) run in fewer slots within the same number of cells."""
    cells = -(-need // _KV_ROUND) * _KV_ROUND
    planned_cells = max(1, plan.n_seq_max) * (plan.batch_n_ctx or plan.n_ctx)
    n_slots = min(
        n_prompts,
        max(1, plan.n_seq_max),
        max(1, planned_cells // cells),
        max(1, int(llama_cpp.llama_max_parallel_sequences())),
    )
    return cells, n_slots, max(plan.batch_n_ubatch or plan.n_ubatch, n_slots)


def open_batch_context(llama_cpp: Any, llm: Any, plan: Plan, cells: int, n_slots: int, n_ubatch: int) -> Any:
    """(context, llama_batch) for ``n_slots`` sequences of ``cells`` cells on ``llm``'s model;
    the caller frees both (``llama_batch_free``, ``llama_free``)."""
    params = llama_cpp.llama_context_default_params()
    params.n_ctx = cells * n_slots
    params.n_batch = n_ubatch
    params.n_ubatch = n_ubatch
    params.n_seq_max = n_slots
    params.kv_unified = plan.batch_mixed
    params.n_threads = llm.n_threads
    params.n_threads_batch = llm.n_threads_batch
    params.type_k = GGML_TYPE_IDS[plan.batch_kv]
    params.type_v = GGML_TYPE_IDS[plan.batch_kv]
    enabled, disabled = llama_cpp.LLAMA_FLASH_ATTN_TYPE_ENABLED, llama_cpp.LLAMA_FLASH_ATTN_TYPE_DISABLED
    params.flash_attn_type = enabled if plan.flash_attn else disabled
    params.swa_full = plan.swa_full
    ctx = llama_cpp.llama_init_from_model(llm._model.model, params)
    if not ctx:
        raise BatchContextError(
            f"Could not create a context for {n_slots} sequences ({cells} tokens of KV cache each): "
            "not enough memory. Send fewer prompts at once, or lower max_tokens."
        )
    return ctx, llama_cpp.llama_batch_init(n_ubatch, 0, 1)


def decode(llama_cpp: Any, ctx: Any, batch: Any, check_cancel: Callable[[], None]) -> None:
    code = llama_cpp.llama_decode(ctx, batch)
    if code == 2:  # aborted by the abort callback
        check_cancel()
    if code != 0:
        raise BatchContextError(
            f"llama_decode failed with code {code} (KV cache full or out of memory). "
            "Send fewer prompts at once, or lower max_tokens."
        )

"""The batch context's layout: cells per sequence and sequences at once for a plan."""

from __future__ import annotations

from types import SimpleNamespace

from inference.engines.batch_context import batch_layout
from inference.planning.plan import Plan

LLAMA = SimpleNamespace(llama_max_parallel_sequences=lambda: 64)


def _plan(**overrides: object) -> Plan:
    values: dict[str, object] = {
        "model_path": "m.gguf",
        "n_gpu_layers": -1,
        "n_ctx": 16384,
        "n_seq_max": 4,
        "batch_n_ctx": 8704,
    }
    values.update(overrides)
    return Plan(**values)  # type: ignore[arg-type]


def test_prompts_within_the_planned_sequence_run_in_every_slot() -> None:
    cells, n_slots, _ = batch_layout(LLAMA, _plan(), 8704, 41)
    assert (cells, n_slots) == (8704, 4)


def test_a_longer_prompt_runs_in_fewer_slots_within_the_planned_cells() -> None:
    # a whole 17-page contract read at once (10,458 tokens and a 160-token reply): 3 of 10,752 cells
    cells, n_slots, _ = batch_layout(LLAMA, _plan(), 10458 + 160, 41)
    assert (cells, n_slots) == (10752, 3)


def test_no_more_slots_than_prompts_or_than_llama_cpp_allows() -> None:
    assert batch_layout(LLAMA, _plan(), 300, 2)[1] == 2
    assert batch_layout(SimpleNamespace(llama_max_parallel_sequences=lambda: 2), _plan(), 300, 41)[1] == 2


def test_the_micro_batch_holds_one_token_of_each_slot() -> None:
    assert batch_layout(LLAMA, _plan(n_seq_max=16, n_ubatch=8, batch_n_ctx=256), 256, 16)[2] == 16

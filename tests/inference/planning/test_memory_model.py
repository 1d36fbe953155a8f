"""The memory model (KV cache, weights, compute buffers) on real models' shapes (no file, no llama.cpp
needed)."""

from __future__ import annotations

import dataclasses

from inference.planning.kv_cache import (
    effective_n_ctx,
    gpu_layer_ids,
    kv_cache_bytes,
    layer_cells,
    row_bytes,
    weights_split,
)
from inference.planning.memory_model import Config, PlannerOptions, estimate
from inference.planning.plan import GIB, MIB
from scripts.random_gguf import shape_info

RAM = 64 * GIB  # the tests must not depend on this machine's free memory
OPTS = PlannerOptions(ram_bytes=RAM)


def test_row_bytes() -> None:
    assert row_bytes("f16", 1024) == 2048
    assert row_bytes("q8_0", 1024) == 1024 // 32 * 34
    assert row_bytes("q4_0", 1024) == 1024 // 32 * 18


def test_n_ctx_rounding_like_llama_cpp() -> None:
    assert effective_n_ctx(1000) == (1024, 1024, 1)
    assert effective_n_ctx(8192) == (8192, 8192, 1)
    # Not unified: each of 4 streams gets pad(n_ctx / 4, 256) cells.
    assert effective_n_ctx(10000, n_seq_max=4) == (4 * 2560, 2560, 4)
    assert effective_n_ctx(10000, n_seq_max=4, kv_unified=True) == (10240, 10240, 1)


def test_output_layer_counts_in_n_gpu_layers() -> None:
    # llama.cpp: layers il >= n_layer + 1 - n_gpu_layers go to the GPU, il == n_layer is the output.
    assert gpu_layer_ids(4, 0) == ([], False)
    assert gpu_layer_ids(4, 1) == ([], True)
    assert gpu_layer_ids(4, 2) == ([3], True)
    assert gpu_layer_ids(4, 5) == ([0, 1, 2, 3], True)
    assert gpu_layer_ids(4, 99) == ([0, 1, 2, 3], True)
    assert gpu_layer_ids(4, -1) == ([0, 1, 2, 3], True)


def test_qwen14b_kv_cache_matches_the_hand_formula() -> None:
    info = shape_info("qwen2.5-14b")
    kv = kv_cache_bytes(info, 32768, "q8_0", "q8_0", flash_attn=True, n_gpu_layers=49)
    # 48 layers x 32768 cells x (8 KV heads x 128) x 34/32 bytes, K and V: 3264 MiB (llama.cpp: 3264.00 MiB).
    assert kv.gpu == 48 * 32768 * 2 * (1024 // 32 * 34) == 3264 * MIB
    assert kv.cpu == 0
    half = kv_cache_bytes(info, 32768, "q8_0", "q8_0", flash_attn=True, n_gpu_layers=25)
    assert half.gpu == 24 * 32768 * 2 * (1024 // 32 * 34) and half.total == kv.total


def test_gqa_sizes_kv_by_kv_heads() -> None:
    info = shape_info("qwen2.5-7b")  # 28 query heads, 4 KV heads
    full = kv_cache_bytes(info, 8192, "f16", "f16", flash_attn=True, n_gpu_layers=29)
    assert full.gpu == 28 * 8192 * 2 * (4 * 128 * 2)
    mha = dataclasses.replace(info, n_head_kv=(28,) * 28)
    assert kv_cache_bytes(mha, 8192, "f16", "f16", flash_attn=True, n_gpu_layers=29).gpu == 7 * full.gpu


def test_sliding_window_layers_keep_only_the_window() -> None:
    info = shape_info("gemma-3-12b")  # window 1024, 8 global layers of 48
    assert layer_cells(info, 0, 32768) == 1024 + 512  # pad(1024 + n_ubatch, 256)
    assert layer_cells(info, 5, 32768) == 32768  # a global layer
    assert layer_cells(info, 0, 32768, swa_full=True) == 32768
    assert layer_cells(info, 0, 512) == 512  # never more than the context
    kv = kv_cache_bytes(info, 32768, "f16", "f16", flash_attn=True, n_gpu_layers=49)
    per_cell = 8 * 256 * 2 * 2
    assert kv.gpu == (8 * 32768 + 40 * 1536) * per_cell  # 2528 MiB, as llama.cpp reported on the H200
    assert kv.gpu == 2528 * MIB


def test_sliding_window_with_several_sequences() -> None:
    info = shape_info("gemma-3-12b")
    # Not unified: each of 4 streams has pad(min(n_ctx_seq, window + n_ubatch), 256) cells.
    assert layer_cells(info, 0, 32768, n_seq_max=4) == 4 * 1536
    assert layer_cells(info, 5, 32768, n_seq_max=4) == 32768


def test_weights_split_with_tied_embeddings() -> None:
    info = shape_info("gemma-3-12b")
    all_on = weights_split(info, 49)
    assert all_on.gpu == sum(info.layer_bytes) + info.output_bytes
    assert info.output_bytes > info.token_embd_bytes  # the duplicated token_embd + output_norm
    only_output = weights_split(info, 1)
    assert only_output.gpu == info.output_bytes


def test_weights_split_moe_experts_on_cpu() -> None:
    info = shape_info("qwen3-30b-a3b")
    full = weights_split(info, 49)
    ten = weights_split(info, 49, n_cpu_moe=10)
    assert full.gpu - ten.gpu == sum(info.layer_expert_bytes[:10])


def test_flash_attention_shrinks_the_compute_buffer() -> None:
    info = shape_info("qwen2.5-14b")
    fa = estimate(info, Config(49, 32768, "f16", True), OPTS).breakdown.compute_buffers
    no_fa = estimate(info, Config(49, 32768, "f16", False), OPTS).breakdown.compute_buffers
    assert no_fa > 5 * fa  # the 40 x 32768 x 512 f32 KQ matrix

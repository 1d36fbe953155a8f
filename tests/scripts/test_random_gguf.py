"""The random-weight GGUF writer: real models' shapes and quant types; tiny ones run in llama.cpp."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from inference.planning.gguf_info import read_gguf_info
from scripts.random_gguf import GPU_SHAPES, SHAPES, _template, shape_info, tensor_specs, write_random_gguf

GIB = 1024**3


@pytest.mark.parametrize(
    ("shape", "low", "high"),
    [
        # Published Q4_K_M file sizes (bartowski / ggml-org), in GiB, with a few % slack.
        ("qwen2.5-7b", 4.2, 4.5),
        ("qwen2.5-14b", 8.2, 8.6),
        ("qwen2.5-32b", 17.9, 18.8),
        ("llama-3.1-8b", 4.4, 4.7),
        ("gemma-3-12b", 6.6, 7.0),
        ("qwen3-30b-a3b", 16.9, 17.6),
    ],
)
def test_real_shapes_have_real_sizes(shape: str, low: float, high: float) -> None:
    info = shape_info(shape)
    assert low <= info.weights_bytes / GIB <= high


def test_gpu_shapes_cover_the_issue() -> None:
    assert {"qwen2.5-7b", "qwen2.5-14b", "qwen2.5-32b", "llama-3.1-8b", "gemma-3-12b", "qwen3-30b-a3b"} <= set(
        GPU_SHAPES
    )
    assert any(SHAPES[s].sliding_window for s in GPU_SHAPES)
    assert any(SHAPES[s].n_expert for s in GPU_SHAPES)


def test_q4_k_m_type_rules() -> None:
    specs = {t.name: t.type_name for t in tensor_specs(SHAPES["qwen2.5-14b"], "Q4_K_M")}
    assert specs["output.weight"] == "Q6_K"
    assert specs["token_embd.weight"] == "Q4_K"
    assert specs["blk.0.attn_v.weight"] == "Q6_K"  # first eighth: more bits
    assert specs["blk.6.attn_v.weight"] == "Q4_K"
    assert specs["blk.8.ffn_down.weight"] == "Q6_K"  # (8 - 6) % 3 == 2
    assert specs["blk.47.ffn_down.weight"] == "Q6_K"  # last eighth
    assert specs["blk.10.ffn_up.weight"] == "Q4_K"
    assert specs["blk.10.attn_q.bias"] == "F32"
    # Tied embeddings get the output's type (Gemma 3).
    gemma = {t.name: t.type_name for t in tensor_specs(SHAPES["gemma-3-12b"], "Q4_K_M")}
    assert gemma["token_embd.weight"] == "Q6_K" and "output.weight" not in gemma


@pytest.mark.parametrize("type_name", ["Q4_K", "Q6_K", "Q8_0", "Q4_0"])
def test_quant_blocks_have_small_finite_scales(type_name: str) -> None:
    import gguf

    block_elems, block_bytes = gguf.GGML_QUANT_SIZES[gguf.GGMLQuantizationType[type_name]]
    raw = _template(type_name, np.random.default_rng(1))[: block_bytes * 64]
    values = gguf.dequantize(raw.reshape(64, block_bytes), gguf.GGMLQuantizationType[type_name])
    assert values.size == 64 * block_elems
    assert np.isfinite(values).all()
    assert np.abs(values).max() < 0.1  # d ≤ 1e-5 times the sub-block scales (≤ 128) times the quants


def test_file_size_matches_table(tiny_gguf: Callable[[str], Path]) -> None:
    path = tiny_gguf("tiny-qwen2")
    info = read_gguf_info(path)
    assert info.weights_bytes <= path.stat().st_size < info.weights_bytes + 1024 * 1024


@pytest.mark.parametrize("shape", ["tiny-llama", "tiny-qwen2", "tiny-gemma3", "tiny-qwen3moe"])
def test_tiny_models_load_and_generate_in_llama_cpp(
    shape: str, tiny_gguf: Callable[[str], Path], llama_cpp_module: object
) -> None:
    from llama_cpp import Llama

    llm = Llama(str(tiny_gguf(shape)), n_ctx=512, n_threads=2, n_threads_batch=2, verbose=False, swa_full=False)
    try:
        tokens = llm.tokenize(b"The quick brown fox")
        assert tokens
        out = []
        for i, token in enumerate(llm.generate(tokens, top_k=1, temp=0.0)):
            out.append(token)
            if i >= 7:
                break
        assert len(out) == 8
        assert all(0 <= t < llm.n_vocab() for t in out)
    finally:
        llm.close()


def test_bundled_asset_is_a_tiny_working_model() -> None:
    asset = Path(__file__).resolve().parents[2] / "assets" / "tiny-random.gguf"
    if not asset.exists():
        pytest.skip("assets/tiny-random.gguf not generated")
    assert asset.stat().st_size < 2 * 1024 * 1024
    info = read_gguf_info(asset)
    assert info.architecture == "llama" and info.n_layers == SHAPES["tiny-llama"].n_layers


def test_sparse_file_serves_dry_runs(
    tmp_path: Path, tiny_gguf: Callable[[str], Path], llama_cpp_module: object
) -> None:
    from inference.llama_log import DryRunConfig, dry_run_buffers

    sparse = write_random_gguf("tiny-qwen2", tmp_path / "sparse.gguf", sparse=True)
    assert sparse.stat().st_size == tiny_gguf("tiny-qwen2").stat().st_size
    assert read_gguf_info(sparse).weights_bytes == read_gguf_info(tiny_gguf("tiny-qwen2")).weights_bytes
    config = DryRunConfig(n_gpu_layers=0, n_ctx=4096, flash_attn=True)
    assert dry_run_buffers(str(sparse), config).compute == dry_run_buffers(str(tiny_gguf("tiny-qwen2")), config).compute

"""GGUF inspection: a real model (SmolLM2-135M), random models of known shapes, bad files."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import gguf
import numpy as np
import pytest

from inference.errors import ModelError
from inference.planning.gguf_info import read_gguf_info, swa_pattern
from scripts.random_gguf import SHAPES, shape_info


def test_smollm2_header(smollm2_path: Path) -> None:
    info = read_gguf_info(smollm2_path)
    assert info.architecture == "llama"
    assert info.n_layers == 30
    assert info.n_embd == 576
    assert info.n_ff == 1536
    assert info.n_head == (9,) * 30
    assert info.n_head_kv == (3,) * 30  # GQA: 3 KV heads for 9 query heads
    assert info.head_dim_k == info.head_dim_v == 64
    assert info.n_ctx_train == 8192
    assert info.n_vocab == 49152
    assert info.n_expert == 0 and not info.is_moe
    assert not info.has_swa
    assert info.quant_label == "Q4_1"
    # SmolLM2 ties its embeddings: no output.weight, so llama.cpp duplicates token_embd.
    assert info.tied_embeddings
    assert info.output_bytes == info.token_embd_bytes + info.tensor("output_norm.weight").n_bytes  # type: ignore[union-attr]
    assert len(info.tensors) == 272
    assert sum(info.layer_bytes) + info.other_bytes + info.tensor("output_norm.weight").n_bytes == info.weights_bytes  # type: ignore[union-attr]
    assert info.n_embd_k_gqa(0) == 192
    assert info.to_json()["n_head_kv"] == 3


def test_tensor_layers_and_types(smollm2_path: Path) -> None:
    info = read_gguf_info(smollm2_path)
    layer0 = [t for t in info.tensors if t.layer == 0]
    assert {t.name for t in layer0} >= {"blk.0.attn_q.weight", "blk.0.ffn_down.weight", "blk.0.attn_norm.weight"}
    q = info.tensor("blk.0.attn_q.weight")
    assert q is not None and q.type_name == "Q4_1" and q.shape == (576, 576)
    assert q.n_bytes == 576 * 576 // 32 * 20
    assert info.tensor("token_embd.weight").layer is None  # type: ignore[union-attr]


@pytest.mark.parametrize("shape", ["tiny-llama", "tiny-qwen2", "tiny-gemma3", "tiny-qwen3moe"])
def test_random_models_read_back_as_specified(shape: str, tiny_gguf: Callable[[str], Path]) -> None:
    path = tiny_gguf(shape)
    info = read_gguf_info(path)
    expected = shape_info(shape, path=str(path))
    s = SHAPES[shape]
    assert info.architecture == s.arch
    assert info.n_layers == s.n_layers
    assert info.n_head_kv == (s.n_head_kv,) * s.n_layers
    assert info.head_dim_k == s.head_dim
    assert info.n_vocab == s.n_vocab
    assert [(t.name, t.type_name, t.n_bytes) for t in info.tensors] == [
        (t.name, t.type_name, t.n_bytes) for t in expected.tensors
    ]
    assert info.layer_bytes == expected.layer_bytes
    assert info.swa_layers == expected.swa_layers


def test_sliding_window_layout(tiny_gguf: Callable[[str], Path]) -> None:
    info = read_gguf_info(tiny_gguf("tiny-gemma3"))
    assert info.sliding_window == 256
    # llama.cpp's set_swa_pattern(3): every third layer is global.
    assert info.swa_layers == (True, True, False, True, True, False)
    assert swa_pattern(12, 6) == (True,) * 5 + (False,) + (True,) * 5 + (False,)
    assert swa_pattern(4, 2, dense_first=True) == (False, True, False, True)


def test_gemma3_12b_shape_has_global_layers_every_sixth() -> None:
    info = shape_info("gemma-3-12b")
    assert sum(info.swa_layers) == 40 and info.n_layers == 48
    assert info.head_dim_k == 256
    assert info.tied_embeddings and info.output_bytes > info.token_embd_bytes


def test_moe_expert_tensors(tiny_gguf: Callable[[str], Path]) -> None:
    info = read_gguf_info(tiny_gguf("tiny-qwen3moe"))
    assert info.n_expert == 8 and info.n_expert_used == 2
    experts = [t for t in info.tensors if t.is_expert]
    assert {t.name.split(".")[2] for t in experts} == {"ffn_gate_exps", "ffn_up_exps", "ffn_down_exps"}
    assert all(0 < e < b for e, b in zip(info.layer_expert_bytes, info.layer_bytes, strict=True))
    gate = info.tensor("blk.0.ffn_gate_exps.weight")
    assert gate is not None and gate.shape == (256, 256, 8)


# -- bad files ----------------------------------------------------------------------------------


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ModelError) as caught:
        read_gguf_info(tmp_path / "nope.gguf")
    assert "nope.gguf" in str(caught.value) and "not found" in str(caught.value)


def test_folder(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="folder"):
        read_gguf_info(tmp_path)


def test_not_gguf(tmp_path: Path) -> None:
    path = tmp_path / "model.gguf"
    path.write_bytes(b"<html>rate limited</html>" * 10)
    with pytest.raises(ModelError) as caught:
        read_gguf_info(path)
    assert "not a GGUF" in str(caught.value) and "model.gguf" in str(caught.value)


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.gguf"
    path.write_bytes(b"")
    with pytest.raises(ModelError, match="not a GGUF"):
        read_gguf_info(path)


@pytest.mark.parametrize("keep", [0.5, 0.999])
def test_truncated(tmp_path: Path, tiny_gguf: Callable[[str], Path], keep: float) -> None:
    data = tiny_gguf("tiny-llama").read_bytes()
    path = tmp_path / "truncated.gguf"
    path.write_bytes(data[: int(len(data) * keep)])
    with pytest.raises(ModelError) as caught:
        read_gguf_info(path)
    message = str(caught.value)
    assert "truncated.gguf" in message and "download" in message.lower()


def test_truncated_inside_header(tmp_path: Path, tiny_gguf: Callable[[str], Path]) -> None:
    path = tmp_path / "cut.gguf"
    path.write_bytes(tiny_gguf("tiny-llama").read_bytes()[:5000])
    with pytest.raises(ModelError, match=r"cut\.gguf"):
        read_gguf_info(path)


def _write_gguf(path: Path, arch: str, tensors: bool = True) -> None:
    writer = gguf.GGUFWriter(str(path), arch)
    writer.add_uint32(f"{arch}.block_count", 1)
    writer.add_uint32(f"{arch}.embedding_length", 32)
    writer.add_uint32(f"{arch}.attention.head_count", 2)
    if tensors:
        writer.add_tensor("blk.0.attn_norm.weight", np.ones(32, dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def test_unknown_architecture(tmp_path: Path) -> None:
    path = tmp_path / "strange.gguf"
    _write_gguf(path, "notanarch")
    with pytest.raises(ModelError) as caught:
        read_gguf_info(path)
    assert "notanarch" in str(caught.value) and "strange.gguf" in str(caught.value)
    # Inspection itself can still read it when asked to.
    assert read_gguf_info(path, require_known_arch=False).architecture == "notanarch"


def test_no_tensors(tmp_path: Path) -> None:
    path = tmp_path / "vocab-only.gguf"
    _write_gguf(path, "llama", tensors=False)
    with pytest.raises(ModelError, match="no weights"):
        read_gguf_info(path)


def test_missing_hyperparameter(tmp_path: Path) -> None:
    path = tmp_path / "partial.gguf"
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_uint32("llama.block_count", 1)
    writer.add_tensor("blk.0.attn_norm.weight", np.ones(32, dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    with pytest.raises(ModelError, match="embedding_length"):
        read_gguf_info(path)

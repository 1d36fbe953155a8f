"""Read what the planner needs from a GGUF file: hyperparameters and the tensor table.

Only the header is parsed (``gguf.GGUFReader`` maps the file; no weight is read), so this is
fast even for a 20 GB model. The per-architecture rules mirror llama.cpp as vendored in
llama-cpp-python 0.3.36 (``src/models/<arch>.cpp``, ``src/llama-hparams.cpp``):

* which layers use a sliding window (``set_swa_pattern``: with a period ``n``, layer ``il`` is
  a sliding-window layer when ``il % n < n - 1``; Gemma 2 uses period 2 and window 4096 by
  default, Gemma 3 period 6 and the window from ``<arch>.attention.sliding_window``);
* head dimensions (``<arch>.attention.key_length``/``value_length``, else ``n_embd / n_head``);
* KV heads, possibly per layer (an array).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from inference.errors import ModelError

GGUF_MAGIC = b"GGUF"

# Architectures llama.cpp (llama-cpp-python 0.3.36) knows: LLM_ARCH_NAMES in src/llama-arch.cpp.
KNOWN_ARCHITECTURES = frozenset(
    """clip llama llama4 deci falcon grok gpt2 gptj gptneox mpt baichuan starcoder refact bert
    modern-bert nomic-bert nomic-bert-moe neo-bert jina-bert-v2 jina-bert-v3 eurobert bloom stablelm
    qwen qwen2 qwen2moe qwen2vl qwen3 qwen3moe qwen3next qwen3vl qwen3vlmoe qwen35 qwen35moe qwen4exp
    phi2 phi3 phimoe plamo plamo2 plamo3 codeshell orion internlm2 minicpm minicpm3 gemma gemma2
    gemma3 gemma3n gemma4 gemma4-assistant gemma-embedding starcoder2 mamba mamba2 maple jamba
    falcon-h1 xverse command-r cohere2 cohere2moe dbrx olmo olmo2 olmoe muse-glimmer openelm arctic
    deepseek deepseek2 deepseek2-ocr deepseek32 deepseek4 chatglm glm4 glm4moe glm-dsa bitnet t5
    t5encoder jais jais2 nemotron nemotron_h nemotron_h_moe exaone exaone4 exaone-moe rwkv6
    rwkv6qwen2 rwkv7 arwkv7 granite granitemoe granitehybrid graniteswitch granite_swa chameleon
    wavtokenizer-dec plm bailingmoe bailingmoe2 bailingmoe3 dots1 dots3note arcee afmoe laguna
    ernie4_5 ernie4_5-moe hunyuan-moe hunyuan-dense hunyuan_vl hy_v3 hy_v4 smollm3 gpt-oss lfm2
    lfm2moe dream smallthinker llada llada-moe seed_oss grovemoe apertus minimax-01 hrm_text
    minimax-m2 minimax-m3 cogvlm rnd1 pangu-embedded mistral3 eagle3 dflash mistral4 paddleocr
    mimo2 step35 spark2_5 llama-embed maincoder kimi-linear kimi-k3 glm5-next talkie mellum
    nanbeige qwen3tts pockettts""".split()
)

# Sliding-window rules per architecture: (default window or None = key required, default period,
# dense_first). From src/models/{gemma2,gemma3,gemma3n,cohere2,exaone4}.cpp. Other architectures
# are treated as full attention on every layer, which can only over-estimate the KV cache.
SWA_RULES: dict[str, tuple[int | None, int, bool]] = {
    "gemma2": (4096, 2, False),
    "gemma3": (None, 6, False),
    "gemma3n": (None, 5, False),
    "cohere2": (None, 4, False),
    "exaone4": (4096, 4, False),
}

# Architectures whose tensors we know to be plain decoder-only attention + FFN models, where
# the planner's arithmetic was checked. Others are planned with the same formulas and a note.
CHECKED_ARCHITECTURES = frozenset({"llama", "qwen2", "qwen3", "qwen3moe", "qwen2moe", "gemma2", "gemma3", "mistral3"})

_LAYER_RE = re.compile(r"^blk\.(\d+)\.")
_EXPERT_RE = re.compile(r"_(?:ch|sh)?exps\.")


@dataclass(frozen=True, slots=True)
class TensorInfo:
    """One tensor of the table: its llama.cpp type and its size in the file."""

    name: str
    type_name: str
    shape: tuple[int, ...]
    n_bytes: int
    layer: int | None

    @property
    def is_expert(self) -> bool:
        """A MoE expert tensor (``blk.N.ffn_{gate,up,down}_exps``)."""
        return bool(_EXPERT_RE.search(self.name))


@dataclass(frozen=True)
class GgufInfo:
    """What the planner needs to know about a model, read from its GGUF header."""

    path: str
    file_size: int
    architecture: str
    name: str
    file_type: int | None
    n_layers: int
    n_embd: int
    n_ff: int
    n_head: tuple[int, ...]
    n_head_kv: tuple[int, ...]
    head_dim_k: int
    head_dim_v: int
    n_ctx_train: int
    n_vocab: int
    n_expert: int = 0
    n_expert_used: int = 0
    sliding_window: int = 0
    swa_layers: tuple[bool, ...] = ()
    tensors: tuple[TensorInfo, ...] = field(default=(), repr=False)

    # -- attention shape -------------------------------------------------------------------

    def n_embd_k_gqa(self, layer: int) -> int:
        return self.n_head_kv[layer] * self.head_dim_k

    def n_embd_v_gqa(self, layer: int) -> int:
        return self.n_head_kv[layer] * self.head_dim_v

    def is_swa(self, layer: int) -> bool:
        return bool(self.swa_layers) and self.swa_layers[layer]

    @property
    def has_swa(self) -> bool:
        return self.sliding_window > 0 and any(self.swa_layers)

    @property
    def is_moe(self) -> bool:
        return self.n_expert > 0

    # -- tensor table ----------------------------------------------------------------------

    @cached_property
    def layer_bytes(self) -> tuple[int, ...]:
        """Bytes of the tensors of each repeating layer ``blk.N.*``."""
        sizes = [0] * self.n_layers
        for t in self.tensors:
            if t.layer is not None and t.layer < self.n_layers:
                sizes[t.layer] += t.n_bytes
        return tuple(sizes)

    @cached_property
    def layer_expert_bytes(self) -> tuple[int, ...]:
        """Bytes of each layer's MoE expert tensors (part of ``layer_bytes``)."""
        sizes = [0] * self.n_layers
        for t in self.tensors:
            if t.layer is not None and t.layer < self.n_layers and t.is_expert:
                sizes[t.layer] += t.n_bytes
        return tuple(sizes)

    def tensor(self, name: str) -> TensorInfo | None:
        for t in self.tensors:
            if t.name == name:
                return t
        return None

    @property
    def token_embd_bytes(self) -> int:
        t = self.tensor("token_embd.weight")
        return t.n_bytes if t else 0

    @property
    def tied_embeddings(self) -> bool:
        """No ``output.weight``: llama.cpp loads a second copy of ``token_embd`` as the output."""
        return self.tensor("output.weight") is None

    @property
    def output_bytes(self) -> int:
        """Bytes llama.cpp puts on the output layer's device (the output norm and matrix).

        With tied embeddings the output matrix is a duplicate of ``token_embd.weight``
        (``TENSOR_DUPLICATED`` in llama-model-loader.cpp), which costs its full size again.
        """
        total = 0
        for t in self.tensors:
            if t.layer is None and t.name.startswith("output"):
                total += t.n_bytes
        if self.tied_embeddings:
            total += self.token_embd_bytes
        return total

    @property
    def other_bytes(self) -> int:
        """Tensors outside the layers and the output (token embeddings, rope factors...): CPU."""
        return sum(t.n_bytes for t in self.tensors if t.layer is None and not t.name.startswith("output"))

    @property
    def weights_bytes(self) -> int:
        return sum(t.n_bytes for t in self.tensors)

    @property
    def type_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for t in self.tensors:
            counts[t.type_name] = counts.get(t.type_name, 0) + 1
        return counts

    @property
    def quant_label(self) -> str:
        """The file type as llama.cpp names it (``Q4_K_M``), or the most common weight type."""
        if self.file_type is not None and self.file_type in _FILE_TYPE_NAMES:
            return _FILE_TYPE_NAMES[self.file_type]
        big: dict[str, int] = {}
        for t in self.tensors:
            if len(t.shape) >= 2:
                big[t.type_name] = big.get(t.type_name, 0) + t.n_bytes
        return max(big, key=lambda k: big[k]) if big else "?"

    @property
    def display_name(self) -> str:
        return self.name or Path(self.path).stem

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "file_size": self.file_size,
            "architecture": self.architecture,
            "name": self.name,
            "quant": self.quant_label,
            "n_layers": self.n_layers,
            "n_embd": self.n_embd,
            "n_ff": self.n_ff,
            "n_head": _compact(self.n_head),
            "n_head_kv": _compact(self.n_head_kv),
            "head_dim_k": self.head_dim_k,
            "head_dim_v": self.head_dim_v,
            "n_ctx_train": self.n_ctx_train,
            "n_vocab": self.n_vocab,
            "n_expert": self.n_expert,
            "n_expert_used": self.n_expert_used,
            "sliding_window": self.sliding_window,
            "n_swa_layers": sum(self.swa_layers),
            "weights_bytes": self.weights_bytes,
            "output_bytes": self.output_bytes,
            "token_embd_bytes": self.token_embd_bytes,
            "tied_embeddings": self.tied_embeddings,
        }


def _compact(values: tuple[int, ...]) -> int | list[int]:
    """One number when every layer has the same value, else the per-layer list."""
    return values[0] if values and all(v == values[0] for v in values) else list(values)


# llama_ftype (include/llama.h) -> the name llama.cpp prints.
_FILE_TYPE_NAMES: dict[int, str] = {
    0: "F32",
    1: "F16",
    2: "Q4_0",
    3: "Q4_1",
    7: "Q8_0",
    8: "Q5_0",
    9: "Q5_1",
    10: "Q2_K",
    11: "Q3_K_S",
    12: "Q3_K_M",
    13: "Q3_K_L",
    14: "Q4_K_S",
    15: "Q4_K_M",
    16: "Q5_K_S",
    17: "Q5_K_M",
    18: "Q6_K",
    19: "IQ2_XXS",
    20: "IQ2_XS",
    21: "Q2_K_S",
    22: "IQ3_XS",
    23: "IQ3_XXS",
    24: "IQ1_S",
    25: "IQ4_NL",
    26: "IQ3_S",
    27: "IQ3_M",
    28: "IQ2_S",
    29: "IQ2_M",
    30: "IQ4_XS",
    31: "IQ1_M",
    32: "BF16",
    36: "TQ1_0",
    37: "TQ2_0",
    38: "MXFP4_MOE",
}


def _per_layer(value: Any, n_layers: int, what: str, path: str) -> tuple[int, ...]:
    if isinstance(value, Sequence) and not isinstance(value, str):
        values = tuple(int(v) for v in value)
        if len(values) != n_layers:
            raise ModelError(
                f"{path}: {what} has {len(values)} entries for {n_layers} layers; the file is damaged. "
                "Download the model again.",
                path=path,
            )
        return values
    return (int(value),) * n_layers


def read_gguf_info(path: str | os.PathLike[str], *, require_known_arch: bool = True) -> GgufInfo:
    """Read a GGUF header. Raises ``ModelError`` with a next step for any unusable file."""
    p = Path(path)
    where = str(p)
    if not p.exists():
        raise ModelError(f"Model file not found: {where}. Check the path, or download the model again.", path=p)
    if p.is_dir():
        raise ModelError(f"{where} is a folder, not a model file. Pass the path of a .gguf file.", path=p)
    file_size = p.stat().st_size
    try:
        with p.open("rb") as fh:
            magic = fh.read(4)
    except OSError as exc:
        raise ModelError(f"Cannot read {where}: {exc.strerror}. Check the file's permissions.", path=p) from exc
    if magic != GGUF_MAGIC:
        raise ModelError(
            f"{where} is not a GGUF model file. Pagewise runs llama.cpp models in GGUF format: "
            "choose a .gguf model file.",
            path=p,
        )

    from inference.planning.gguf_header import LongArray, read_gguf_header  # imports gguf's constants (numpy)

    try:
        header = read_gguf_header(p)  # not gguf.GGUFReader: it decodes the whole vocabulary (seconds)
    except (ValueError, IndexError, OSError, KeyError, OverflowError) as exc:
        raise ModelError(
            f"{where} is damaged or truncated ({type(exc).__name__}: {exc}). Download the model again.",
            path=p,
        ) from exc

    fields = header.fields

    def get(key: str, default: Any = None) -> Any:
        value = fields.get(key)
        return default if value is None or isinstance(value, LongArray) else value

    arch = get("general.architecture")
    if not isinstance(arch, str) or not arch:
        raise ModelError(f"{where} has no general.architecture key: it is not a model GGUF. Pick another file.", path=p)
    if require_known_arch and arch not in KNOWN_ARCHITECTURES:
        raise ModelError(
            f"{where}: the architecture '{arch}' is not supported by the llama.cpp built into this Pagewise "
            "(llama-cpp-python 0.3.36). Choose a model of a supported family (Qwen, Llama, Gemma, Mistral…) "
            "or update Pagewise.",
            path=p,
        )

    def need(key: str) -> Any:
        value = get(f"{arch}.{key}")
        if value is None:
            raise ModelError(
                f"{where}: the key {arch}.{key} is missing; the file is incomplete or not a language model. "
                "Download the model again.",
                path=p,
            )
        return value

    n_layers = int(need("block_count"))
    n_embd = int(need("embedding_length"))
    n_ff_raw = get(f"{arch}.feed_forward_length", 0)
    n_ff = max(int(v) for v in n_ff_raw) if isinstance(n_ff_raw, list) and n_ff_raw else int(n_ff_raw or 0)
    n_head = _per_layer(need("attention.head_count"), n_layers, "head_count", where)
    n_head_kv = _per_layer(get(f"{arch}.attention.head_count_kv", list(n_head)), n_layers, "head_count_kv", where)
    max_head = max(n_head) if n_head else 0
    default_head_dim = n_embd // max_head if max_head else 0
    head_dim_k = int(get(f"{arch}.attention.key_length", default_head_dim))
    head_dim_v = int(get(f"{arch}.attention.value_length", default_head_dim))
    n_ctx_train = int(get(f"{arch}.context_length", 0) or 0)
    n_expert = int(get(f"{arch}.expert_count", 0) or 0)
    n_expert_used = int(get(f"{arch}.expert_used_count", 0) or 0)

    tokens = fields.get("tokenizer.ggml.tokens")
    n_vocab = int(get(f"{arch}.vocab_size", 0) or 0)
    if not n_vocab and tokens is not None:
        n_vocab = len(tokens)

    sliding_window = 0
    swa_layers: tuple[bool, ...] = (False,) * n_layers
    rule = SWA_RULES.get(arch)
    if rule is not None:
        default_window, period, dense_first = rule
        window = get(f"{arch}.attention.sliding_window", default_window)
        if window:
            sliding_window = int(window)
            pattern = get(f"{arch}.attention.sliding_window_pattern", period)
            if isinstance(pattern, list):
                swa_layers = tuple(bool(v) for v in pattern)[:n_layers]
                swa_layers += (False,) * (n_layers - len(swa_layers))
            else:
                swa_layers = swa_pattern(n_layers, int(pattern), dense_first)

    tensors: list[TensorInfo] = []
    data_end = 0
    for t in header.tensors:
        m = _LAYER_RE.match(t.name)
        layer = int(m.group(1)) if m else None
        tensors.append(TensorInfo(name=t.name, type_name=t.type_name, shape=t.shape, n_bytes=t.n_bytes, layer=layer))
        data_end = max(data_end, t.data_offset + t.n_bytes)
    if data_end > file_size:
        raise ModelError(
            f"{where} is truncated: its tensors need {data_end:,} bytes but the file has {file_size:,}. "
            "The download was probably interrupted: download the model again.",
            path=p,
        )
    if not tensors:
        raise ModelError(f"{where} holds no weights (a tokenizer-only or metadata GGUF). Pick a model file.", path=p)

    name = get("general.name") or ""
    file_type = get("general.file_type")
    return GgufInfo(
        path=where,
        file_size=file_size,
        architecture=arch,
        name=str(name),
        file_type=int(file_type) if file_type is not None else None,
        n_layers=n_layers,
        n_embd=n_embd,
        n_ff=n_ff,
        n_head=n_head,
        n_head_kv=n_head_kv,
        head_dim_k=head_dim_k,
        head_dim_v=head_dim_v,
        n_ctx_train=n_ctx_train,
        n_vocab=n_vocab,
        n_expert=n_expert,
        n_expert_used=n_expert_used,
        sliding_window=sliding_window,
        swa_layers=swa_layers,
        tensors=tuple(tensors),
    )


def swa_pattern(n_layers: int, period: int, dense_first: bool = False) -> tuple[bool, ...]:
    """llama_hparams::set_swa_pattern: which layers use the sliding window."""
    if dense_first:
        return tuple(period == 0 or (il % period != 0) for il in range(n_layers))
    return tuple(period == 0 or (il % period < period - 1) for il in range(n_layers))

"""KV cache and layer placement arithmetic, exactly as llama.cpp (llama-cpp-python 0.3.36) does it.

Sources (vendor/llama.cpp/src):

* ``llama-context.cpp``: ``n_ctx = GGML_PAD(n_ctx, 256)``; without a unified cache each of the
  ``n_seq_max`` streams gets ``n_ctx_seq = GGML_PAD(n_ctx / n_seq_max, 256)`` cells.
* ``llama-kv-cache.cpp``: per layer one K tensor ``type_k × n_embd_k_gqa × kv_size × n_stream``
  and one V tensor (``n_embd_v_gqa``; the maximum over layers when V is transposed, i.e. without
  flash attention). A layer's cache lives on that layer's device (``offload_kqv``).
* ``llama-kv-cache-iswa.cpp``: sliding-window layers get
  ``GGML_PAD(min(kv_size, n_swa * (unified ? n_seq_max : 1) + n_ubatch), 256)`` cells unless
  ``swa_full`` (https://github.com/ggml-org/llama.cpp/issues/17037 for the padding).
* ``llama-model.cpp`` ``load_tensors``: with ``n_gpu_layers = g`` the layers
  ``il >= n_layer + 1 - g`` go to the GPU, where ``il == n_layer`` is the output layer; so
  ``g = 1`` offloads only the output layer and ``g = n_layer + 1`` offloads everything. The
  input layer (``token_embd``) always stays on the CPU.
"""

from __future__ import annotations

from dataclasses import dataclass

from inference.planning.gguf_info import GgufInfo

# bytes per block / elements per block of the KV cache types llama.cpp accepts here.
_KV_TYPE_BLOCK: dict[str, tuple[int, int]] = {"f16": (2, 1), "q8_0": (34, 32), "q4_0": (18, 32), "f32": (4, 1)}


def pad(x: int, n: int) -> int:
    """GGML_PAD: round ``x`` up to a multiple of ``n``."""
    return (x + n - 1) // n * n


def row_bytes(kv_type: str, n: int) -> int:
    """ggml_row_size for a KV cache type."""
    size, block = _KV_TYPE_BLOCK[kv_type]
    return n // block * size


def effective_n_ctx(n_ctx: int, n_seq_max: int = 1, kv_unified: bool = False) -> tuple[int, int, int]:
    """(n_ctx as llama.cpp rounds it, cells per stream, number of streams)."""
    n_ctx = pad(max(n_ctx, 1), 256)
    if kv_unified or n_seq_max <= 1:
        return n_ctx, n_ctx, 1
    n_ctx_seq = pad(n_ctx // n_seq_max, 256)
    return n_ctx_seq * n_seq_max, n_ctx_seq, n_seq_max


def layer_cells(
    info: GgufInfo,
    layer: int,
    n_ctx: int,
    *,
    n_seq_max: int = 1,
    n_ubatch: int = 512,
    swa_full: bool = False,
    kv_unified: bool = False,
) -> int:
    """Cells (all streams together) of ``layer``'s KV cache."""
    _, kv_size, n_stream = effective_n_ctx(n_ctx, n_seq_max, kv_unified)
    if info.is_swa(layer) and info.sliding_window > 0 and not swa_full:
        window = info.sliding_window * (n_seq_max if kv_unified else 1)
        kv_size = pad(min(kv_size, window + n_ubatch), 256)
    return kv_size * n_stream


def layer_kv_bytes(
    info: GgufInfo,
    layer: int,
    n_ctx: int,
    type_k: str,
    type_v: str,
    *,
    flash_attn: bool,
    n_seq_max: int = 1,
    n_ubatch: int = 512,
    swa_full: bool = False,
    kv_unified: bool = False,
) -> int:
    cells = layer_cells(
        info, layer, n_ctx, n_seq_max=n_seq_max, n_ubatch=n_ubatch, swa_full=swa_full, kv_unified=kv_unified
    )
    n_k = info.n_embd_k_gqa(layer)
    n_v = info.n_embd_v_gqa(layer) if flash_attn else max(info.n_embd_v_gqa(il) for il in range(info.n_layers))
    return cells * (row_bytes(type_k, n_k) + row_bytes(type_v, n_v))


def gpu_layer_ids(n_layers: int, n_gpu_layers: int) -> tuple[list[int], bool]:
    """(repeating layers on the GPU, whether the output layer is on the GPU)."""
    g = n_layers + 1 if n_gpu_layers < 0 else min(n_gpu_layers, n_layers + 1)
    start = n_layers + 1 - g
    return [il for il in range(n_layers) if il >= start], g >= 1


@dataclass(frozen=True, slots=True)
class KvSplit:
    gpu: int
    cpu: int

    @property
    def total(self) -> int:
        return self.gpu + self.cpu


def kv_cache_bytes(
    info: GgufInfo,
    n_ctx: int,
    type_k: str,
    type_v: str,
    *,
    flash_attn: bool,
    n_gpu_layers: int,
    n_seq_max: int = 1,
    n_ubatch: int = 512,
    swa_full: bool = False,
    kv_unified: bool = False,
) -> KvSplit:
    """The KV cache on the GPU and on the CPU for this configuration (``offload_kqv=True``)."""
    on_gpu = set(gpu_layer_ids(info.n_layers, n_gpu_layers)[0])
    gpu = cpu = 0
    for il in range(info.n_layers):
        b = layer_kv_bytes(
            info,
            il,
            n_ctx,
            type_k,
            type_v,
            flash_attn=flash_attn,
            n_seq_max=n_seq_max,
            n_ubatch=n_ubatch,
            swa_full=swa_full,
            kv_unified=kv_unified,
        )
        if il in on_gpu:
            gpu += b
        else:
            cpu += b
    return KvSplit(gpu=gpu, cpu=cpu)


def weights_split(info: GgufInfo, n_gpu_layers: int, n_cpu_moe: int = 0) -> KvSplit:
    """Weight bytes on the GPU and on the CPU (``n_cpu_moe``: experts of layers < n on the CPU)."""
    layers, output_on_gpu = gpu_layer_ids(info.n_layers, n_gpu_layers)
    gpu = 0
    for il in layers:
        gpu += info.layer_bytes[il]
        if il < n_cpu_moe:
            gpu -= info.layer_expert_bytes[il]
    if output_on_gpu:
        gpu += info.output_bytes
    total = info.weights_bytes + (info.token_embd_bytes if info.tied_embeddings and output_on_gpu else 0)
    return KvSplit(gpu=gpu, cpu=total - gpu)

"""Recommended GGUF instruct models, by GPU memory tier (8, 12, 16 and 24 GB), and a small one
for a computer without a usable graphics card (``CPU_TIER_GB``).

The Hugging Face hub cannot be reached from where this list was written, so nothing here
was checked against it:

* ``revision`` and ``sha256`` are ``None`` ("to be verified"). At download time
  ``inference.models.download`` asks the hub for the file's sha256 at the resolved revision (the
  commit it resolves to is recorded with the file) and verifies the download against it.
  When a release pins them, fill them in: a pinned sha256 that the hub contradicts stops
  the download.
* ``approx_size_gb`` is an estimate (parameters x bits per weight of the quant type), not
  the file's size; the exact size comes from the hub at download time.
* Repository and file names follow the quantizer's naming scheme (bartowski's GGUF repos)
  and must be confirmed on the hub before a release (``verified=False``).

Tiers: the model's weights at Q4_K_M leave room for a useful context with a q8_0 KV cache
on a GPU of that size (``pagewise plan`` gives the exact fit). "12 GB" is the tier the
benchmarks are tuned for. Without a GPU, or with one below 8 GB, a 7B model answers at a few
tokens per second on a laptop's cores: ``recommended`` offers the 1.5B model of the CPU tier there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

TIERS_GB = (8, 12, 16, 24)
CPU_TIER_GB = 0
"""The tier of the small model for a computer without a usable GPU (or one below 8 GB)."""

_Q4_K_M_BITS = 4.85  # average bits per weight of llama.cpp's Q4_K_M mix
_Q6_K_BITS = 6.56


@dataclass(frozen=True, slots=True)
class CatalogEntry:
    """One recommended model file."""

    key: str
    """Short stable name, e.g. ``qwen2.5-14b-instruct-q4_k_m``."""
    title: str
    tier_gb: int
    """GPU memory it is chosen for; ``CPU_TIER_GB`` (0): for the CPU."""
    repo: str
    filename: str
    license: str
    context_tokens: int
    """Trained context length (the planner may give less to fit the budget)."""
    params_billion: float
    quant: str
    approx_size_gb: float
    """Estimate: parameters x bits per weight. Not the file size."""
    revision: str | None = None
    """Pinned commit; None = resolve "main" at download and record the commit."""
    sha256: str | None = None
    """Pinned hash; None = use the hub's sha256 for the file at that revision."""
    verified: bool = False
    """True once repo, file, revision and sha256 were checked on the hub."""
    notes: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "title": self.title,
            "tier_gb": self.tier_gb,
            "repo": self.repo,
            "filename": self.filename,
            "license": self.license,
            "context_tokens": self.context_tokens,
            "params_billion": self.params_billion,
            "quant": self.quant,
            "approx_size_gb": self.approx_size_gb,
            "revision": self.revision,
            "sha256": self.sha256,
            "verified": self.verified,
            "notes": self.notes,
        }


def _estimate_gb(params_billion: float, bits: float) -> float:
    return round(params_billion * bits / 8, 1)


def _entry(
    key: str,
    title: str,
    tier: int,
    repo: str,
    filename: str,
    license_name: str,
    context: int,
    params: float,
    quant: str = "Q4_K_M",
    notes: str = "",
) -> CatalogEntry:
    bits = _Q6_K_BITS if quant == "Q6_K" else _Q4_K_M_BITS
    return CatalogEntry(
        key=key,
        title=title,
        tier_gb=tier,
        repo=repo,
        filename=filename,
        license=license_name,
        context_tokens=context,
        params_billion=params,
        quant=quant,
        approx_size_gb=_estimate_gb(params, bits),
        notes=notes,
    )


CATALOG: tuple[CatalogEntry, ...] = (
    _entry(
        "qwen2.5-1.5b-instruct-q4_k_m",
        "Qwen2.5 1.5B Instruct",
        CPU_TIER_GB,
        "bartowski/Qwen2.5-1.5B-Instruct-GGUF",
        "Qwen2.5-1.5B-Instruct-Q4_K_M.gguf",
        "Apache-2.0",
        32768,
        1.54,
        notes="For a computer without a graphics card: about a fifth of a 7B's work per token, so answers "
        "come at a usable speed on two to four CPU cores; less thorough than the larger models.",
    ),
    _entry(
        "qwen2.5-7b-instruct-q4_k_m",
        "Qwen2.5 7B Instruct",
        8,
        "bartowski/Qwen2.5-7B-Instruct-GGUF",
        "Qwen2.5-7B-Instruct-Q4_K_M.gguf",
        "Apache-2.0",
        32768,
        7.6,
        notes="Good default for 8 GB; long documents need a q8_0 KV cache.",
    ),
    _entry(
        "llama-3.1-8b-instruct-q4_k_m",
        "Llama 3.1 8B Instruct",
        8,
        "bartowski/Meta-Llama-3.1-8B-Instruct-GGUF",
        "Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf",
        "Llama 3.1 Community License",
        131072,
        8.0,
    ),
    _entry(
        "qwen2.5-14b-instruct-q4_k_m",
        "Qwen2.5 14B Instruct",
        12,
        "bartowski/Qwen2.5-14B-Instruct-GGUF",
        "Qwen2.5-14B-Instruct-Q4_K_M.gguf",
        "Apache-2.0",
        32768,
        14.8,
        notes="The 12 GB reference: all layers on the GPU at 32K context with a q8_0/q4_0 KV cache.",
    ),
    _entry(
        "gemma-3-12b-it-q4_k_m",
        "Gemma 3 12B Instruct",
        12,
        "bartowski/google_gemma-3-12b-it-GGUF",
        "google_gemma-3-12b-it-Q4_K_M.gguf",
        "Gemma Terms of Use",
        131072,
        12.2,
        notes="Sliding-window attention: long contexts are cheap in KV memory.",
    ),
    _entry(
        "phi-4-q4_k_m",
        "Phi-4 14B",
        16,
        "bartowski/phi-4-GGUF",
        "phi-4-Q4_K_M.gguf",
        "MIT",
        16384,
        14.7,
    ),
    _entry(
        "qwen2.5-14b-instruct-q6_k",
        "Qwen2.5 14B Instruct (Q6_K)",
        16,
        "bartowski/Qwen2.5-14B-Instruct-GGUF",
        "Qwen2.5-14B-Instruct-Q6_K.gguf",
        "Apache-2.0",
        32768,
        14.8,
        quant="Q6_K",
        notes="Higher-precision weights when 16 GB allows.",
    ),
    _entry(
        "qwen2.5-32b-instruct-q4_k_m",
        "Qwen2.5 32B Instruct",
        24,
        "bartowski/Qwen2.5-32B-Instruct-GGUF",
        "Qwen2.5-32B-Instruct-Q4_K_M.gguf",
        "Apache-2.0",
        32768,
        32.8,
    ),
    _entry(
        "qwen3-30b-a3b-q4_k_m",
        "Qwen3 30B-A3B (MoE)",
        24,
        "bartowski/Qwen_Qwen3-30B-A3B-GGUF",
        "Qwen_Qwen3-30B-A3B-Q4_K_M.gguf",
        "Apache-2.0",
        32768,
        30.5,
        notes="Mixture of experts, 3B active: fast decode; also usable below 24 GB with experts on the CPU.",
    ),
)


def for_tier(tier_gb: int) -> list[CatalogEntry]:
    """Entries recommended for a GPU of ``tier_gb`` GB (exactly that tier; ``CPU_TIER_GB``: the CPU)."""
    return [entry for entry in CATALOG if entry.tier_gb == tier_gb]


def recommended(vram_bytes: int | None) -> CatalogEntry:
    """The model to offer first: the first of the largest tier that the GPU's ``vram_bytes``
    reach; the CPU tier's small model with no usable GPU (None) or one below the 8 GB tier."""
    tier = best_tier(vram_bytes) if vram_bytes else None
    return for_tier(CPU_TIER_GB if tier is None else tier)[0]


def best_tier(vram_bytes: int) -> int | None:
    """The largest tier that a GPU with ``vram_bytes`` of memory reaches (None below 8 GB).

    Cards are sold in decimal-ish GB and report a little less (a "12 GB" card reports
    ~11.6-12 GiB): a 5% tolerance keeps them in their tier.
    """
    gb = vram_bytes / 1024**3 / 0.95
    reached = [tier for tier in TIERS_GB if gb >= tier * 0.9313]  # GB -> GiB
    return max(reached) if reached else None


def find(key_or_filename: str) -> CatalogEntry | None:
    for entry in CATALOG:
        if key_or_filename in (entry.key, entry.filename):
            return entry
    return None

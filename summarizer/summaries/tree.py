"""What a document's compression (``summarizer.summaries.compress``) is shaped by and produces: the
summary parameters (part of the stored summaries' key), the tree of summaries with the pages
each covers, and the run's statistics and progress.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from inference.progress import Progress
from summarizer.summaries.store import SummaryKind
from summarizer.summaries.summary_prompts import LabelledSummary

DEFAULT_SEGMENT_TOKENS = 8192
PROMPT_MARGIN = 256  # instructions, chat template and page labels around a segment


@dataclass(frozen=True, slots=True)
class SummaryParams:
    """What shapes the summaries (part of their cache key)."""

    segment_tokens: int = DEFAULT_SEGMENT_TOKENS
    summary_tokens: int = 256
    super_tokens: int = 512
    temperature: float = 0.0

    @classmethod
    def for_context(cls, n_ctx: int, *, summary_tokens: int = 256, super_tokens: int = 512) -> SummaryParams:
        """Defaults that follow the plan: 8K segments when the context has room for them
        (about 10K tokens), smaller ones otherwise."""
        room = n_ctx - summary_tokens - PROMPT_MARGIN
        segment = min(DEFAULT_SEGMENT_TOKENS, room // 256 * 256)
        return cls(segment_tokens=max(256, segment), summary_tokens=summary_tokens, super_tokens=super_tokens)

    def key_params(self, kind: SummaryKind) -> tuple[tuple[str, Any], ...]:
        if kind == "segment":
            return (("summary_tokens", self.summary_tokens), ("temperature", self.temperature))
        if kind == "reduce":
            return (("super_tokens", self.super_tokens), ("temperature", self.temperature))
        return (
            ("segment_tokens", self.segment_tokens),
            ("summary_tokens", self.summary_tokens),
            ("super_tokens", self.super_tokens),
            ("temperature", self.temperature),
        )


@dataclass(frozen=True, slots=True)
class SummaryNode:
    """One summary in the tree: level 0 = a segment's, the last level = the super-summary."""

    level: int
    page_start: int
    page_end: int
    text: str
    tokens: int
    cached: bool

    @property
    def labelled(self) -> LabelledSummary:
        return LabelledSummary(self.text, self.page_start, self.page_end)

    def to_json(self) -> dict[str, Any]:
        return {"page_start": self.page_start, "page_end": self.page_end, "text": self.text}


@dataclass(slots=True)
class CompressStats:
    model_calls: int = 0
    cached: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "model_calls": self.model_calls,
            "cached": self.cached,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "seconds": round(self.seconds, 3),
        }


@dataclass(slots=True)
class DocumentSummary:
    doc_id: str
    title: str
    params: SummaryParams
    segments: list[SummaryNode]
    levels: list[list[SummaryNode]]
    """Intermediate reductions, lowest level first (empty when one group sufficed)."""
    super_summary: SummaryNode
    stats: CompressStats = field(default_factory=CompressStats)

    def to_json(self) -> dict[str, Any]:
        return {
            "doc_id": self.doc_id,
            "segments": [node.to_json() for node in self.segments],
            "levels": [[node.to_json() for node in level] for level in self.levels],
            "super_summary": self.super_summary.to_json(),
            "stats": self.stats.to_json(),
        }


@dataclass(frozen=True, slots=True)
class CompressProgress(Progress):
    """``Progress`` with the summarizer's live figures: document tokens read per second
    and the estimated seconds left (``rate`` is segments per second)."""

    tokens_per_s: float | None = None
    eta_s: float | None = None

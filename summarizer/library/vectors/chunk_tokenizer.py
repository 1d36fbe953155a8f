"""The one tokenizer passages are measured with: the embedding model's own word pieces.

Passages are sized so the embedding model never truncates them, whatever LLM is loaded.
Uses the fast ``tokenizers`` library directly (no torch import).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from summarizer.library.vectors.embedding_model import resolve_model_dir


class ChunkTokenizer:
    def __init__(self, model_dir: Path, name: str) -> None:
        from tokenizers import Tokenizer

        self.name = name
        self._tokenizer: Any = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self._tokenizer.no_truncation()
        self._tokenizer.no_padding()

    def count(self, text: str) -> int:
        return len(self._tokenizer.encode(text, add_special_tokens=False).ids)

    def count_many(self, texts: list[str]) -> list[int]:
        if not texts:
            return []
        return [len(e.ids) for e in self._tokenizer.encode_batch(texts, add_special_tokens=False)]

    def offsets(self, text: str) -> list[tuple[int, int]]:
        """Character offsets of each token in ``text``."""
        return [tuple(o) for o in self._tokenizer.encode(text, add_special_tokens=False).offsets]


@lru_cache(maxsize=4)
def chunk_tokenizer(model_name: str | None = None) -> ChunkTokenizer:
    from summarizer.library.vectors.embedding_model import canonical_name, configured_model_name

    name = canonical_name(model_name or configured_model_name())
    return ChunkTokenizer(resolve_model_dir(name), name)

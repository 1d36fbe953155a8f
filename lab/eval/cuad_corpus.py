"""The CUAD training corpus as the lab reads it: its texts, the lawyers' annotations, which
contracts are held out for validation, and the pseudo-pages a text is cut into.

The corpus is ``../shared/data/cuad-train`` (449 contracts as text, CC BY 4.0): either its
``cuad-train.tar.gz`` or the unpacked ``texts/`` and ``annotations.jsonl``. The ranker's training
data (lab/training/ranker_data.py) and the validation score (lab/eval/score_validation.py) both
read it through this module, so they agree on the split.

Split by contract: a contract is in validation when the first byte of the SHA-256 of its file name
is below ``VALIDATION_BELOW`` (~10%).
"""

from __future__ import annotations

import hashlib
import json
import tarfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "data" / "cuad-train"
PAGE_CHARS = 3000
VALIDATION_BELOW = 26  # of 256: ~10% of the contracts


def is_validation(file_name: str) -> bool:
    return hashlib.sha256(file_name.encode()).digest()[0] < VALIDATION_BELOW


def pseudo_pages(text: str) -> list[tuple[int, str, int]]:
    """(page number, text, offset of its first character) for pieces of ~PAGE_CHARS cut at a blank
    line (else a line end) after PAGE_CHARS."""
    pages: list[tuple[int, str, int]] = []
    start = 0
    while start < len(text):
        end = min(len(text), start + PAGE_CHARS)
        if end < len(text):
            blank = text.find("\n\n", end)
            line = text.find("\n", end)
            cut = blank if 0 <= blank < end + 1500 else line if 0 <= line < end + 600 else end
            end = cut + 1 if cut >= end else end
        pages.append((len(pages) + 1, text[start:end], start))
        start = end
    return pages


def cuad_texts(corpus: Path) -> Iterator[tuple[str, str]]:
    archive = corpus / "cuad-train.tar.gz"
    if archive.exists():
        with tarfile.open(archive) as tar:
            for member in tar:
                if member.isfile() and member.name.endswith(".txt") and "/texts/" in member.name:
                    data = tar.extractfile(member)
                    assert data is not None
                    yield Path(member.name).name, data.read().decode("utf-8")
    else:
        for path in sorted((corpus / "texts").glob("*.txt")):
            yield path.name, path.read_text(encoding="utf-8")


def cuad_annotations(corpus: Path) -> list[dict[str, Any]]:
    archive = corpus / "cuad-train.tar.gz"
    if archive.exists():
        with tarfile.open(archive) as tar:
            member = next(m for m in tar if m.name.endswith("annotations.jsonl"))
            data = tar.extractfile(member)
            assert data is not None
            return [json.loads(line) for line in data.read().decode().splitlines() if line.strip()]
    return [json.loads(line) for line in (corpus / "annotations.jsonl").read_text().splitlines() if line.strip()]

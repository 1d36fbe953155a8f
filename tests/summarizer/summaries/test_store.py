from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from inference.errors import ModelError
from summarizer.library.storage.store import Library
from summarizer.llm.model_identity import model_sha256
from summarizer.summaries.store import (
    StoredSummary,
    SummaryKey,
    count_summaries,
    forget_summaries,
    get_summary,
    put_summary,
)
from tests.summarizer.doc_factory import add_document


@pytest.fixture
def library() -> Iterator[Library]:
    with Library.open() as lib:
        yield lib


def key(doc_id: str, **changes: object) -> SummaryKey:
    fields: dict[str, object] = {
        "kind": "segment",
        "level": 0,
        "doc_id": doc_id,
        "input_sha256": "abc",
        "model_sha256": "model",
        "prompt_version": 1,
        "params": (("summary_tokens", 256),),
    }
    fields.update(changes)
    return SummaryKey(**fields)  # type: ignore[arg-type]


def test_every_key_part_separates_summaries(library: Library) -> None:
    doc_id = add_document(library, ["Some text here."])
    put_summary(library, key(doc_id), StoredSummary("base", 1, 1, 10, 3, {"x": [1]}))
    stored = get_summary(library, key(doc_id))
    assert stored == StoredSummary("base", 1, 1, 10, 3, {"x": [1]})
    for change in (
        {"input_sha256": "abd"},
        {"model_sha256": "other"},
        {"prompt_version": 2},
        {"params": (("summary_tokens", 128),)},
        {"level": 1},
        {"kind": "reduce"},
    ):
        assert get_summary(library, key(doc_id, **change)) is None, change


def test_summaries_go_with_their_document(library: Library) -> None:
    doc_id = add_document(library, ["Some text here."])
    put_summary(library, key(doc_id), StoredSummary("a", 1, 1, 1, 1))
    put_summary(library, key(doc_id, model_sha256="m2"), StoredSummary("b", 1, 1, 1, 1))
    assert forget_summaries(library, doc_id, "m2") == 1 and count_summaries(library, doc_id) == 1
    library.remove(doc_id)
    assert library.db.execute("SELECT COUNT(*) FROM summaries").fetchone()[0] == 0


def test_model_hash_is_cached_until_the_file_changes(library: Library, tmp_path: Path) -> None:
    model = tmp_path / "model.gguf"
    model.write_bytes(b"GGUF" + b"\0" * 1000)
    first = model_sha256(library, model)
    assert first == hashlib.sha256(b"GGUF" + b"\0" * 1000).hexdigest()
    # Cached: the stored digest is used while path, size and mtime are unchanged.
    library.db.execute("UPDATE model_files SET sha256 = 'cached-value'")
    assert model_sha256(library, model) == "cached-value"
    model.write_bytes(b"GGUF" + b"\1" * 1000)
    os.utime(model, ns=(1, 1))
    changed = model_sha256(library, model)
    assert changed not in ("cached-value", first) and len(changed) == 64


def test_missing_model_file_says_what_to_do(library: Library, tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="--model"):
        model_sha256(library, tmp_path / "nope.gguf")

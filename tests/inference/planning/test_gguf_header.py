"""The GGUF header reader gives what gguf.GGUFReader gives, long arrays as their length."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from inference.planning.gguf_header import LongArray, read_gguf_header


def _same_as_gguf_reader(path: Path) -> int:
    """Check every field and tensor against gguf.GGUFReader; the number of long arrays."""
    from gguf import GGUFReader

    header = read_gguf_header(path)
    reader = GGUFReader(path, "r")
    fields = {key: field for key, field in reader.fields.items() if not key.startswith("GGUF.")}
    assert set(header.fields) == set(fields)
    long_arrays = 0
    for key, field in fields.items():
        value = header.fields[key]
        if isinstance(value, LongArray):
            long_arrays += 1
            assert len(value) == len(field.data), key
        else:
            assert value == pytest.approx(field.contents()), key
    assert [(t.name, t.shape, t.type_name, t.n_bytes, t.data_offset) for t in header.tensors] == [
        (t.name, tuple(int(d) for d in t.shape), t.tensor_type.name, int(t.n_bytes), int(t.data_offset))
        for t in reader.tensors
    ]
    return long_arrays


def test_smollm2_reads_as_gguf_reader_reads_it(smollm2_path: Path) -> None:
    assert _same_as_gguf_reader(smollm2_path) >= 2  # its 49K tokens and their types were stepped over


@pytest.mark.parametrize("shape", ["tiny-llama", "tiny-gemma3", "tiny-qwen3moe"])
def test_random_models_read_as_gguf_reader_reads_them(shape: str, tiny_gguf: Callable[[str], Path]) -> None:
    _same_as_gguf_reader(tiny_gguf(shape))


def test_a_file_cut_inside_the_vocabulary_is_an_error(tmp_path: Path, smollm2_path: Path) -> None:
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(smollm2_path.read_bytes()[:200_000])
    with pytest.raises((ValueError, IndexError, OverflowError)):
        read_gguf_header(cut)

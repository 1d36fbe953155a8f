"""A GGUF file's metadata and tensor table, read without its vocabulary.

``gguf.GGUFReader`` builds a numpy view of every field, the tokenizer's 128K strings included:
2 s for SmolLM2's 49K-token vocabulary on a 2-core CPU, paid by every plan (the window's status
line at start, each command before it loads). The planner needs the architecture's numbers and
the tensors' shapes, so this reader decodes scalars and short arrays, steps over long arrays
(their length kept), and reads the tensor table: the same values in milliseconds.

Format: https://github.com/ggml-org/ggml/blob/master/docs/gguf.md (versions 2 and 3; either byte order).
"""

from __future__ import annotations

import mmap
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gguf.constants import GGML_QUANT_SIZES, GGMLQuantizationType

LONG_ARRAY = 4096
"""Arrays longer than this (vocabularies, merges, token scores) are stepped over, not decoded."""

_SCALARS = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}
_STRING, _ARRAY = 8, 9
_DEFAULT_ALIGNMENT = 32


@dataclass(frozen=True, slots=True)
class LongArray:
    """An array field that was not decoded: only its length."""

    length: int

    def __len__(self) -> int:
        return self.length


@dataclass(frozen=True, slots=True)
class HeaderTensor:
    name: str
    shape: tuple[int, ...]  # as stored: the fastest-varying dimension first
    type_name: str
    n_bytes: int
    data_offset: int  # from the start of the file


@dataclass(frozen=True, slots=True)
class GgufHeader:
    version: int
    fields: dict[str, Any]
    tensors: tuple[HeaderTensor, ...]


class _Cursor:
    def __init__(self, data: Any, order: str) -> None:
        self.data = data
        self.order = order
        self.at = 0

    def unpack(self, code: str) -> Any:
        fmt = self.order + code
        (value,) = struct.unpack_from(fmt, self.data, self.at)
        self.at += struct.calcsize(fmt)
        return value

    def string(self) -> str:
        length = self.unpack("Q")
        end = self.at + length
        if end > len(self.data):
            raise ValueError("a string runs past the end of the file")
        text = bytes(self.data[self.at : end]).decode("utf-8", errors="replace")
        self.at = end
        return text

    def skip_string(self) -> None:
        length = self.unpack("Q")  # (``self.at += self.unpack(...)`` would add to the old position)
        self.at += length

    def value(self, kind: int) -> Any:
        if kind in _SCALARS:
            return self.unpack(_SCALARS[kind])
        if kind == _STRING:
            return self.string()
        if kind == _ARRAY:
            return self.array()
        raise ValueError(f"unknown GGUF value type {kind}")

    def array(self) -> Any:
        kind = self.unpack("I")
        count = self.unpack("Q")
        if count <= LONG_ARRAY:
            return [self.value(kind) for _ in range(count)]
        if kind in _SCALARS:
            self.at += count * struct.calcsize(_SCALARS[kind])
        elif kind == _STRING:
            for _ in range(count):
                self.skip_string()
        else:  # arrays of arrays: decoded, to step over them
            for _ in range(count):
                self.value(kind)
        return LongArray(count)


def read_gguf_header(path: str | Path) -> GgufHeader:
    """The fields and tensors of the GGUF file at ``path``. Raises ``ValueError`` (a file that is
    not GGUF, or ends inside its header) or ``OSError``; the caller words them for users."""
    try:
        return _read(path)
    except struct.error as error:
        raise ValueError(f"the file ends inside its header ({error})") from None


def _read(path: str | Path) -> GgufHeader:
    with open(path, "rb") as file, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as data:
        if data[:4] != b"GGUF":
            raise ValueError("not a GGUF file")
        order = "<"
        version = struct.unpack_from("<I", data, 4)[0]
        if version & 0xFFFF == 0:  # written on a big-endian machine
            order = ">"
            version = struct.unpack_from(">I", data, 4)[0]
        if version < 2:
            raise ValueError(f"GGUF version {version} is too old (this reads versions 2 and 3)")
        cursor = _Cursor(data, order)
        cursor.at = 8
        n_tensors = cursor.unpack("Q")
        n_fields = cursor.unpack("Q")
        fields: dict[str, Any] = {}
        for _ in range(n_fields):
            key = cursor.string()
            fields[key] = cursor.value(cursor.unpack("I"))
        infos = []
        for _ in range(n_tensors):
            name = cursor.string()
            dims = tuple(cursor.unpack("Q") for _ in range(cursor.unpack("I")))
            infos.append((name, dims, cursor.unpack("I"), cursor.unpack("Q")))
        alignment = int(fields.get("general.alignment", _DEFAULT_ALIGNMENT) or _DEFAULT_ALIGNMENT)
        start = -(-cursor.at // alignment) * alignment
    tensors = []
    for name, dims, kind, offset in infos:
        quant = GGMLQuantizationType(kind)
        block_size, type_size = GGML_QUANT_SIZES[quant]
        elements = 1
        for d in dims:
            elements *= d
        tensors.append(HeaderTensor(name, dims, quant.name, elements * type_size // block_size, start + offset))
    return GgufHeader(version, fields, tuple(tensors))

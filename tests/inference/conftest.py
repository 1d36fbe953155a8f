"""Fixtures for the GGUF inspection and planner tests: tiny random-weight models (also used by
tests/scripts, which tests their writer)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from scripts.random_gguf import write_random_gguf


@pytest.fixture(scope="session")
def tiny_gguf(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    """Path of a tiny random model of the given shape (``tiny-llama``, ``tiny-gemma3``...), made once."""
    made: dict[str, Path] = {}
    folder = tmp_path_factory.mktemp("tiny-gguf")

    def make(shape: str) -> Path:
        if shape not in made:
            made[shape] = write_random_gguf(shape, folder / f"{shape}.gguf")
        return made[shape]

    return make


@pytest.fixture(scope="session")
def llama_cpp_module() -> object:
    """llama_cpp, or skip: the arithmetic-vs-llama.cpp tests need the library."""
    return pytest.importorskip("llama_cpp")

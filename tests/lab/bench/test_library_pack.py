"""lab/bench/library_pack.py: a data folder packed and unpacked, the GPU memory figures."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

import pytest

from lab.bench.library_pack import fresh_home, gpu_memory, pack_library, unpack_library


def test_a_packed_library_unpacks_into_a_fresh_home_without_the_wal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PAGEWISE_HOME", str(tmp_path / "before"))
    home = fresh_home("pack-test-")
    assert os.environ["PAGEWISE_HOME"] == str(home) and not any(home.iterdir())
    (home / "library.sqlite").write_bytes(b"db")
    (home / "library.sqlite-wal").write_bytes(b"wal")
    (home / "vectors.faiss").write_bytes(b"v")
    pack_library(home, tmp_path / "out" / "lib.tgz")
    again = unpack_library(tmp_path / "out" / "lib.tgz", "unpack-test-")
    assert again != home and os.environ["PAGEWISE_HOME"] == str(again)
    assert sorted(p.name for p in again.iterdir()) == ["library.sqlite", "vectors.faiss"]
    assert (again / "library.sqlite").read_bytes() == b"db"


def test_gpu_memory_is_the_peak_above_the_idle_card() -> None:
    mib = 2**20
    gpu = SimpleNamespace(
        available=True,
        name="H100",
        baseline_used_bytes=500 * mib,
        peak_used_bytes=12_500 * mib,
        peak_app_bytes=11_900 * mib,
    )
    assert gpu_memory(gpu) == {
        "gpu": "H100",
        "gpu_baseline_mib": 500,
        "peak_used_mib_raw": 12500,
        "peak_mib": 12000,
        "peak_app_mib": 11900,
    }
    assert gpu_memory(SimpleNamespace(available=False)) == {}

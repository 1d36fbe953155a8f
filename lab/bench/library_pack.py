"""A library packed for a bench run on another machine (the GPU machine: only the checkout and a
few carried files travel), and the GPU memory figures the benches report.

    home = fresh_home("room-bench-")        # an empty data folder, $PAGEWISE_HOME
    pack_library(home, Path("build/x.tgz")) # its files, without SQLite's -wal/-shm
    unpack_library(Path("build/x.tgz"), "room-bench-")  # a fresh data folder holding them
"""

from __future__ import annotations

import os
import tarfile
import tempfile
from pathlib import Path
from typing import Any

MIB = 2**20


def fresh_home(prefix: str) -> Path:
    """An empty data folder, made ``$PAGEWISE_HOME``: nothing stored, nothing configured."""
    home = Path(tempfile.mkdtemp(prefix=prefix))
    os.environ["PAGEWISE_HOME"] = str(home)
    return home


def pack_library(home: Path, library_tgz: Path) -> None:
    """The data folder's files (the library closed first) into ``library_tgz``."""
    library_tgz.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(library_tgz, "w:gz") as tar:
        for path in sorted(home.iterdir()):
            if path.is_file() and not path.name.endswith(("-wal", "-shm")):
                tar.add(path, arcname=path.name)


def unpack_library(library_tgz: Path, prefix: str) -> Path:
    """A fresh data folder (``fresh_home``) holding the packed library."""
    home = fresh_home(prefix)
    with tarfile.open(library_tgz) as tar:
        tar.extractall(home, filter="data")
    return home


def gpu_memory(gpu: Any) -> dict[str, Any]:
    """An ``inference.telemetry.GpuTelemetry``'s figures: the peak used minus the idle card's (NVML
    counts other processes too), and the raw numbers; empty without a GPU."""
    if not gpu.available:
        return {}
    baseline = gpu.baseline_used_bytes or 0
    return {
        "gpu": gpu.name,
        "gpu_baseline_mib": round(baseline / MIB),
        "peak_used_mib_raw": round(gpu.peak_used_bytes / MIB),
        "peak_mib": round((gpu.peak_used_bytes - baseline) / MIB),
        "peak_app_mib": round(gpu.peak_app_bytes / MIB),
    }

"""GPU telemetry against a fake pynvml module (no GPU needed)."""

from __future__ import annotations

import os
import sys
import time
import types
from dataclasses import dataclass, field
from typing import Any

import pytest

from inference import telemetry
from inference.telemetry import GpuTelemetry

GIB = 1024**3


class FakeNVMLError(Exception):
    pass


@dataclass
class FakeProcess:
    pid: int
    usedGpuMemory: int | None


@dataclass
class FakeNvml:
    """The pynvml functions GpuTelemetry calls, with settable readings."""

    total: int = 12 * GIB
    used: int = 1 * GIB
    processes: list[FakeProcess] = field(default_factory=list)
    gpu_util: int = 40
    fail_init: bool = False
    devices: int = 1
    shutdowns: int = 0
    NVMLError: type[Exception] = FakeNVMLError

    def nvmlInit(self) -> None:
        if self.fail_init:
            raise FakeNVMLError("Driver Not Loaded")

    def nvmlShutdown(self) -> None:
        self.shutdowns += 1

    def nvmlDeviceGetCount(self) -> int:
        return self.devices

    def nvmlDeviceGetHandleByIndex(self, index: int) -> str:
        return f"handle{index}"

    def nvmlDeviceGetName(self, handle: str) -> bytes:
        return b"NVIDIA GeForce RTX 3060"

    def nvmlDeviceGetMemoryInfo(self, handle: str) -> Any:
        return types.SimpleNamespace(total=self.total, used=self.used, free=self.total - self.used)

    def nvmlDeviceGetUtilizationRates(self, handle: str) -> Any:
        return types.SimpleNamespace(gpu=self.gpu_util, memory=10)

    def nvmlDeviceGetComputeRunningProcesses(self, handle: str) -> list[FakeProcess]:
        return list(self.processes)

    def nvmlDeviceGetGraphicsRunningProcesses(self, handle: str) -> list[FakeProcess]:
        return []

    def nvmlSystemGetDriverVersion(self) -> str:
        return "550.54.14"

    def nvmlSystemGetCudaDriverVersion(self) -> int:
        return 12040


WORKER_PID = 424242


def _telemetry(nvml: FakeNvml, **kwargs: Any) -> GpuTelemetry:
    return GpuTelemetry(pids=lambda: (os.getpid(), WORKER_PID, None), nvml=nvml, **kwargs)


def test_sample_reports_device_and_app_memory() -> None:
    nvml = FakeNvml(
        used=6 * GIB,
        processes=[
            FakeProcess(os.getpid(), 300 * 1024**2),
            FakeProcess(WORKER_PID, 5 * GIB),
            FakeProcess(999, 1 * GIB),  # someone else's process
        ],
    )
    with _telemetry(nvml) as gpu:
        assert gpu.available and gpu.name == "NVIDIA GeForce RTX 3060"
        sample = gpu.sample()
        assert sample is not None
        assert sample.total_bytes == 12 * GIB
        assert sample.used_bytes == 6 * GIB
        assert sample.free_bytes == 6 * GIB
        assert sample.app_bytes == 5 * GIB + 300 * 1024**2
        assert not sample.app_bytes_estimated
        assert sample.gpu_util_percent == 40
        info = gpu.info()
        assert info.driver_version == "550.54.14" and info.cuda_driver_version == "12.4"
    assert nvml.shutdowns == 1


def test_windows_fallback_uses_baseline() -> None:
    # WDDM: processes listed without per-process memory.
    nvml = FakeNvml(used=2 * GIB, processes=[FakeProcess(WORKER_PID, None)])
    gpu = _telemetry(nvml)
    first = gpu.sample()
    assert first is not None and first.app_bytes is None  # no baseline yet
    gpu.mark_baseline()
    nvml.used = 9 * GIB
    sample = gpu.sample()
    assert sample is not None
    assert sample.app_bytes == 7 * GIB
    assert sample.app_bytes_estimated
    gpu.close()


def test_not_available_value_is_treated_as_unknown() -> None:
    nvml = FakeNvml(processes=[FakeProcess(WORKER_PID, 2**64 - 1)])
    gpu = _telemetry(nvml)
    gpu.mark_baseline()
    nvml.used += GIB
    sample = gpu.sample()
    assert sample is not None and sample.app_bytes == GIB and sample.app_bytes_estimated


def test_background_sampling_tracks_peaks() -> None:
    nvml = FakeNvml(used=1 * GIB, processes=[FakeProcess(WORKER_PID, 1 * GIB)])
    seen: list[int] = []
    gpu = _telemetry(nvml, interval_s=0.01, on_sample=lambda s: seen.append(s.used_bytes))
    gpu.start()
    try:
        deadline = time.monotonic() + 5
        while len(seen) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        nvml.used, nvml.processes = 8 * GIB, [FakeProcess(WORKER_PID, 7 * GIB)]
        while gpu.peak_used_bytes < 8 * GIB and time.monotonic() < deadline:
            time.sleep(0.01)
        nvml.used, nvml.processes = 2 * GIB, [FakeProcess(WORKER_PID, 1 * GIB)]
        time.sleep(0.05)
    finally:
        gpu.stop()
    assert gpu.peak_used_bytes == 8 * GIB
    assert gpu.peak_app_bytes == 7 * GIB
    latest = gpu.latest
    assert latest is not None and latest.used_bytes == 2 * GIB
    gpu.reset_peaks()
    assert gpu.peak_used_bytes == 2 * GIB


def test_no_driver_is_graceful() -> None:
    gpu = _telemetry(FakeNvml(fail_init=True))
    assert not gpu.available
    assert "no NVIDIA GPU" in gpu.reason and "Driver Not Loaded" in gpu.reason
    assert gpu.sample() is None
    gpu.start()  # no thread, no error
    gpu.stop()
    assert not gpu.info().available


def test_no_device_is_graceful() -> None:
    gpu = _telemetry(FakeNvml(devices=0))
    assert not gpu.available and gpu.reason == "no NVIDIA GPU"


def test_default_import_path_uses_pynvml_module(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeNvml(used=3 * GIB)
    module = types.ModuleType("pynvml")
    for name in dir(fake):
        if name.startswith("nvml"):
            setattr(module, name, getattr(fake, name))
    monkeypatch.setitem(sys.modules, "pynvml", module)
    gpu = GpuTelemetry()
    sample = gpu.sample()
    assert sample is not None and sample.used_bytes == 3 * GIB
    gpu.close()


def test_missing_pynvml(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pynvml", None)
    module, reason = telemetry.load_nvml()
    assert module is None and "nvidia-ml-py" in reason

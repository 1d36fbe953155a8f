"""GPU telemetry through NVML (nvidia-ml-py, imported as ``pynvml`` only when used).

``GpuTelemetry`` samples one device in a background thread (3 Hz by default): total, used
and free memory, the memory of this app's processes (the caller and the model worker), and
utilization. It keeps the peaks, for ``pagewise bench`` and the planner's calibration.

Without an NVIDIA driver (or without nvidia-ml-py) ``available`` is false and ``reason``
says why; nothing raises. Where NVML does not report per-process memory (Windows with
WDDM drivers), the app's memory is estimated as device used minus a baseline taken before
the model was loaded (``mark_baseline``), and the sample says it is an estimate.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class GpuSample:
    """One reading of one device. Bytes; percentages 0-100; None where not reported."""

    time_s: float
    """``time.monotonic()`` when taken."""
    device_index: int
    name: str
    total_bytes: int
    used_bytes: int
    free_bytes: int
    app_bytes: int | None
    """Memory of this app's processes (None if neither reported nor estimable)."""
    app_bytes_estimated: bool
    """True when ``app_bytes`` is device used minus the baseline (no per-process data)."""
    gpu_util_percent: int | None
    memory_util_percent: int | None

    def to_json(self) -> dict[str, Any]:
        return {
            "device_index": self.device_index,
            "name": self.name,
            "total_bytes": self.total_bytes,
            "used_bytes": self.used_bytes,
            "free_bytes": self.free_bytes,
            "app_bytes": self.app_bytes,
            "app_bytes_estimated": self.app_bytes_estimated,
            "gpu_util_percent": self.gpu_util_percent,
            "memory_util_percent": self.memory_util_percent,
        }


@dataclass(frozen=True, slots=True)
class GpuInfo:
    """What NVML says about the machine, or why it says nothing."""

    available: bool
    reason: str = ""
    driver_version: str = ""
    cuda_driver_version: str = ""
    devices: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "available": self.available,
            "reason": self.reason,
            "driver_version": self.driver_version,
            "cuda_driver_version": self.cuda_driver_version,
            "devices": list(self.devices),
        }


def _text(value: Any) -> str:
    return value.decode("utf-8", errors="replace") if isinstance(value, bytes) else str(value)


def load_nvml() -> tuple[Any | None, str]:
    """The initialized ``pynvml`` module, or None and why not."""
    try:
        import pynvml
    except ImportError:
        return None, "nvidia-ml-py is not installed (pip install nvidia-ml-py)"
    try:
        pynvml.nvmlInit()
    except Exception as error:  # pynvml.NVMLError and OSError on a missing library
        return None, f"no NVIDIA GPU (NVML could not start: {_text(error) or type(error).__name__})"
    return pynvml, ""


class GpuTelemetry:
    """Samples one GPU through NVML; see the module docstring.

    ``pids`` returns the process ids counted as this app (default: this process); the
    local engine's worker pid should be among them. ``nvml`` injects a module with
    pynvml's functions (tests use a fake).
    """

    def __init__(
        self,
        *,
        pids: Callable[[], Iterable[int | None]] | None = None,
        device_index: int = 0,
        interval_s: float = 1 / 3,
        nvml: Any | None = None,
        on_sample: Callable[[GpuSample], None] | None = None,
    ) -> None:
        self._pids = pids or (lambda: (os.getpid(),))
        self.device_index = device_index
        self.interval_s = interval_s
        self._on_sample = on_sample
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._latest: GpuSample | None = None
        self._peak_used = 0
        self._peak_app = 0
        self._baseline_used: int | None = None
        self._handle: Any = None
        if nvml is None:
            self._nvml, self.reason = load_nvml()
        else:
            self._nvml, self.reason = nvml, ""
            try:
                nvml.nvmlInit()
            except Exception as error:
                self._nvml, self.reason = None, f"no NVIDIA GPU (NVML could not start: {_text(error)})"
        self.name = ""
        if self._nvml is not None:
            self._open_device()

    def _open_device(self) -> None:
        nvml: Any = self._nvml
        try:
            count = int(nvml.nvmlDeviceGetCount())
            if self.device_index < count:
                self._handle = nvml.nvmlDeviceGetHandleByIndex(self.device_index)
                self.name = _text(nvml.nvmlDeviceGetName(self._handle))
                return
            reason = "no NVIDIA GPU" if count == 0 else f"no GPU number {self.device_index} ({count} found)"
        except Exception as error:
            reason = f"no NVIDIA GPU (NVML: {_text(error)})"
        self._close_nvml()
        self.reason = reason

    @property
    def available(self) -> bool:
        return self._nvml is not None

    def info(self) -> GpuInfo:
        """Driver version and device names (or why there are none)."""
        if self._nvml is None:
            return GpuInfo(False, self.reason)
        nvml = self._nvml
        try:
            driver = _text(nvml.nvmlSystemGetDriverVersion())
        except Exception:
            driver = ""
        try:
            cuda = int(nvml.nvmlSystemGetCudaDriverVersion())
            cuda_text = f"{cuda // 1000}.{cuda % 1000 // 10}"
        except Exception:
            cuda_text = ""
        names = []
        try:
            for index in range(int(nvml.nvmlDeviceGetCount())):
                names.append(_text(nvml.nvmlDeviceGetName(nvml.nvmlDeviceGetHandleByIndex(index))))
        except Exception:
            names = [self.name]
        return GpuInfo(True, "", driver, cuda_text, tuple(names))

    # Sampling

    def mark_baseline(self) -> None:
        """Remember the device's used memory now (before loading), for the fallback."""
        sample = self.sample()
        with self._lock:
            self._baseline_used = sample.used_bytes if sample else None

    def sample(self) -> GpuSample | None:
        """Take one reading now (None without a GPU or if NVML fails)."""
        nvml, handle = self._nvml, self._handle
        if nvml is None:
            return None
        try:
            memory = nvml.nvmlDeviceGetMemoryInfo(handle)
            total, used, free = int(memory.total), int(memory.used), int(memory.free)
        except Exception:
            return None
        gpu_util = memory_util = None
        with contextlib.suppress(Exception):
            rates = nvml.nvmlDeviceGetUtilizationRates(handle)
            gpu_util, memory_util = int(rates.gpu), int(rates.memory)
        app_bytes, estimated = self._app_bytes(nvml, handle, used)
        sample = GpuSample(
            time_s=time.monotonic(),
            device_index=self.device_index,
            name=self.name,
            total_bytes=total,
            used_bytes=used,
            free_bytes=free,
            app_bytes=app_bytes,
            app_bytes_estimated=estimated,
            gpu_util_percent=gpu_util,
            memory_util_percent=memory_util,
        )
        with self._lock:
            self._latest = sample
            self._peak_used = max(self._peak_used, used)
            if app_bytes is not None:
                self._peak_app = max(self._peak_app, app_bytes)
        return sample

    def _app_bytes(self, nvml: Any, handle: Any, used: int) -> tuple[int | None, bool]:
        reported = self._reported_app_bytes(nvml, handle)
        if reported is not None:
            return reported, False
        with self._lock:
            baseline = self._baseline_used
        if baseline is None:
            return None, False
        return max(0, used - baseline), True

    def _reported_app_bytes(self, nvml: Any, handle: Any) -> int | None:
        """Sum of NVML's per-process memory for our pids; None where NVML cannot tell."""
        wanted = {pid for pid in self._pids() if pid}
        try:
            processes = list(nvml.nvmlDeviceGetComputeRunningProcesses(handle))
        except Exception:
            return None
        with contextlib.suppress(Exception):
            processes += list(nvml.nvmlDeviceGetGraphicsRunningProcesses(handle))
        amounts: dict[int, int] = {}
        for process in processes:
            pid = int(process.pid)
            if pid not in wanted:
                continue
            amount = getattr(process, "usedGpuMemory", None)
            # None, or NVML's "not available" value (2**64 - 1), on Windows with WDDM.
            if amount is None or int(amount) >= 2**63:
                return None
            amounts[pid] = max(amounts.get(pid, 0), int(amount))
        if not amounts and os.name == "nt":
            return None  # WDDM may not list processes at all: not the same as "none"
        return sum(amounts.values())

    @property
    def latest(self) -> GpuSample | None:
        with self._lock:
            return self._latest

    @property
    def peak_used_bytes(self) -> int:
        with self._lock:
            return self._peak_used

    @property
    def peak_app_bytes(self) -> int:
        with self._lock:
            return self._peak_app

    @property
    def baseline_used_bytes(self) -> int | None:
        with self._lock:
            return self._baseline_used

    def reset_peaks(self) -> None:
        with self._lock:
            self._peak_used = self._latest.used_bytes if self._latest else 0
            self._peak_app = 0

    # Background thread

    def start(self) -> None:
        """Sample in a background thread until ``stop``; does nothing without a GPU."""
        if self._nvml is None or self._thread is not None:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="pagewise-gpu-telemetry", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            sample = self.sample()
            if sample is not None and self._on_sample is not None:
                with contextlib.suppress(Exception):  # a display callback must not end sampling
                    self._on_sample(sample)
            self._stop.wait(self.interval_s)

    def stop(self) -> None:
        thread, self._thread = self._thread, None
        self._stop.set()
        if thread is not None:
            thread.join(timeout=5.0)

    def close(self) -> None:
        self.stop()
        self._close_nvml()

    def _close_nvml(self) -> None:
        nvml, self._nvml, self._handle = self._nvml, None, None
        if nvml is not None:
            with contextlib.suppress(Exception):
                nvml.nvmlShutdown()

    def __enter__(self) -> GpuTelemetry:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

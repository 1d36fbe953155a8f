"""What llama.cpp itself reports about its buffers: log capture, parsing, and a dry run.

llama.cpp logs every buffer it allocates::

    load_tensors:   CUDA0 model buffer size =  8148.38 MiB
    llama_kv_cache:   CUDA0 KV buffer size =  3264.00 MiB
    sched_reserve:    CUDA0 compute buffer size =   307.00 MiB

``capture_llama_logs()`` collects those lines through ``llama_log_set``; ``parse_buffer_sizes``
turns them into bytes per device. ``dry_run_buffers`` asks llama.cpp for the compute buffers a
configuration would need without allocating anything: model params ``no_alloc=True`` with
``load_mode=0`` (with mmap loading llama.cpp aborts on an assertion), the way llama.cpp's own
``--fit`` probes memory. In a dry run model and KV buffers are logged as 0.00 MiB; only the
compute buffers are meaningful.

``llama_cpp`` is imported lazily: this module is importable without it.
"""

from __future__ import annotations

import contextlib
import ctypes
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

MIB = 1024 * 1024

_BUFFER_RE = re.compile(
    r"^\s*(?P<where>[\w:]+):\s+(?P<dev>\S+)\s+(?P<kind>model|KV|compute|output|RS)\s+buffer size\s*=\s*"
    r"(?P<mib>[\d.]+)\s*MiB"
)


@dataclass(frozen=True, slots=True)
class ReportedBuffers:
    """Buffer sizes llama.cpp reported, in bytes, keyed by buffer name (``CUDA0``, ``CPU``...)."""

    model: dict[str, int] = field(default_factory=dict)
    kv: dict[str, int] = field(default_factory=dict)
    compute: dict[str, int] = field(default_factory=dict)
    output: dict[str, int] = field(default_factory=dict)

    @staticmethod
    def _gpu(sizes: dict[str, int]) -> int:
        # Device buffers are named after the backend device (CUDA0, Vulkan0, ...). Host-side
        # buffers are CPU, CPU_Mapped, CPU_REPACK, CUDA_Host (pinned host memory, not VRAM).
        return sum(v for k, v in sizes.items() if not k.startswith("CPU") and not k.endswith("_Host"))

    @property
    def gpu_model(self) -> int:
        return self._gpu(self.model)

    @property
    def gpu_kv(self) -> int:
        return self._gpu(self.kv)

    @property
    def gpu_compute(self) -> int:
        return self._gpu(self.compute)

    @property
    def gpu_total(self) -> int:
        return self.gpu_model + self.gpu_kv + self.gpu_compute

    @property
    def cpu_kv(self) -> int:
        return sum(v for k, v in self.kv.items() if k.startswith("CPU"))

    @property
    def cpu_compute(self) -> int:
        return sum(v for k, v in self.compute.items() if k.startswith("CPU") or k.endswith("_Host"))

    def to_json(self) -> dict[str, Any]:
        return {"model": self.model, "kv": self.kv, "compute": self.compute, "output": self.output}


def parse_buffer_sizes(lines: list[str] | str) -> ReportedBuffers:
    """Sum the ``... <dev> <kind> buffer size = N MiB`` lines of a llama.cpp log."""
    if isinstance(lines, str):
        lines = lines.splitlines()
    result = ReportedBuffers()
    target = {"model": result.model, "KV": result.kv, "compute": result.compute, "output": result.output}
    for line in lines:
        m = _BUFFER_RE.match(line)
        if not m or m.group("kind") not in target:
            continue
        if m.group("where").startswith("~"):  # destructor's "compute buffer size is ..." line
            continue
        sizes = target[m.group("kind")]
        dev = m.group("dev")
        sizes[dev] = sizes.get(dev, 0) + round(float(m.group("mib")) * MIB)
    return result


class LogCapture:
    """Lines llama.cpp logged while the capture was active."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self._partial = ""

    def feed(self, text: str) -> None:
        data = self._partial + text
        *complete, self._partial = data.split("\n")
        self.lines.extend(complete)

    def finish(self) -> None:
        if self._partial:
            self.lines.append(self._partial)
            self._partial = ""

    def buffers(self) -> ReportedBuffers:
        return parse_buffer_sizes(self.lines)


@contextlib.contextmanager
def capture_llama_logs(echo: bool = False) -> Iterator[LogCapture]:
    """Collect llama.cpp's log lines (in this process) for the duration of the block."""
    import llama_cpp

    capture = LogCapture()

    @llama_cpp.llama_log_callback  # type: ignore[untyped-decorator]
    def _callback(level: int, text: bytes, user_data: ctypes.c_void_p) -> None:
        decoded = text.decode("utf-8", errors="replace")
        capture.feed(decoded)
        if echo:
            import sys

            sys.stderr.write(decoded)

    llama_cpp.llama_log_set(_callback, ctypes.c_void_p(0))
    try:
        yield capture
    finally:
        capture.finish()
        try:
            from llama_cpp import _logger

            llama_cpp.llama_log_set(_logger.llama_log_callback, ctypes.c_void_p(0))
        except ImportError:  # pragma: no cover - older layouts
            llama_cpp.llama_log_set(ctypes.cast(0, llama_cpp.llama_log_callback), ctypes.c_void_p(0))
        del _callback


@dataclass(frozen=True, slots=True)
class DryRunConfig:
    """The parameters a dry run needs (a subset of ``inference.planning.plan.Plan``)."""

    n_gpu_layers: int
    n_ctx: int
    type_k: int = 1
    type_v: int = 1
    flash_attn: bool = False
    n_batch: int = 512
    n_ubatch: int = 512
    n_seq_max: int = 1
    swa_full: bool = False
    kv_unified: bool = True
    n_cpu_moe: int = 0  # MoE: experts of layers [0, n) in CPU memory


def dry_run_buffers(model_path: str, config: DryRunConfig) -> ReportedBuffers:
    """Ask llama.cpp which compute buffers ``config`` needs, allocating nothing.

    Raises ``RuntimeError`` if llama.cpp refuses the model or the context.
    """
    import llama_cpp

    llama_cpp.llama_backend_init()
    mparams = llama_cpp.llama_model_default_params()
    mparams.n_gpu_layers = config.n_gpu_layers
    mparams.no_alloc = True
    mparams.load_mode = 0  # LLAMA_LOAD_MODE_NONE: required with no_alloc
    overrides = cpu_tensor_overrides([expert_layers_pattern(range(config.n_cpu_moe))]) if config.n_cpu_moe else None
    if overrides is not None:
        mparams.tensor_buft_overrides = overrides.pointer
    with capture_llama_logs() as capture:
        model = llama_cpp.llama_model_load_from_file(model_path.encode(), mparams)
        if not model:
            raise RuntimeError(f"llama.cpp could not load {model_path} for a dry run")
        try:
            cparams = llama_cpp.llama_context_default_params()
            cparams.n_ctx = config.n_ctx
            cparams.n_batch = config.n_batch
            cparams.n_ubatch = config.n_ubatch
            cparams.n_seq_max = config.n_seq_max
            cparams.type_k = config.type_k
            cparams.type_v = config.type_v
            cparams.flash_attn_type = 1 if config.flash_attn else 0
            cparams.swa_full = config.swa_full
            cparams.kv_unified = config.kv_unified
            cparams.n_threads = 2
            cparams.n_threads_batch = 2
            ctx = llama_cpp.llama_init_from_model(model, cparams)
            if not ctx:
                raise RuntimeError(f"llama.cpp could not create a context for {model_path} in a dry run")
            llama_cpp.llama_free(ctx)
        finally:
            llama_cpp.llama_model_free(model)
    del overrides  # referenced by the model's params until here
    return capture.buffers()


# -- MoE experts on the CPU -----------------------------------------------------------------
#
# llama-cpp-python 0.3.36 declares ``llama_model_params.tensor_buft_overrides`` as a bare
# ``c_void_p`` and its ``Llama`` class never sets it, but the C struct is simple
# (``{const char * pattern; ggml_backend_buffer_type_t buft;}``, NULL-terminated), so an
# engine can build it by hand. This is what llama.cpp's ``--cpu-moe`` / ``--n-cpu-moe`` do.


class _BuftOverride(ctypes.Structure):
    _fields_ = [("pattern", ctypes.c_char_p), ("buft", ctypes.c_void_p)]


@dataclass
class TensorOverrides:
    """A NULL-terminated ``llama_model_tensor_buft_override`` array and what keeps it alive."""

    array: Any
    patterns: list[bytes]

    @property
    def pointer(self) -> int:
        return ctypes.addressof(self.array)


def expert_layers_pattern(layers: list[int] | range) -> str:
    """The regex that matches the MoE expert tensors of ``layers`` (as ``--n-cpu-moe`` does)."""
    ids = "|".join(str(i) for i in layers)
    return rf"^blk\.({ids})\.ffn_(up|down|gate|gate_up)_(ch|)exps"


def cpu_tensor_overrides(patterns: list[str]) -> TensorOverrides:
    """Build overrides keeping tensors whose names match ``patterns`` in CPU memory.

    Set ``model_params.tensor_buft_overrides = overrides.pointer`` before loading, and keep
    ``overrides`` referenced until the model is freed.
    """
    import llama_cpp
    from llama_cpp import _ggml

    lib = _ggml.libggml
    lib.ggml_backend_cpu_buffer_type.restype = ctypes.c_void_p
    lib.ggml_backend_cpu_buffer_type.argtypes = []
    cpu_buft = lib.ggml_backend_cpu_buffer_type()
    limit = int(llama_cpp.llama_max_tensor_buft_overrides())
    if len(patterns) >= limit:
        raise ValueError(f"at most {limit - 1} tensor overrides")
    encoded = [p.encode() for p in patterns]
    array = (_BuftOverride * (len(encoded) + 1))()
    for i, pattern in enumerate(encoded):
        array[i].pattern = pattern
        array[i].buft = cpu_buft
    array[len(encoded)].pattern = None
    array[len(encoded)].buft = None
    return TensorOverrides(array=array, patterns=encoded)


# -- dry runs in a child process ------------------------------------------------------------------
#
# A dry run initialises the GPU backend (a CUDA context of ~600 MiB) in the process that runs it.
# The app and the CLI therefore run it in a short-lived child process, which frees everything.


def dry_run_in_subprocess(model_path: str, config: DryRunConfig, timeout: float = 120.0) -> ReportedBuffers:
    """``dry_run_buffers`` in a child Python process; raises ``RuntimeError`` when it fails."""
    import dataclasses
    import json
    import subprocess
    import sys

    payload = json.dumps({"model": model_path, "config": dataclasses.asdict(config)})
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "inference.llama_log", payload],
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired as exc:
        raise RuntimeError(f"llama.cpp's dry run of {model_path} took longer than {timeout:.0f} s") from exc
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        raise RuntimeError(f"llama.cpp's dry run of {model_path} failed: {' / '.join(tail)}")
    data = json.loads(lines[-1])
    return ReportedBuffers(model=data["model"], kv=data["kv"], compute=data["compute"], output=data["output"])


def _main(argv: list[str]) -> int:
    import json

    request = json.loads(argv[0])
    buffers = dry_run_buffers(request["model"], DryRunConfig(**request["config"]))
    print(json.dumps(buffers.to_json()), flush=True)
    return 0


if __name__ == "__main__":
    import sys

    raise SystemExit(_main(sys.argv[1:]))

"""CUDA variant only (PAGEWISE_VARIANT=cuda): load llama.cpp's backends, or fall back to the CPU.

llama.cpp is built with GGML_BACKEND_DL: the CPU and CUDA backends are separate libraries in
llama_cpp/lib that ggml loads at run time. llama-cpp-python does not ask ggml to load them, so
this hook does it right after ``llama_cpp.llama_cpp`` is imported (in the model worker). Without
an NVIDIA driver (no libcuda.so.1 / nvcuda.dll) libggml-cuda fails to load, ggml skips it and the
CPU backend runs; the first process says so once, naming the driver it needs.

The oldest driver that runs the bundled CUDA runtime follows its major version: CUDA 12 needs
R525, CUDA 13 R580 (installers/README.md).
"""

import ctypes
import importlib.abc
import os
import re
import sys
from pathlib import Path

MIN_DRIVER_BY_CUDA = {12: 525, 13: 580}


def _cudart_folders() -> list[Path]:
    """Where the CUDA runtime is: next to llama.cpp's libraries in the bundle; in a build venv,
    in the nvidia-* wheels' folders."""
    import importlib.util

    folders = [Path(getattr(sys, "_MEIPASS", ".")) / "llama_cpp" / "lib"]
    spec = importlib.util.find_spec("nvidia")  # a namespace package: no code runs
    if spec is not None and spec.submodule_search_locations:
        folders += [p for folder in spec.submodule_search_locations for p in Path(folder).glob("*/lib")]
    return folders


def _bundled_cuda_major() -> int | None:
    """12 or 13 from libcudart.so.12 / cudart64_13.dll."""
    for folder in _cudart_folders():
        for lib in folder.glob("*cudart*"):
            match = re.search(r"cudart(?:64_|\.so\.)(\d+)", lib.name)
            if match:
                return int(match.group(1))
    return None


def _min_driver() -> str:
    major = _bundled_cuda_major()
    if major is None:
        return "525"
    return f"{MIN_DRIVER_BY_CUDA.get(major, 580)} (CUDA {major})"


def _driver_present() -> bool:
    try:
        ctypes.CDLL("nvcuda.dll" if sys.platform == "win32" else "libcuda.so.1")
    except OSError:
        return False
    return True


def _ggml_library(folder: Path) -> Path:
    """The libggml that libllama loads: the file named by its SONAME (libggml.so.0), which
    libllama's NEEDED entry and $ORIGIN RPATH find. A wheel holds libggml.so, .so.0 and
    .so.0.x.y as three copies, not links: loading another copy would make a second backend
    registry that libllama never sees ("no backends are loaded", seen on the GPU machine)."""
    if sys.platform == "win32":
        return folder / "ggml.dll"
    by_soname = sorted(folder.glob("libggml.so.[0-9]*"), key=lambda p: len(p.name))
    return by_soname[0] if by_soname else folder / "libggml.so"


def _share_libstdcxx() -> None:
    """Put libstdc++ in the process's global symbol scope before llama.cpp loads.

    ctypes loads libllama with RTLD_LOCAL, so libllama looks up its C++ symbols in its own
    dependency order, where libggml comes before libstdc++. The GPU machine's toolchain (g++ 13.3,
    Ubuntu 24.04) linked libstdc++ statically into a GGML_BACKEND_DL libggml, which so defines
    libstdc++'s locale facet ids itself. libllama bound to those, and its tokenizer's std::regex
    crashed while the vocabulary loaded (docs/data/cuda-variant/cuda-variant-gpu-crash-before-fix.txt).
    The global scope is searched first, so with libstdc++ there every library shares its one
    copy. The bundle's own copy comes first: a system copy loaded here would stand in for it
    under the same SONAME, and may be older."""
    if not sys.platform.startswith("linux"):
        return
    bundled = Path(getattr(sys, "_MEIPASS", "/nonexistent")) / "libstdc++.so.6"
    candidates = [bundled] if bundled.exists() else []
    candidates.append(Path("libstdc++.so.6"))  # no "/": the loader's search path
    for candidate in candidates:
        try:
            ctypes.CDLL(str(candidate), mode=ctypes.RTLD_GLOBAL)
        except OSError:
            continue
        return


def _load_backends(folder: Path) -> None:
    ggml = ctypes.CDLL(str(_ggml_library(folder)))
    ggml.ggml_backend_load_all_from_path.argtypes = [ctypes.c_char_p]
    ggml.ggml_backend_load_all_from_path.restype = None
    ggml.ggml_backend_load_all_from_path(str(folder).encode())


class _LoadBackendsAfterImport(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):  # type: ignore[no-untyped-def]
        if name != "llama_cpp.llama_cpp":
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                spec.loader = _Loader(spec.loader)
                return spec
        return None


class _Loader(importlib.abc.Loader):
    def __init__(self, inner):  # type: ignore[no-untyped-def]
        self.inner = inner

    def create_module(self, spec):  # type: ignore[no-untyped-def]
        return self.inner.create_module(spec)

    def exec_module(self, module):  # type: ignore[no-untyped-def]
        self.inner.exec_module(module)
        _load_backends(Path(module.__file__).parent / "lib")


if not _driver_present() and not os.environ.get("PAGEWISE_CPU_NOTICE_SHOWN"):
    MIN_DRIVER = _min_driver()
    os.environ["PAGEWISE_CPU_NOTICE_SHOWN"] = "1"  # inherited by the workers: said once
    os.environ["PAGEWISE_GPU_UNAVAILABLE"] = f"no NVIDIA driver found; this build needs driver {MIN_DRIVER} or newer"
    sys.stderr.write(
        f"Pagewise: no NVIDIA driver found, so models run on the CPU. To use the GPU, install the "
        f"NVIDIA driver {MIN_DRIVER} or newer.\n"
    )
_share_libstdcxx()
sys.meta_path.insert(0, _LoadBackendsAfterImport())

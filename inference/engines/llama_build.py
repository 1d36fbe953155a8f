"""How the installed llama.cpp was built, and whether this CPU can run it.

Every build of Pagewise compiles llama.cpp with one portable set of options
(``installers/llama-cmake-options.txt``): no ``-march=native``, no AMX (ggml's AMX kernels
segfault, ggml-org/llama.cpp#20824), AVX2/FMA/F16C as the floor. ``installers/install_llama_cpp.sh``
records what it built in ``llama_cpp/pagewise-build.json``; this module reads that record
without loading llama.cpp (a CPU without AVX2 would die on SIGILL there), says what is wrong
with it, and checks the CPU against the floor. ``pagewise doctor``, ``--selftest`` and the
window use it.
"""

from __future__ import annotations

import importlib.util
import json
import platform
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

RECORD_NAME = "pagewise-build.json"
FLOOR_FEATURES = ("avx2", "fma", "f16c")
"""What the portable build needs of an x86-64 CPU (x86-64-v3: Haswell, Zen and later)."""
OPTIONS_FILE = Path(__file__).resolve().parents[2] / "installers" / "llama-cmake-options.txt"


@dataclass(frozen=True, slots=True)
class BuildRecord:
    """What ``installers/install_llama_cpp.sh`` built: version, variant, options and their hash."""

    llama_cpp_python: str
    variant: str
    cmake_args: tuple[str, ...]
    options_key: str
    path: Path
    libraries: tuple[tuple[str, str], ...] = ()
    """(file name, sha256) of the libraries built, in ``llama_cpp/lib``."""

    def to_json(self) -> dict[str, Any]:
        return {
            "llama_cpp_python": self.llama_cpp_python,
            "variant": self.variant,
            "cmake_args": list(self.cmake_args),
            "options_key": self.options_key,
            "path": str(self.path),
        }


def record_path() -> Path | None:
    """Where the installed llama-cpp-python's build record is (or would be); None without it."""
    try:
        spec = importlib.util.find_spec("llama_cpp")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / RECORD_NAME


def read_record(path: Path | None = None) -> BuildRecord | None:
    """The build record, or None when llama-cpp-python was installed some other way."""
    path = path if path is not None else record_path()
    if path is None or not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return BuildRecord(
            llama_cpp_python=str(data["llama_cpp_python"]),
            variant=str(data["variant"]),
            cmake_args=tuple(str(arg) for arg in data["cmake_args"]),
            options_key=str(data["options_key"]),
            path=path,
            libraries=tuple((str(name), str(digest)) for name, digest in dict(data.get("libraries", {})).items()),
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None


def describe_record(record: Mapping[str, Any] | None) -> str:
    """A build record (``BuildRecord.to_json()``) in one line: variant, options hash, options."""
    if record is None:
        return "unknown options (not built by installers/install_llama_cpp.sh)"
    return f"{record['variant']} options {record['options_key']}: {' '.join(record['cmake_args'])}"


def replaced_libraries(record: BuildRecord) -> list[str]:
    """The recorded libraries that are no longer the files built (replaced by another install).
    Not checked in a frozen bundle, whose build strips them."""
    if getattr(sys, "frozen", False):
        return []
    import hashlib

    changed: list[str] = []
    for name, digest in record.libraries:
        library = record.path.parent / "lib" / name
        try:
            if hashlib.sha256(library.read_bytes()).hexdigest() != digest:
                changed.append(name)
        except OSError:
            changed.append(name)
    return changed


def _option(args: tuple[str, ...], name: str) -> str | None:
    """The value ``-D<name>=<value>`` sets (the last one wins, as in CMake), upper-cased."""
    value = None
    for arg in args:
        if arg.startswith(f"-D{name}=") or arg.startswith(f"-D{name}:BOOL="):
            value = arg.split("=", 1)[1].upper()
    return value


def build_problems(record: BuildRecord | None) -> list[str]:
    """What is wrong with a build, in words (empty: the portable build)."""
    if record is None:
        return [
            "llama-cpp-python was not built by Pagewise's build script, so its options are unknown "
            "(a plain pip build compiles for the build machine's CPU and can crash on CPUs with Intel AMX)"
        ]
    problems: list[str] = []
    if not record.libraries:
        problems.append("the build record names no libraries, so it cannot be checked against the installed ones")
    if changed := replaced_libraries(record):
        problems.append(
            f"llama.cpp's libraries ({', '.join(changed)}) are not the ones Pagewise built: another install "
            "replaced them, so the recorded options no longer say how they were built"
        )
    on = {"ON", "1", "TRUE", "YES"}
    if _option(record.cmake_args, "GGML_NATIVE") != "OFF":
        problems.append("llama.cpp was built for the build machine's CPU (GGML_NATIVE is not OFF)")
    if any("-march=native" in arg or "-mcpu=native" in arg for arg in record.cmake_args):
        problems.append("llama.cpp was built with -march=native")
    amx = [
        name for name in ("GGML_AMX_TILE", "GGML_AMX_INT8", "GGML_AMX_BF16") if _option(record.cmake_args, name) in on
    ]
    if amx:
        problems.append(f"llama.cpp was built with ggml's AMX kernels ({', '.join(amx)}), which crash")
    if _option(record.cmake_args, "GGML_CPU_ALL_VARIANTS") in on:
        problems.append("llama.cpp was built with every CPU variant, the AMX one (sapphirerapids) among them")
    return problems


def system_info_features(info: str) -> list[str]:
    """The CPU features llama.cpp's system info says are compiled in ("AVX2 = 1 | ...")."""
    features: list[str] = []
    for part in info.replace("|", "\n").splitlines():
        name, _, value = part.partition("=")
        name, value = name.rpartition(":")[2].strip(), value.strip()  # "CPU : SSE3 = 1"
        if value == "1" and name and " " not in name:
            features.append(name)
    return features


def amx_in_system_info(info: str) -> bool:
    return any(name.startswith("AMX") for name in system_info_features(info))


def cpu_flags() -> frozenset[str] | None:
    """The CPU's feature flags (Linux: /proc/cpuinfo; Windows: the kernel's feature test);
    None where they cannot be read."""
    if sys.platform.startswith("linux"):
        try:
            text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None
        for line in text.splitlines():
            if line.startswith("flags"):
                return frozenset(line.partition(":")[2].split())
        return None
    if sys.platform == "win32":
        import ctypes

        kernel = ctypes.windll.kernel32  # type: ignore[attr-defined]
        # PF_AVX2_INSTRUCTIONS_AVAILABLE = 40; Windows has no FMA/F16C test, and every AVX2 CPU has both.
        return frozenset({"avx2", "fma", "f16c"}) if kernel.IsProcessorFeaturePresent(40) else frozenset()
    return None


def cpu_floor_problem(flags: frozenset[str] | None = None) -> str | None:
    """Why this CPU cannot run Pagewise's llama.cpp (it lacks AVX2, FMA or F16C), or None."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return None
    flags = cpu_flags() if flags is None else flags
    if flags is None:
        return None
    missing = [name.upper() for name in FLOOR_FEATURES if name not in flags]
    if not missing:
        return None
    return (
        f"This CPU lacks {', '.join(missing)}, which Pagewise's llama.cpp needs (x86-64 processors "
        "since Intel Haswell, 2013, and AMD Zen have them), so local models cannot run here. "
        "Use a model server on another machine instead (Settings ▸ Model ▸ Remote server, or --remote URL)."
    )


def portable_options(variant: str = "cpu", options_file: Path = OPTIONS_FILE) -> list[str]:
    """The options of ``installers/llama-cmake-options.txt`` for ``variant`` (a source checkout only)."""
    options: list[str] = []
    for line in options_file.read_text(encoding="utf-8").splitlines():
        parts = line.split()
        if len(parts) == 2 and not line.startswith("#") and parts[0] in ("all", variant):
            options.append(parts[1])
    return options


def rebuild_advice(variant: str = "cpu") -> str:
    """How to rebuild llama.cpp with Pagewise's options: the script in a source checkout, a
    reinstall of the app otherwise."""
    script = OPTIONS_FILE.parent / "install_llama_cpp.sh"
    if script.is_file() and not getattr(sys, "frozen", False):
        return f"Rebuild it with Pagewise's options: bash {script} {sys.executable} {variant}"
    return "Reinstall Pagewise from its installer (its llama.cpp is built with portable options)."

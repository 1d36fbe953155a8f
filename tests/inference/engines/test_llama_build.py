"""llama.cpp is built with Pagewise's one portable set of options, everywhere, and says so.

The first test reads the build record of the llama-cpp-python this suite runs on: it fails on a
checkout whose venv was built the old way (a plain or native pip build: no record, or libraries
that are not the recorded ones) whatever the CPU, where a check of llama.cpp's system info alone
would pass on every CPU without AMX."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from inference.engines.llama_build import (
    OPTIONS_FILE,
    BuildRecord,
    amx_in_system_info,
    build_problems,
    cpu_floor_problem,
    portable_options,
    read_record,
    record_path,
    system_info_features,
)

ROOT = Path(__file__).resolve().parents[3]


def test_the_installed_llama_cpp_was_built_with_the_portable_options() -> None:
    record = read_record()
    assert record is not None, (
        f"no build record at {record_path()}: llama-cpp-python was not installed by "
        "installers/install_llama_cpp.sh (run `make venv`)"
    )
    assert build_problems(record) == []
    assert record.cmake_args[: len(portable_options(record.variant))] == tuple(portable_options(record.variant))
    import llama_cpp

    info = llama_cpp.llama_print_system_info().decode()
    assert not amx_in_system_info(info), info
    assert {"AVX2", "FMA", "F16C"} <= set(system_info_features(info)), info


def _record(tmp_path: Path, args: list[str]) -> BuildRecord:
    (tmp_path / "lib").mkdir(exist_ok=True)
    (tmp_path / "lib" / "libllama.so").write_bytes(b"built")
    import hashlib

    digest = hashlib.sha256(b"built").hexdigest()
    return BuildRecord("0.3.36", "cpu", tuple(args), "k", tmp_path / "pagewise-build.json", (("libllama.so", digest),))


def test_native_amx_missing_or_replaced_builds_are_named(tmp_path: Path) -> None:
    portable = portable_options("cpu")
    assert build_problems(_record(tmp_path, portable)) == []
    assert build_problems(None) and "not built by Pagewise" in build_problems(None)[0]
    native = [a for a in portable if not a.startswith("-DGGML_NATIVE")]  # llama.cpp's default is ON
    assert any("GGML_NATIVE" in p for p in build_problems(_record(tmp_path, native)))
    assert any("GGML_NATIVE" in p for p in build_problems(_record(tmp_path, [*portable, "-DGGML_NATIVE=ON"])))
    assert any("AMX" in p for p in build_problems(_record(tmp_path, [*portable, "-DGGML_AMX_INT8=ON"])))
    assert any(
        "-march=native" in p for p in build_problems(_record(tmp_path, [*portable, "-DCMAKE_C_FLAGS=-march=native"]))
    )
    record = _record(tmp_path, portable)
    (tmp_path / "lib" / "libllama.so").write_bytes(b"rebuilt by pip")
    assert any("not the ones Pagewise built" in p for p in build_problems(record))


def test_system_info_parsing() -> None:
    info = "CPU : SSE3 = 1 | AVX = 1 | AVX2 = 1 | AMX_INT8 = 1 | LLAMAFILE = 0 | OPENMP = 1 | "
    assert system_info_features(info) == ["SSE3", "AVX", "AVX2", "AMX_INT8", "OPENMP"]
    assert amx_in_system_info(info) and not amx_in_system_info("CPU : AVX2 = 1 |")


def test_a_cpu_below_the_floor_is_told_so_before_llama_cpp_loads() -> None:
    assert cpu_floor_problem(frozenset({"sse4_2", "avx", "avx2", "fma", "f16c"})) is None
    problem = cpu_floor_problem(frozenset({"sse4_2", "avx"}))
    if problem is None:  # not an x86-64 machine: the floor is x86-64's
        import platform

        assert platform.machine().lower() not in ("x86_64", "amd64")
        return
    assert "AVX2, FMA, F16C" in problem and "--remote" in problem


def test_every_build_reads_the_one_options_file() -> None:
    options = portable_options("cpu")
    assert "-DGGML_NATIVE=OFF" in options and not any("AMX" in o and o.endswith("=ON") for o in options)
    assert not any("native" in line for line in OPTIONS_FILE.read_text().splitlines() if not line.startswith("#"))
    cuda = portable_options("cuda")
    assert cuda[: len(options)] == options and "-DGGML_CUDA=ON" in cuda
    makefile = (ROOT / "Makefile").read_text()
    assert "installers/install_llama_cpp.sh" in makefile and "llama-cmake-options.txt" in makefile
    assert "install_llama_cpp.sh" in (ROOT / "installers" / "build_linux.sh").read_text()
    assert "llama-cmake-options.txt" in (ROOT / "installers" / "build_windows.ps1").read_text()
    assert "llama_cmake_args.sh" in (ROOT / "lab" / "bench" / "gpu_cuda_variant.sh").read_text()
    # Nothing else builds llama.cpp with options of its own (comments aside).
    scripts = [ROOT / "Makefile", *(ROOT / "installers").glob("*.sh"), *(ROOT / "installers").glob("*.ps1"),
               *(ROOT / "scripts").glob("*.sh"), *(ROOT / "lab").rglob("*.sh")]  # fmt: skip
    # Two measurements build the one file's options with one change each, which they name: the GPU
    # re-measure adds CUDA, linked statically (the bundle's loadable CUDA module is checked by
    # gpu_cuda_variant.sh); the Wine decode bench turns OpenMP off to compare ggml's own threads.
    measurement_builds = {
        ROOT / "lab" / "bench" / "gpu_recheck.sh": ("installers/llama-cmake-options.txt", ("-DGGML_CUDA=on",)),
        ROOT / "installers" / "bench_wine_decode.sh": (
            "installers/llama_cmake_args.sh",
            ("s/-DGGML_OPENMP=ON/-DGGML_OPENMP=OFF/",),
        ),
    }
    for path in scripts:
        code = [line for line in path.read_text().splitlines() if not line.lstrip().startswith("#")]
        if path in measurement_builds:
            reads, changes = measurement_builds[path]
            assert reads in "\n".join(code), path
            for change in changes:
                code = [line.replace(change, "") for line in code]
        assert not any(re.search(r"-DGGML_\w+=|march=native", line) for line in code), path
        if path.name not in ("install_llama_cpp.sh", "build_windows.ps1", "build_windows_wine.sh"):  # they build it
            assert not any("no-binary" in line for line in code), path
    # The Windows build from Linux cross-compiles llama.cpp with the one file's options.
    assert "llama_cmake_args.sh" in (ROOT / "installers" / "build_windows_wine.sh").read_text()
    printed = subprocess.run(["bash", str(ROOT / "installers" / "llama_cmake_args.sh"), "cpu"], capture_output=True,
                             text=True, check=True).stdout.split()  # fmt: skip
    assert printed == options


def test_the_wheel_cache_key_changes_with_the_options() -> None:
    def key(args: str, version: str = "0.3.36") -> str:
        script = ROOT / "installers" / "llama_record.py"
        done = subprocess.run([sys.executable, str(script), "key", "--version", version, "--args", args],
                              capture_output=True, text=True, check=True)  # fmt: skip
        return done.stdout.strip()

    portable = " ".join(portable_options("cpu"))
    assert key(portable) == key("  " + portable.replace(" ", "   "))  # the options, not their spacing
    assert key(portable) != key(portable + " -DGGML_AVX512=ON") != key(portable, "0.3.37")


def test_doctor_shows_the_build_and_the_cpu_code(capsys: pytest.CaptureFixture[str]) -> None:
    from app.cli import main

    main(["doctor"])
    out = capsys.readouterr().out
    record = read_record()
    assert record is not None and f"options {record.options_key}" in out and "-DGGML_NATIVE=OFF" in out
    assert re.search(r"CPU code +.*AVX2", out), out
    main(["doctor", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert report["llama_cpp"]["build"]["record"]["options_key"] == record.options_key
    assert report["llama_cpp"]["build"]["problems"] == [] and "AVX2" in report["llama_cpp"]["cpu_features"]

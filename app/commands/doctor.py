"""``pagewise doctor``: is this machine ready to run models, and what to do if not."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.services.output import add_json_flag, emit_json


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser(
        "doctor",
        help="check the GPU, driver, llama.cpp build and models, and say how to fix problems",
    )
    add_json_flag(parser)
    parser.set_defaults(handler=run)


@dataclass(frozen=True, slots=True)
class Problem:
    severity: str  # "error" (cannot work as expected), "warning", "info"
    problem: str
    fix: str

    def to_json(self) -> dict[str, str]:
        return {"severity": self.severity, "problem": self.problem, "fix": self.fix}


def check_llama_cpp() -> dict[str, Any]:
    """Version, GPU support, CPU features and build options of the installed llama.cpp, or why
    it cannot be loaded. A CPU below the build's floor is reported without loading it (SIGILL)."""
    from inference.engines.llama_build import build_problems, cpu_floor_problem, read_record, system_info_features

    record = read_record()
    build: dict[str, Any] = {
        "record": record.to_json() if record is not None else None,
        "problems": build_problems(record),
        "cpu_floor_problem": cpu_floor_problem(),
    }
    if build["cpu_floor_problem"]:
        return {"installed": False, "error": build["cpu_floor_problem"], "build": build}
    try:
        import llama_cpp
    except Exception as error:  # missing package or a broken shared library
        return {"installed": False, "error": f"{type(error).__name__}: {error}", "build": build}
    info = str(llama_cpp.llama_print_system_info().decode("utf-8", errors="replace")).strip()
    return {
        "installed": True,
        "version": str(getattr(llama_cpp, "__version__", "")),
        "gpu_offload": bool(llama_cpp.llama_supports_gpu_offload()),
        "cuda": "CUDA" in info,
        "system_info": info,
        "cpu_features": system_info_features(info),
        "build": build,
    }


def check_gpu() -> dict[str, Any]:
    from inference.telemetry import GpuTelemetry

    with GpuTelemetry() as gpu:
        info = gpu.info()
        sample = gpu.sample()
    data: dict[str, Any] = info.to_json()
    if sample is not None:
        data.update(
            name=sample.name,
            total_bytes=sample.total_bytes,
            used_bytes=sample.used_bytes,
            free_bytes=sample.free_bytes,
        )
    return data


def check_models(folder: Path) -> tuple[list[dict[str, Any]], list[Problem]]:
    from inference.engines.local import check_model_file
    from inference.errors import ModelError
    from inference.models.download import installed_models

    models: list[dict[str, Any]] = []
    problems: list[Problem] = []
    for path in installed_models(folder):
        entry: dict[str, Any] = {"path": str(path), "size_bytes": path.stat().st_size, "ok": True}
        try:
            check_model_file(path)
        except ModelError as error:
            entry.update(ok=False, error=str(error))
            problems.append(Problem("warning", str(error), f"Delete {path.name} or download it again."))
        models.append(entry)
    return models, problems


def diagnose() -> dict[str, Any]:
    from app.services.system_libraries import install_hint, missing_window_libraries
    from inference.engines.llama_build import rebuild_advice
    from inference.models.catalog import CPU_TIER_GB, best_tier, for_tier
    from inference.models.download import models_dir
    from inference.planning.plan import GIB

    problems: list[Problem] = []
    window_missing = missing_window_libraries()
    if window_missing:
        problems.append(
            Problem(
                "error",
                f"The desktop window cannot start: missing system libraries {', '.join(window_missing)}.",
                install_hint(window_missing) + " The command line works without them.",
            )
        )
    llama = check_llama_cpp()
    gpu = check_gpu()
    folder = models_dir()
    models, model_problems = check_models(folder)
    problems += model_problems

    variant = "cuda" if llama.get("cuda") else "cpu"
    build = llama["build"]
    if build["cpu_floor_problem"]:
        problems.append(Problem("error", build["cpu_floor_problem"], "Use a model server (--remote URL)."))
    elif not llama["installed"]:
        problems.append(
            Problem("error", f"llama.cpp (llama-cpp-python) cannot be loaded: {llama['error']}", rebuild_advice())
        )
    for build_problem in build["problems"]:
        problems.append(Problem("warning", f"{build_problem}.", rebuild_advice(variant)))
    if not gpu["available"]:
        problems.append(
            Problem(
                "warning",
                f"{gpu['reason'][:1].upper()}{gpu['reason'][1:]}.",
                "Models run on the CPU (slow beyond small models). If this machine has an NVIDIA "
                "GPU, install or update its driver, then run pagewise doctor again.",
            )
        )
    elif llama.get("installed") and not llama.get("gpu_offload"):
        problems.append(
            Problem(
                "error",
                "An NVIDIA GPU is present but this llama.cpp was built without GPU support: the GPU will not be used.",
                rebuild_advice("cuda"),
            )
        )
    tier = None
    if gpu.get("free_bytes") is not None:
        tier = best_tier(int(gpu["total_bytes"]))
        free_gib = gpu["free_bytes"] / GIB
        if tier is None:
            problems.append(
                Problem(
                    "warning",
                    f"The GPU has {gpu['total_bytes'] / GIB:.1f} GiB: below the smallest tier (8 GB).",
                    f"Use a small model (recommended: {for_tier(CPU_TIER_GB)[0].filename}); "
                    "pagewise plan shows how many layers fit.",
                )
            )
        elif free_gib < 0.8 * gpu["total_bytes"] / GIB:
            problems.append(
                Problem(
                    "info",
                    f"Only {free_gib:.1f} GiB of GPU memory is free; other programs hold the rest.",
                    "Close programs using the GPU (browsers, games) for longer contexts and more speed.",
                )
            )
    if not models:
        recommended = for_tier(tier or CPU_TIER_GB)  # no usable GPU: the small model
        suggestion = ", ".join(f"{e.repo}/{e.filename}" for e in recommended[:2])
        problems.append(
            Problem(
                "warning",
                f"No model in {folder}.",
                f"Download a GGUF instruct model into that folder (recommended here: {suggestion}), "
                "or pass --model PATH.",
            )
        )
    return {
        "ok": not any(p.severity == "error" for p in problems),
        "llama_cpp": llama,
        "gpu": gpu,
        "tier_gb": tier,
        "recommended": [e.to_json() for e in for_tier(tier or CPU_TIER_GB)],
        "models_dir": str(folder),
        "models": models,
        "window_libraries_missing": window_missing,
        "problems": [p.to_json() for p in problems],
    }


def run(args: argparse.Namespace) -> int:
    from inference.engines.llama_build import describe_record

    report = diagnose()
    if args.json:
        emit_json(report)
        return 0 if report["ok"] else 1
    llama, gpu = report["llama_cpp"], report["gpu"]
    if llama["installed"]:
        backend = "GPU offload" if llama["gpu_offload"] else "CPU only"
        print(f"llama.cpp    llama-cpp-python {llama['version']} ({backend})")
        print(f"CPU code     {' '.join(llama.get('cpu_features', [])) or 'none reported'}")
    else:
        print("llama.cpp    not loadable")
    print(f"Built with   {describe_record(llama['build']['record'])}")
    if gpu["available"]:
        gib = 1024**3
        print(
            f"GPU          {gpu.get('name', '?')} · driver {gpu['driver_version']} · "
            f"{gpu.get('free_bytes', 0) / gib:.1f} of {gpu.get('total_bytes', 0) / gib:.1f} GiB free"
        )
    else:
        print(f"GPU          none ({gpu['reason']})")
    if report["tier_gb"]:
        print(f"Tier         {report['tier_gb']} GB models")
    print(f"Models       {len(report['models'])} in {report['models_dir']}")
    for model in report["models"]:
        mark = "ok" if model["ok"] else "damaged"
        print(f"             {Path(model['path']).name} ({model['size_bytes'] / 1024**3:.1f} GiB, {mark})")
    if not report["problems"]:
        print("No problems found.")
    for problem in report["problems"]:
        print(f"\n[{problem['severity']}] {problem['problem']}\n  → {problem['fix']}")
    return 0 if report["ok"] else 1

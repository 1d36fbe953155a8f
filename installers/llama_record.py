"""The build record of a Pagewise llama-cpp-python, for installers/install_llama_cpp.sh and
installers/build_windows.ps1 (one implementation of the options' hash and the record's form):

    python installers/llama_record.py key --version 0.3.36 --args "-DGGML_NATIVE=OFF ..."
    python installers/llama_record.py write --variant cpu --version 0.3.36 --args "..."

``key`` prints the hash that names the wheel's cache folder; ``write`` writes
``llama_cpp/pagewise-build.json`` into the installed package of the Python running it
(inference/engines/llama_build.py reads it).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import platform
import sys
from pathlib import Path


def options_key(version: str, args: str) -> str:
    text = f"llama-cpp-python=={version}\n{' '.join(args.split())}\n{platform.system()} {platform.machine()}\n"
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:12]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("action", choices=["key", "write"])
    parser.add_argument("--version", required=True)
    parser.add_argument("--args", required=True, help="the CMake options, as one string")
    parser.add_argument("--variant", default="cpu")
    options = parser.parse_args()
    key = options_key(options.version, options.args)
    if options.action == "key":
        print(key)
        return 0
    spec = importlib.util.find_spec("llama_cpp")
    if spec is None or not spec.submodule_search_locations:
        print("llama_record.py: llama-cpp-python is not installed", file=sys.stderr)
        return 1
    package = Path(next(iter(spec.submodule_search_locations)))
    # The libraries' hashes: a later plain `pip install llama-cpp-python` replaces them but leaves
    # this file behind, and inference/engines/llama_build.py then sees that the record no longer holds.
    libraries = {
        lib.name: hashlib.sha256(lib.read_bytes()).hexdigest()
        for lib in sorted((package / "lib").glob("*.so")) + sorted((package / "lib").glob("*.dll"))
        if lib.name.startswith(("libllama", "libggml-cpu", "llama", "ggml-cpu"))
    }
    record = {
        "llama_cpp_python": options.version,
        "variant": options.variant,
        "cmake_args": options.args.split(),
        "options_key": key,
        "built_by": "installers/install_llama_cpp.sh",
        "libraries": libraries,
    }
    (package / "pagewise-build.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    print(f"llama-cpp-python {options.version} ({options.variant}, options {key}) installed")
    return 0


if __name__ == "__main__":
    sys.exit(main())

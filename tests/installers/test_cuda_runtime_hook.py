"""The CUDA bundle's runtime hook (installers/rthooks/pyi_rth_pagewise_cuda.py): which libggml it
asks to load the backends, and which driver its notice names. Run in a child process: the hook
changes the import system and the environment of the process that runs it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HOOK = ROOT / "installers" / "rthooks" / "pyi_rth_pagewise_cuda.py"

PROBE = """
import json, runpy, sys
from pathlib import Path
sys._MEIPASS = sys.argv[2]
hook = runpy.run_path(sys.argv[1])
folder = Path(sys.argv[2]) / "llama_cpp" / "lib"
print(json.dumps({"ggml": hook["_ggml_library"](folder).name, "driver": hook["_min_driver"]()}))
"""


def probe(tmp_path: Path, files: list[str]) -> dict[str, str]:
    lib = tmp_path / "llama_cpp" / "lib"
    lib.mkdir(parents=True)
    for name in files:
        (lib / name).write_bytes(b"\x7fELF")
    out = subprocess.run(
        [sys.executable, "-c", PROBE, str(HOOK), str(tmp_path)], capture_output=True, text=True, check=True
    )
    result: dict[str, str] = json.loads(out.stdout.splitlines()[-1])
    return result


def test_the_backends_load_through_the_libggml_that_libllama_needs(tmp_path: Path) -> None:
    # A wheel holds three copies; libllama's NEEDED entry names the SONAME file, libggml.so.0.
    # Loading libggml.so made a second backend registry: "no backends are loaded" on the GPU.
    found = probe(tmp_path, ["libggml.so", "libggml.so.0", "libggml.so.0.25.3", "libcudart.so.13"])
    assert found == {"ggml": "libggml.so.0", "driver": "580 (CUDA 13)"}


def test_a_cuda_12_bundle_names_driver_525(tmp_path: Path) -> None:
    assert probe(tmp_path, ["libggml.so", "libcudart.so.12"]) == {"ggml": "libggml.so", "driver": "525 (CUDA 12)"}


GLOBAL_PROBE = """
import ctypes, json, runpy, sys
sys._MEIPASS = sys.argv[2]
runpy.run_path(sys.argv[1])
maps = sorted({line.split()[-1] for line in open("/proc/self/maps") if "libstdc++" in line})
# dlopen(NULL) looks in the global scope only: the program and RTLD_GLOBAL libraries.
print(json.dumps({"maps": maps, "global": hasattr(ctypes.CDLL(None), "_ZNSt6locale7classicEv")}))
"""


def test_libstdcxx_is_shared_globally_and_the_bundled_copy_comes_first(tmp_path: Path) -> None:
    # On the GPU machine a libggml with a static libstdc++ inside took libllama's locale symbols,
    # and the tokenizer's std::regex crashed while loading the vocabulary; libstdc++ in the
    # global scope fixed it. In the bundle, its own copy (in _MEIPASS) is the one loaded.
    locate = (
        "import ctypes; ctypes.CDLL('libstdc++.so.6');"
        "print(next(l.split()[-1] for l in open('/proc/self/maps') if 'libstdc++' in l))"
    )
    found_system = subprocess.run([sys.executable, "-c", locate], capture_output=True, text=True, check=True)
    system = Path(found_system.stdout.strip())
    bundled = tmp_path / "libstdc++.so.6"
    bundled.write_bytes(system.read_bytes())
    out = subprocess.run(
        [sys.executable, "-c", GLOBAL_PROBE, str(HOOK), str(tmp_path)], capture_output=True, text=True, check=True
    )
    found = json.loads(out.stdout.splitlines()[-1])
    assert found == {"maps": [str(bundled)], "global": True}

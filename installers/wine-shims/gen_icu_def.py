#!/usr/bin/env python3
"""gen_icu_def.py icuuc77.dll 77 OUT.def: Windows-style plain names forwarded to ICU's versioned ones."""

import sys
import pefile

dll, ver, out = sys.argv[1:4]
pe = pefile.PE(dll, fast_load=True)
pe.parse_data_directories(directories=[pefile.DIRECTORY_ENTRY["IMAGE_DIRECTORY_ENTRY_EXPORT"]])
mod = dll.rsplit("/", 1)[-1].rsplit(".", 1)[0]
suffix = "_" + ver
lines = ["LIBRARY icuuc", "EXPORTS"]
n = 0
for e in pe.DIRECTORY_ENTRY_EXPORT.symbols:
    name = e.name.decode() if e.name else ""
    if name.endswith(suffix):
        lines.append(f"  {name[: -len(suffix)]} = {mod}.{name}")
        n += 1
open(out, "w").write("\n".join(lines) + "\n")
print(f"{out}: {n} forwarders to {mod}")

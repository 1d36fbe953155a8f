#!/usr/bin/env python3
"""gen_forward_def.py WINE_DLL LIBNAME TARGET SHIM.o OUT.def
Export every shim_X defined in SHIM.o as X; forward every other export of WINE_DLL to TARGET.X."""

import re, sys
import pefile

wine_dll, libname, target, csrc, out = sys.argv[1:6]
import subprocess

# the shim_ functions the object file defines (macros make most of them, so not read from the source)
nm = subprocess.run(
    ["x86_64-w64-mingw32-nm", "--defined-only", csrc], check=True, capture_output=True, text=True
).stdout
shims = {
    l.split()[-1][5:]
    for l in nm.splitlines()
    if l.split() and l.split()[-2:-1] == ["T"] and l.split()[-1].startswith("shim_")
}
pe = pefile.PE(wine_dll, fast_load=True)
pe.parse_data_directories(directories=[pefile.DIRECTORY_ENTRY["IMAGE_DIRECTORY_ENTRY_EXPORT"]])
names = [e.name.decode() for e in pe.DIRECTORY_ENTRY_EXPORT.symbols if e.name]
missing = shims - set(names)
lines = [f"LIBRARY {libname}", "EXPORTS"]
for n in names:
    lines.append(f"  {n} = shim_{n}" if n in shims else f"  {n} = {target}.{n}")
for n in sorted(missing):  # shims for names Wine does not export at all
    lines.append(f"  {n} = shim_{n}")
open(out, "w").write("\n".join(lines) + "\n")
print(
    f"{out}: {len(shims)} implemented ({len(missing)} not exported by Wine), {len(names) - len(shims & set(names))} forwarded to {target}"
)

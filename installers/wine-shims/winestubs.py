#!/usr/bin/env python3
"""List the Wine stubs (and missing exports) that a tree of PE files imports.

    winestubs.py WINE_SRC_DLLS_DIR TREE [TREE...] [--native DIR ...] [--known FILE]

WINE_SRC_DLLS_DIR is dlls/ of the Wine source of the Wine that runs the tree (its .spec files
say which exports are '@ stub'). Every import of every .dll/.pyd/.exe under the trees whose DLL
is not itself in the trees (nor in a --native folder, e.g. the prefix's system32 shims) is looked
up in Wine's spec, through the api-set schema and forwards. Prints one line per stubbed or
missing function with the files importing it; exit status 1 if any that --known FILE does not
list (one `dll!function` or `dll` a line, # comments: imports checked to be never called here).
"""

import collections
import os
import re
import sys

import pefile


# the de-marked copies of Wine's DLLs that the shims forward to
WINE_COPIES = {"ucrtwine": "ucrtbase", "mscmswine": "mscms"}


def norm_apiset(name):
    name = name.lower()
    if name.endswith(".dll"):
        name = name[:-4]
    return re.sub(r"-\d+$", "", name)


class Wine:
    def __init__(self, dlls):
        self.dlls = dlls
        self.specs = {}
        self.apisets = {}
        for line in open(os.path.join(dlls, "apisetschema", "apisetschema.spec")):
            m = re.match(r"apiset\s+(\S+)\s*=\s*(\S+)", line)
            if m:
                self.apisets[norm_apiset(m.group(1))] = m.group(2).lower()

    def spec(self, dll):
        dll = dll.lower()
        if dll.endswith(".dll"):
            dll = dll[:-4]
        if dll not in self.specs:
            entries = {}
            path = os.path.join(self.dlls, dll, dll + ".spec")
            if os.path.exists(path):
                for raw in open(path, errors="replace"):
                    line = raw.split("#", 1)[0].strip()
                    if not line:
                        continue
                    tok = line.split()
                    if len(tok) < 3:
                        continue
                    kind = tok[1]
                    rest = [t for t in tok[2:] if not t.startswith("-")]
                    if not rest:
                        continue
                    name = rest[0].split("(", 1)[0]
                    forward = None
                    if kind in ("stdcall", "cdecl", "varargs", "thiscall", "fastcall"):
                        after = line.split(")", 1)[1].strip() if ")" in line else ""
                        forward = after.split()[0] if after else None
                    elif kind == "extern":
                        forward = rest[1] if len(rest) > 1 else None
                    entries[name] = (kind, forward)
                self.specs[dll] = entries
            else:
                self.specs[dll] = None
        return self.specs[dll]

    def resolve(self, dll, func, depth=0):
        """'ok', 'stub', 'missing' or 'nodll' for dll!func."""
        key = norm_apiset(dll)
        if key.startswith(("api-ms-", "ext-ms-")):
            target = self.apisets.get(key)
            if not target:
                return "nodll"
            dll = target
        entries = self.spec(dll)
        if entries is None:
            return "nodll"
        if func not in entries:
            return "missing"
        kind, forward = entries[func]
        if kind == "stub":
            return "stub"
        if forward and "." in forward and depth < 5:
            fdll, ffunc = forward.rsplit(".", 1)
            if fdll.lower() != dll.lower().removesuffix(".dll"):
                return self.resolve(fdll + ".dll", ffunc, depth + 1)
        return "ok"


def pe_files(trees):
    for tree in trees:
        for dirpath, _, files in os.walk(tree):
            for f in files:
                if f.lower().endswith((".dll", ".pyd", ".exe")):
                    yield os.path.join(dirpath, f)


def main(argv):
    native = []
    args = []
    known = set()
    it = iter(argv[1:])
    for a in it:
        if a == "--native":
            native.append(next(it))
        elif a == "--known":
            for line in open(next(it)):
                line = line.split("#", 1)[0].strip().lower()
                if line:
                    known.add(line)
        else:
            args.append(a)
    wine = Wine(args[0])
    trees = args[1:]
    present = {os.path.basename(p).lower() for p in pe_files(trees + native)}
    shimmed = {}  # exports of the --native DLLs (the shims) count as implemented
    for folder in native:
        for p in pe_files([folder]):
            try:
                pe = pefile.PE(p, fast_load=True)
                pe.parse_data_directories(directories=[pefile.DIRECTORY_ENTRY["IMAGE_DIRECTORY_ENTRY_EXPORT"]])
                shimmed[os.path.basename(p).lower()] = {
                    e.name.decode(): (e.forwarder.decode() if e.forwarder else None)
                    for e in pe.DIRECTORY_ENTRY_EXPORT.symbols
                    if e.name
                }
            except (pefile.PEFormatError, AttributeError):
                pass
    hits = collections.defaultdict(set)
    nodll = collections.defaultdict(set)
    for path in pe_files(trees):
        try:
            pe = pefile.PE(path, fast_load=True)
            pe.parse_data_directories(
                directories=[
                    pefile.DIRECTORY_ENTRY["IMAGE_DIRECTORY_ENTRY_IMPORT"],
                    pefile.DIRECTORY_ENTRY["IMAGE_DIRECTORY_ENTRY_DELAY_IMPORT"],
                ]
            )
        except pefile.PEFormatError:
            continue
        rel = os.path.relpath(path, trees[0]) if len(trees) == 1 else path
        for attr in ("DIRECTORY_ENTRY_IMPORT", "DIRECTORY_ENTRY_DELAY_IMPORT"):
            for entry in getattr(pe, attr, []):
                dll = entry.dll.decode(errors="replace")
                if dll.lower() in present and dll.lower() not in shimmed:
                    continue
                for imp in entry.imports:
                    if not imp.name:
                        continue
                    func = imp.name.decode(errors="replace")
                    target = dll.lower()
                    if norm_apiset(target) in wine.apisets:
                        target = wine.apisets[norm_apiset(target)]
                    if target in shimmed:
                        exports = shimmed[target]
                        if func not in exports:
                            hits[("missing", dll.lower(), func)].add(rel)
                        elif exports[func]:  # forwarded: to Wine's own copy (a stub there stays a stub)
                            tdll, tfunc = exports[func].rsplit(".", 1)
                            tdll = WINE_COPIES.get(tdll.lower(), tdll)
                            if wine.spec(tdll) is not None:
                                r = wine.resolve(tdll + ".dll", tfunc)
                                if r in ("stub", "missing"):
                                    hits[(r, dll.lower(), func)].add(rel)
                        continue
                    r = wine.resolve(dll, func)
                    if r in ("stub", "missing"):
                        hits[(r, dll.lower(), func)].add(rel + (" (delay-load)" if "DELAY" in attr else ""))
                    elif r == "nodll":
                        nodll[dll.lower()].add(rel)
    new = 0
    for (r, dll, func), files in sorted(hits.items()):
        fl = sorted(files)
        is_known = f"{dll}!{func}".lower() in known
        new += not is_known
        print(
            f"{r.upper():8} {dll}!{func}  <- {', '.join(fl[:3])}{' ...+%d' % (len(fl) - 3) if len(fl) > 3 else ''}"
            + ("  (known, not called)" if is_known else "  NEW")
        )
    for dll, files in sorted(nodll.items()):
        fl = sorted(files)
        is_known = dll.lower() in known
        new += not is_known
        print(
            f"NODLL    {dll}  <- {', '.join(fl[:3])}{' ...+%d' % (len(fl) - 3) if len(fl) > 3 else ''}"
            + ("  (known, not called)" if is_known else "  NEW")
        )
    print(
        f"{len(hits)} stubbed/missing imports, {len(nodll)} DLLs Wine lacks, {new} not on the known list",
        file=sys.stderr,
    )
    return 1 if new else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

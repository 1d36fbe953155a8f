#!/usr/bin/env python3
"""The paths of a Windows bundle against Windows' 260-character limit (MAX_PATH).

    bundle_paths.py BUNDLE --max-install-dir   # prints the longest install folder the bundle allows
    bundle_paths.py BUNDLE --longest 10        # the ten deepest files, with their lengths

A file's Windows path is INSTALL_DIR + "\\" + its path below the bundle; MAX_PATH is 260 with the
terminating NUL, so the install folder may be at most 259 - 1 - the longest relative path.
Python on Windows opens files past it only where the system enables long paths (off by default),
and LoadLibrary never does: a DLL past it fails with [WinError 234] (the Wine smoke test).
pagewise.nsi refuses a deeper folder (MAX_INSTDIR); the build scripts pass this number.
"""

from __future__ import annotations

import argparse
import os
import sys

MAX_PATH_CHARS = 259  # MAX_PATH (260) less the terminating NUL


def relative_paths(bundle: str) -> list[str]:
    """Every file below BUNDLE, as a Windows relative path."""
    found = []
    for folder, _dirs, files in os.walk(bundle):
        for name in files:
            rel = os.path.relpath(os.path.join(folder, name), bundle)
            found.append(rel.replace("/", "\\"))
    return found


def max_install_dir(paths: list[str]) -> int:
    return MAX_PATH_CHARS - 1 - max(len(p) for p in paths)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bundle")
    parser.add_argument("--max-install-dir", action="store_true")
    parser.add_argument("--longest", type=int, default=0)
    args = parser.parse_args(argv)
    paths = relative_paths(args.bundle)
    if not paths:
        print(f"bundle_paths.py: no files below {args.bundle}", file=sys.stderr)
        return 2
    if args.max_install_dir:
        print(max_install_dir(paths))
    for rel in sorted(paths, key=len, reverse=True)[: args.longest]:
        print(f"{len(rel):4d}  {rel}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Check that a Windows bundle carries every DLL it needs, from Linux (issue 45, "no false pass").

Wine supplies its own msvcp140, vcruntime140, the UCRT and more, so a bundle can pass its
self-test under Wine and still fail on a clean Windows. This reads the import table of every PE
file in the bundle (``.exe``, ``.dll``, ``.pyd``; with ``objdump -p``, from Debian's binutils or
binutils-mingw-w64) and fails unless each DLL it imports is in the bundle or on the written list of
DLLs every Windows 10 has (``installers/windows10-system-dlls.txt``)::

    python3 installers/check_dlls.py build/windows-wine/dist/pagewise

A DLL found anywhere in the bundle counts as present: the check is about what a clean Windows
lacks, not about the search path (the self-test covers that). Exit status 0 when everything is
accounted for, 1 when something is missing, 2 when the check itself cannot run.
"""

from __future__ import annotations

import argparse
import fnmatch
import re
import shutil
import subprocess
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

SYSTEM_LIST = Path(__file__).with_name("windows10-system-dlls.txt")
PE_SUFFIXES = (".exe", ".dll", ".pyd")
# "DLL Name: KERNEL32.dll" in the import tables; objdump prints the same line for delay-loaded
# imports ("The Delay Import Tables"), which a clean Windows must resolve just the same when called.
_DLL_NAME = re.compile(r"^\s*DLL Name:\s*(\S+)\s*$", re.MULTILINE)


@dataclass(frozen=True)
class MissingImport:
    """A DLL that ``importer`` imports, found neither in the bundle nor on the Windows 10 list."""

    importer: str
    dll: str


@dataclass(frozen=True)
class CheckResult:
    files_checked: int
    imports_in_bundle: frozenset[str]
    imports_from_windows: frozenset[str]
    missing: tuple[MissingImport, ...]

    @property
    def ok(self) -> bool:
        return not self.missing


def parse_imports(objdump_output: str) -> list[str]:
    """The DLL names in ``objdump -p`` output, in order, each once (as spelled in the file)."""
    seen: dict[str, str] = {}
    for name in _DLL_NAME.findall(objdump_output):
        seen.setdefault(name.lower(), name)
    return list(seen.values())


def read_system_list(text: str) -> list[str]:
    """The names and shell patterns of the Windows 10 list, lower case, comments dropped."""
    patterns = []
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            patterns.append(line.lower())
    return patterns


def is_windows_dll(dll: str, system_patterns: Iterable[str]) -> bool:
    name = dll.lower()
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in system_patterns)


def check_imports(
    imports_by_file: Mapping[str, Iterable[str]],
    bundle_names: Iterable[str],
    system_patterns: Iterable[str],
) -> CheckResult:
    """Decide, for every import of every file, whether the bundle or Windows provides it.

    ``bundle_names`` are the file names in the bundle (any folder); a DLL the bundle carries is
    taken from the bundle even when it also has a Windows name, since that copy is the one loaded.
    """
    in_bundle = {name.lower() for name in bundle_names}
    patterns = list(system_patterns)
    from_bundle: set[str] = set()
    from_windows: set[str] = set()
    missing: list[MissingImport] = []
    for importer in sorted(imports_by_file):
        for dll in imports_by_file[importer]:
            name = dll.lower()
            if name in in_bundle:
                from_bundle.add(name)
            elif is_windows_dll(name, patterns):
                from_windows.add(name)
            else:
                missing.append(MissingImport(importer, dll))
    return CheckResult(
        files_checked=len(imports_by_file),
        imports_in_bundle=frozenset(from_bundle),
        imports_from_windows=frozenset(from_windows),
        missing=tuple(missing),
    )


def find_pe_files(bundle: Path) -> list[Path]:
    return sorted(path for path in bundle.rglob("*") if path.is_file() and path.suffix.lower() in PE_SUFFIXES)


def find_objdump() -> str | None:
    for name in ("x86_64-w64-mingw32-objdump", "objdump"):
        found = shutil.which(name)
        if found:
            return found
    return None


def read_imports(objdump: str, path: Path) -> list[str] | None:
    """The DLLs ``path`` imports; None for a file this objdump cannot read (setuptools ships
    ``cli-arm64.exe`` launchers, which an x86-64 Windows never runs)."""
    done = subprocess.run([objdump, "-p", str(path)], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        if "file format not recognized" in done.stderr:
            return None
        raise RuntimeError(f"objdump could not read {path}: {done.stderr.strip()}")
    return parse_imports(done.stdout)


def report(result: CheckResult, bundle: Path) -> str:
    lines = [
        f"{bundle}: {result.files_checked} PE files; "
        f"{len(result.imports_in_bundle)} DLLs imported from the bundle, "
        f"{len(result.imports_from_windows)} from Windows 10 itself, "
        f"{len(result.missing)} imports missing"
    ]
    lines.append("  from Windows: " + ", ".join(sorted(result.imports_from_windows)))
    for item in result.missing:
        lines.append(
            f"  MISSING {item.dll} (imported by {item.importer}): not in the bundle and not a DLL "
            f"every Windows 10 has; ship it in the bundle (or, if Windows 10 does have it, add it "
            f"to {SYSTEM_LIST.name})"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bundle", type=Path, help="the folder to check (a PyInstaller bundle)")
    parser.add_argument("--system-list", type=Path, default=SYSTEM_LIST)
    options = parser.parse_args(argv)
    objdump = find_objdump()
    if objdump is None:
        print("check_dlls.py: no objdump; install binutils or binutils-mingw-w64", file=sys.stderr)
        return 2
    if not options.bundle.is_dir():
        print(f"check_dlls.py: {options.bundle} is not a folder", file=sys.stderr)
        return 2
    pe_files = find_pe_files(options.bundle)
    if not pe_files:
        print(f"check_dlls.py: no .exe, .dll or .pyd in {options.bundle}", file=sys.stderr)
        return 2
    imports: dict[str, list[str]] = {}
    for path in pe_files:
        found = read_imports(objdump, path)
        if found is None:
            print(f"  skipped {path.relative_to(options.bundle)}: not a PE file for x86-64 (objdump cannot read it)")
        else:
            imports[str(path.relative_to(options.bundle))] = found
    bundle_names = [path.name for path in options.bundle.rglob("*") if path.is_file()]
    patterns = read_system_list(options.system_list.read_text(encoding="utf-8"))
    result = check_imports(imports, bundle_names, patterns)
    print(report(result, options.bundle))
    return 0 if result.ok else 1


if __name__ == "__main__":
    sys.exit(main())

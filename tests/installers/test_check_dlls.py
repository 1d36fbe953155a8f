"""The Windows bundle's DLL check (installers/check_dlls.py): reading objdump's import tables and
deciding, per import, whether the bundle or every Windows 10 provides it (issue 45)."""

from __future__ import annotations

import importlib.util
import stat
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("check_dlls", ROOT / "installers" / "check_dlls.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


check_dlls = _load()

# Trimmed from `objdump -p` of a MinGW-built libllama.dll: two import tables, one delay-loaded.
OBJDUMP_LLAMA = """
libllama.dll:     file format pei-x86-64

The Import Tables (interpreted .idata section contents)
 vma:            Hint    Time      Forward  DLL       First
                 Table   Stamp     Chain    Name      Thunk
 00180000       0018011c 00000000 00000000 00181e40 00180a3c

\tDLL Name: libggml-base.dll
\tvma:  Hint/Ord Member-Name Bound-To
\t180f50      12  ggml_add

 00180014       00180180 00000000 00000000 00181f10 00180aa0

\tDLL Name: KERNEL32.dll
\tvma:  Hint/Ord Member-Name Bound-To
\t181000     300  GetProcAddress

\tDLL Name: libgomp-1.dll
\tDLL Name: msvcrt.dll
\tDLL Name: libstdc++-6.dll

The Delay Import Tables (interpreted .didat section contents)
\tDLL Name: kernel32.dll
\tDLL Name: api-ms-win-crt-runtime-l1-1-0.dll
"""

SYSTEM_LIST = """
# a comment line
ucrtbase.dll
api-ms-win-*.dll   # the API sets
KERNEL32.dll
msvcrt.dll

"""


def test_parse_imports_reads_both_tables_once_each_in_order() -> None:
    assert check_dlls.parse_imports(OBJDUMP_LLAMA) == [
        "libggml-base.dll",
        "KERNEL32.dll",
        "libgomp-1.dll",
        "msvcrt.dll",
        "libstdc++-6.dll",
        "api-ms-win-crt-runtime-l1-1-0.dll",
    ]


def test_parse_imports_of_a_file_without_imports_is_empty() -> None:
    assert check_dlls.parse_imports("data.dll:     file format pei-x86-64\n\nThe Export Tables\n") == []


def test_read_system_list_drops_comments_and_lowers_case() -> None:
    assert check_dlls.read_system_list(SYSTEM_LIST) == [
        "ucrtbase.dll",
        "api-ms-win-*.dll",
        "kernel32.dll",
        "msvcrt.dll",
    ]


def test_every_import_accounted_for_passes() -> None:
    patterns = check_dlls.read_system_list(SYSTEM_LIST)
    imports = {"llama_cpp/lib/libllama.dll": check_dlls.parse_imports(OBJDUMP_LLAMA)}
    bundle = ["libllama.dll", "LIBGGML-BASE.DLL", "libgomp-1.dll", "libstdc++-6.dll"]
    result = check_dlls.check_imports(imports, bundle, patterns)
    assert result.ok
    assert result.imports_in_bundle == {"libggml-base.dll", "libgomp-1.dll", "libstdc++-6.dll"}
    assert result.imports_from_windows == {"kernel32.dll", "msvcrt.dll", "api-ms-win-crt-runtime-l1-1-0.dll"}


def test_a_dll_left_out_of_the_bundle_fails_with_its_importer() -> None:
    patterns = check_dlls.read_system_list(SYSTEM_LIST)
    imports = {
        "llama_cpp/lib/libllama.dll": check_dlls.parse_imports(OBJDUMP_LLAMA),
        "faiss/_swigfaiss.pyd": ["MSVCP140.dll", "KERNEL32.dll"],
    }
    bundle = ["libllama.dll", "libggml-base.dll", "libstdc++-6.dll"]
    result = check_dlls.check_imports(imports, bundle, patterns)
    assert not result.ok
    assert result.missing == (
        check_dlls.MissingImport("faiss/_swigfaiss.pyd", "MSVCP140.dll"),
        check_dlls.MissingImport("llama_cpp/lib/libllama.dll", "libgomp-1.dll"),
    )


@pytest.mark.parametrize(
    "dll", ["MSVCP140.dll", "VCRUNTIME140_1.dll", "vcomp140.dll", "concrt140.dll", "libgomp-1.dll", "python311.dll"]
)
def test_the_written_list_leaves_out_what_wine_supplies_but_windows_lacks(dll: str) -> None:
    patterns = check_dlls.read_system_list(check_dlls.SYSTEM_LIST.read_text(encoding="utf-8"))
    assert not check_dlls.is_windows_dll(dll, patterns)


@pytest.mark.parametrize(
    "dll", ["KERNEL32.dll", "api-ms-win-crt-heap-l1-1-0.dll", "ucrtbase.dll", "WS2_32.dll", "icuuc.dll"]
)
def test_the_written_list_has_what_every_windows_10_has(dll: str) -> None:
    patterns = check_dlls.read_system_list(check_dlls.SYSTEM_LIST.read_text(encoding="utf-8"))
    assert check_dlls.is_windows_dll(dll, patterns)


def _bundle_with_fake_objdump(tmp_path: Path, files: dict[str, str]) -> tuple[Path, Path]:
    """A bundle whose PE files are placeholders, and an objdump that prints the text given for each."""
    bundle = tmp_path / "bundle"
    answers = tmp_path / "objdump-answers"
    for relative, output in files.items():
        (bundle / relative).parent.mkdir(parents=True, exist_ok=True)
        (bundle / relative).write_bytes(b"MZ")
        answer = answers / relative
        answer.parent.mkdir(parents=True, exist_ok=True)
        answer.write_text(output)
    objdump = tmp_path / "objdump"
    objdump.write_text(f'#!/bin/sh\ncat "{answers}/${{2#{bundle}/}}"\n')
    objdump.chmod(objdump.stat().st_mode | stat.S_IXUSR)
    return bundle, objdump


def test_main_passes_then_fails_when_a_dll_is_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle, objdump = _bundle_with_fake_objdump(
        tmp_path,
        {
            "pagewise-cli.exe": "\tDLL Name: KERNEL32.dll\n\tDLL Name: VCRUNTIME140.dll\n",
            "_internal/VCRUNTIME140.dll": "\tDLL Name: api-ms-win-crt-runtime-l1-1-0.dll\n",
            "_internal/notes.txt": "",
        },
    )
    monkeypatch.setattr(check_dlls, "find_objdump", lambda: str(objdump))
    assert check_dlls.main([str(bundle)]) == 0
    assert "0 imports missing" in capsys.readouterr().out

    (bundle / "_internal" / "VCRUNTIME140.dll").unlink()
    assert check_dlls.main([str(bundle)]) == 1
    assert "MISSING VCRUNTIME140.dll (imported by pagewise-cli.exe)" in capsys.readouterr().out


def test_main_skips_a_pe_file_objdump_cannot_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle, objdump = _bundle_with_fake_objdump(tmp_path, {"app.exe": "\tDLL Name: KERNEL32.dll\n"})
    (bundle / "cli-arm64.exe").write_bytes(b"MZ")
    objdump.write_text(
        objdump.read_text().replace(
            "#!/bin/sh\n",
            '#!/bin/sh\ncase "$2" in *arm64*) echo "$2: file format not recognized" >&2; exit 1;; esac\n',
        )
    )
    monkeypatch.setattr(check_dlls, "find_objdump", lambda: str(objdump))
    assert check_dlls.main([str(bundle)]) == 0
    out = capsys.readouterr().out
    assert "skipped cli-arm64.exe" in out
    assert "1 PE files" in out


def test_main_refuses_a_folder_without_pe_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(check_dlls, "find_objdump", lambda: "/bin/true")
    (tmp_path / "readme.txt").write_text("no binaries")
    assert check_dlls.main([str(tmp_path)]) == 2
    assert "no .exe, .dll or .pyd" in capsys.readouterr().err

"""Folding the bundled packages' licence trees into THIRD_PARTY_LICENSES.txt
(installers/third_party_licenses.py, called by pagewise.spec) and what it does to the longest
install folder Windows allows (installers/bundle_paths.py), on a fake site-packages: no
PyInstaller, no Windows build (issue 54)."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "installers" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


licences = _load("third_party_licenses")
bundle_paths = _load("bundle_paths")

DEEP = "third_party/kineto/libkineto/third_party/dynolog/third_party/prometheus-cpp/3rdparty/civetweb/src/third_party/duktape-1.8.0/LICENSE.txt"  # noqa: E501


def _site(tmp_path: Path) -> Path:
    """A site-packages with a torch-like deep licence tree, a flat one, and a Latin-1 file."""
    site = tmp_path / "site-packages"
    torch = site / "torch-2.13.0.dist-info"
    (torch / "licenses" / DEEP).parent.mkdir(parents=True)
    (torch / "METADATA").write_text("Metadata-Version: 2.4\nName: torch\nVersion: 2.13.0\n\nLicense: see below\n")
    (torch / "licenses" / "LICENSE").write_text("From PyTorch:\nCopyright (c) 2016- Facebook, Inc\n")
    (torch / "licenses" / DEEP).write_text("Duktape copyright 2013-2017 Sami Vaarala\n")
    (torch / "RECORD").write_text("torch/__init__.py,,\n")
    numpy = site / "numpy-2.4.6.dist-info"
    (numpy / "licenses" / "numpy" / "random" / "src").mkdir(parents=True)
    (numpy / "METADATA").write_text("Metadata-Version: 2.4\nName: numpy\nVersion: 2.4.6\n")
    (numpy / "licenses" / "LICENSE.txt").write_bytes(b"NumPy BSD licence\r\nline two\r\n")  # as in Windows wheels
    (numpy / "licenses" / "numpy" / "random" / "src" / "LICENSE.md").write_bytes(
        "Copyright Pierre L\xe9cuyer\n".encode("latin-1")
    )
    # No METADATA: the name and version come from the folder's name.
    bare = site / "some_pkg-1.0.dist-info" / "licenses"
    bare.mkdir(parents=True)
    (bare / "COPYING").write_text("MIT\n")
    (site / "torch" / "lib").mkdir(parents=True)
    (site / "torch" / "lib" / "torch_cpu.dll").write_bytes(b"MZ")
    return site


def _toc(site: Path) -> list[tuple[str, str, str]]:
    """PyInstaller's TOC for the tree: (dest below the bundle's _internal, source, typecode)."""
    return [(str(path.relative_to(site)), str(path), "DATA") for path in sorted(site.rglob("*")) if path.is_file()]


def test_licence_entries_are_recognised_with_either_separator() -> None:
    assert licences.licence_entry("torch-2.13.0.dist-info/licenses/LICENSE") == ("torch-2.13.0.dist-info", "LICENSE")
    assert licences.licence_entry("torch-2.13.0.dist-info\\licenses\\a\\COPYING") == (
        "torch-2.13.0.dist-info",
        "a/COPYING",
    )
    assert licences.licence_entry("torch-2.13.0.dist-info/METADATA") is None
    assert licences.licence_entry("torch-2.13.0.dist-info/LICENSE") is None  # beside METADATA: stays
    assert licences.licence_entry("torch/licenses/LICENSE") is None  # a package's own folder: stays


def test_split_keeps_everything_but_the_licence_trees(tmp_path: Path) -> None:
    toc = _toc(_site(tmp_path))
    kept, folded = licences.split_licences(toc)
    kept_dests = sorted(entry[0].replace("\\", "/") for entry in kept)
    assert kept_dests == [
        "numpy-2.4.6.dist-info/METADATA",
        "torch-2.13.0.dist-info/METADATA",
        "torch-2.13.0.dist-info/RECORD",
        "torch/lib/torch_cpu.dll",
    ]
    assert sorted(folded) == ["numpy-2.4.6.dist-info", "some_pkg-1.0.dist-info", "torch-2.13.0.dist-info"]
    assert sum(len(files) for files in folded.values()) == len(toc) - len(kept)


def test_the_folded_text_has_every_package_and_every_licence_text(tmp_path: Path) -> None:
    site = _site(tmp_path)
    _kept, folded = licences.split_licences(_toc(site))
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    written = licences.write(bundle, folded)
    assert written == bundle / "THIRD_PARTY_LICENSES.txt"
    text = written.read_text(encoding="utf-8")
    for heading in ("torch 2.13.0", "numpy 2.4.6", "some_pkg 1.0"):
        assert f"\n{heading}\n" in text
    # Every licence file's text, whole, under its old path.
    for path in site.rglob("*"):
        if path.is_file() and "/licenses/" in path.as_posix():
            rel = path.as_posix().split("/licenses/", 1)[1]
            assert f": licenses/{rel} -----" in text
            assert licences.read_text(path).strip() in text
    assert "Copyright Pierre L\xe9cuyer" in text  # a Latin-1 file, not dropped or mangled
    # Packages in name order, each file once.
    assert text.index("\nnumpy 2.4.6\n") < text.index("\nsome_pkg 1.0\n") < text.index("\ntorch 2.13.0\n")
    assert text.count("Duktape copyright") == 1
    # Line ends are one kind: a CRLF file does not become CR CR LF when written in text mode.
    assert "\r" not in written.read_bytes().decode("utf-8")
    assert "NumPy BSD licence\nline two\n" in text


def test_name_and_version_from_metadata_headers_only(tmp_path: Path) -> None:
    metadata = tmp_path / "METADATA"
    metadata.write_text("Name: scikit-learn\nVersion: 1.9.1\n\nName: not-a-header\n")
    assert licences.name_and_version("scikit_learn-1.9.1.dist-info", metadata) == ("scikit-learn", "1.9.1")
    assert licences.name_and_version("scikit_learn-1.9.1.dist-info", None) == ("scikit_learn", "1.9.1")


def test_folding_raises_the_longest_install_folder(tmp_path: Path) -> None:
    """The bundle as COLLECT lays it out (files below _internal), before and after the folding:
    the deep licence file set the limit; without it the deepest remaining file does."""
    site = _site(tmp_path)
    toc = _toc(site)

    def lay_out(entries: list[tuple[str, str, str]], root: Path) -> Path:
        for dest, source, _typecode in entries:
            target = root / "_internal" / dest
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
        (root / "pagewise.exe").write_bytes(b"MZ")
        return root

    before = lay_out(toc, tmp_path / "before")
    kept, folded = licences.split_licences(toc)
    after = lay_out(kept, tmp_path / "after")
    licences.write(after, folded)

    deep = "_internal\\torch-2.13.0.dist-info\\licenses\\" + DEEP.replace("/", "\\")
    assert len(deep) == 177  # torch's deepest, as in the Windows bundle
    assert bundle_paths.max_install_dir(bundle_paths.relative_paths(str(before))) == 259 - 1 - 177
    after_paths = bundle_paths.relative_paths(str(after))
    assert not [p for p in after_paths if "\\licenses\\" in p]
    deepest_left = max(len(p) for p in after_paths)
    assert deepest_left == len("_internal\\torch-2.13.0.dist-info\\METADATA")
    assert bundle_paths.max_install_dir(after_paths) == 259 - 1 - deepest_left
    assert bundle_paths.main([str(after), "--max-install-dir"]) == 0

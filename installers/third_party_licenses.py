"""Fold the bundled packages' licence trees into one THIRD_PARTY_LICENSES.txt (issue 54).

Wheels keep their licence files in NAME-VERSION.dist-info/licenses/ (PEP 639), under the paths
they had in the source tree: torch's reach 177 characters below the bundle
(``_internal\\torch-2.13.0.dist-info\\licenses\\third_party\\kineto\\...\\duktape-1.8.0\\LICENSE.txt``),
and the deepest file of a Windows bundle sets the longest install folder Windows' 260-character
path limit allows (installers/bundle_paths.py; pagewise.nsi refuses a deeper one). pagewise.spec
takes those files out of the bundle (``split_licences``) and writes their texts, nothing left out,
into THIRD_PARTY_LICENSES.txt at the bundle root (``fold_text``): per package its name and version
(from the dist-info's METADATA), then each licence file's text under its old path. The rest of
each dist-info folder (METADATA, which importlib.metadata reads at run time) stays where it was.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

FILE_NAME = "THIRD_PARTY_LICENSES.txt"
_LICENCE_TREE = re.compile(r"^(?P<distinfo>[^/]+\.dist-info)/licenses/(?P<rel>.+)$")

# {dist-info folder name: [(path below its licenses/ folder, source file on the build machine), ...]}
Folded = dict[str, list[tuple[str, str]]]


def licence_entry(dest: str) -> tuple[str, str] | None:
    """(dist-info folder, path below licenses/) when the bundle path DEST is a licence tree's file."""
    match = _LICENCE_TREE.match(dest.replace("\\", "/"))
    if match is None:
        return None
    return match["distinfo"], match["rel"]


def split_licences(toc: Iterable[Sequence[Any]]) -> tuple[list[Any], Folded]:
    """PyInstaller TOC entries (dest, source, typecode) without the licence trees, and those trees'
    files by dist-info folder: {dist-info: [(path below licenses/, source file), ...]}."""
    kept: list[Any] = []
    folded: Folded = {}
    for entry in toc:
        found = licence_entry(str(entry[0]))
        if found is None:
            kept.append(entry)
        else:
            folded.setdefault(found[0], []).append((found[1], str(entry[1])))
    return kept, folded


def name_and_version(distinfo: str, metadata: Path | None) -> tuple[str, str]:
    """The package's Name and Version from its METADATA, else from the folder name
    (``torch-2.13.0.dist-info``)."""
    fallback_name, _, fallback_version = distinfo.removesuffix(".dist-info").partition("-")
    name, version = fallback_name, fallback_version
    if metadata is not None and metadata.is_file():
        for line in read_text(metadata).splitlines():
            if not line.strip():
                break  # the headers end at the first empty line; the description follows
            key, _, value = line.partition(":")
            if key == "Name":
                name = value.strip()
            elif key == "Version":
                version = value.strip()
    return name, version


def read_text(path: Path) -> str:
    """A licence file's text: UTF-8, else Latin-1 (which reads any bytes), so no file is lost; its
    line ends as "\n" (Windows wheels carry CRLF files, which the text-mode write would otherwise
    turn into CR CR LF)."""
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _distinfo_folder(source: str, rel: str) -> Path:
    """The dist-info folder on the build machine of a licence file SOURCE at REL below licenses/."""
    return Path(source).parents[len(PurePosixPath(rel).parts)]


def fold_text(folded: Folded) -> str:
    """One text with every package's licence files, packages and files in a stable order."""
    packages = []
    for distinfo, files in folded.items():
        metadata = _distinfo_folder(files[0][1], files[0][0]) / "METADATA"
        name, version = name_and_version(distinfo, metadata)
        packages.append((name.lower(), name, version, distinfo, sorted(files)))
    rule = "=" * 78
    out = [
        "Third-party licences of the packages bundled with Pagewise",
        "",
        "Each package's licence files, which its wheel kept in NAME-VERSION.dist-info/licenses/,",
        "are here in full under their path in that folder (their nested paths were too deep for",
        "Windows' 260-character path limit). Other licence files stay in the packages' own folders.",
        "",
    ]
    for _key, name, version, distinfo, files in sorted(packages):
        out += [rule, f"{name} {version}", f"({distinfo}/licenses/, {len(files)} file(s))", rule, ""]
        for rel, source in files:
            text = read_text(Path(source))
            out += [f"----- {name} {version}: licenses/{rel} -----", "", text.rstrip("\n"), ""]
    return "\n".join(out) + "\n"


def write(bundle: Path, folded: Folded) -> Path:
    """Write THIRD_PARTY_LICENSES.txt at the root of BUNDLE (UTF-8); its path."""
    target = bundle / FILE_NAME
    target.write_text(fold_text(folded), encoding="utf-8")
    return target

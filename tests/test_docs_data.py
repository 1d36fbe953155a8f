"""docs/data holds only files a doc names, in folders named by what they measure (issue 41, part 3).

A file counts as cited when a doc names it by its path (``docs/data/...``) or when the index file
(``README.md``) in its own folder names it. No folder under docs/data and no doc names a work period.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "docs" / "data"
INDEX = "README.md"
PERIOD_FOLDER = re.compile(r"\bs\d{1,2}\b")
PERIOD_TEXT = re.compile(r"\b[Ss]essions? \d+")


def _docs() -> list[Path]:
    """The docs set: docs/**/*.md outside docs/data, README.md, installers/README.md, the model cards."""
    docs = [p for p in (ROOT / "docs").rglob("*.md") if DATA not in p.parents]
    docs += [ROOT / "README.md", ROOT / "installers" / "README.md"]
    docs += sorted((ROOT / "assets" / "models").glob("*/MODEL_CARD.md"))
    return sorted(p for p in docs if p.is_file())


def _data_files() -> list[Path]:
    return sorted(p for p in DATA.rglob("*") if p.is_file())


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _cited(path: Path, doc_text: str) -> bool:
    if re.search(re.escape(_rel(path)) + r"(?![\w.=-])", doc_text):
        return True
    index = path.parent / INDEX
    if path.name == INDEX or not index.is_file():
        return False
    return re.search(r"(?<![\w.=-])" + re.escape(path.name) + r"(?![\w.=-])", index.read_text()) is not None


def test_every_data_file_is_cited() -> None:
    doc_text = "\n".join(p.read_text() for p in _docs())
    uncited = []
    for path in _data_files():
        if path.name == INDEX:
            if not re.search(re.escape(_rel(path.parent)), doc_text):
                uncited.append(f"{_rel(path)} (an index no doc points to: name its folder in a doc)")
        elif not _cited(path, doc_text):
            uncited.append(_rel(path))
    assert not uncited, (
        "files in docs/data that no doc names by their path (nor the README.md index in their folder):\n  "
        + "\n  ".join(uncited)
    )


def test_no_folder_named_by_work_period() -> None:
    folders = sorted(_rel(p) for p in DATA.rglob("*") if p.is_dir() and PERIOD_FOLDER.search(p.name))
    assert not folders, "folders in docs/data named by a work period, not by what they measure:\n  " + "\n  ".join(
        folders
    )


def test_no_doc_names_a_work_period() -> None:
    offending = []
    for doc in _docs() + [p for p in _data_files() if p.suffix == ".md" and p.name == INDEX]:
        for number, line in enumerate(doc.read_text().splitlines(), start=1):
            if PERIOD_TEXT.search(line):
                offending.append(f"{_rel(doc)}:{number}: {line.strip()[:100]}")
    assert not offending, (
        "docs that name a work period (say which command and commit made a figure instead):\n  "
        + "\n  ".join(offending)
    )


PERIOD_PATH = re.compile(r"(?:docs/data|/tmp)/s\d{1,2}\b")


def test_no_data_file_names_a_work_period_folder() -> None:
    """The commands recorded inside the data files name their outputs where they now live.

    Nor a scratch folder named by a work period (/tmp/s19/...): a reader cannot tell what it held,
    so the file says it instead (a "home", "ranker" or "commit" field beside the command).
    """
    offending = [_rel(p) for p in _data_files() if PERIOD_PATH.search(p.read_text(encoding="utf-8", errors="ignore"))]
    assert not offending, "data files that name a docs/data/sNN or /tmp/sNN path:\n  " + "\n  ".join(offending)

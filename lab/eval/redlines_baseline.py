"""python-redlines (its Docxodus engine, a .NET binary) as a baseline for the known-edits benchmark:
the two versions written as Word files, one paragraph per clause paragraph, compared by Docxodus,
and each clause holding a tracked change counted as reported changed.

python-redlines is not a Pagewise dependency. Install it apart, then pass its folder:

    .venv/bin/python -m pip download python-redlines -d /tmp/redlines/dl
    .venv/bin/python -m pip install --target /tmp/redlines/site "python-redlines[docxodus]==2.0.0"
    .venv/bin/python -m lab.eval.compare_known_edits --redlines-site /tmp/redlines/site

It runs in a child process with that folder on its ``PYTHONPATH``, so nothing of it is imported here.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import zipfile
from collections.abc import Sequence
from pathlib import Path

from lxml import etree

from lab.eval.known_edits import clause_key, clause_key_full

CLAUSE_START = re.compile(r"\s*(?:\d+(?:\.\d+)+\.?|\d+\.|\([a-z0-9]{1,4}\)|ARTICLE\s+[IVXLC\d]+)\s")
W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
AUTHOR = "python-redlines"
_ENGINE = """
import sys
from pathlib import Path
from python_redlines import DocxodusEngine
old, new, out, cache = sys.argv[1:5]
engine = DocxodusEngine(target_path=cache)
redline, _, _ = engine.run_redline("python-redlines", original=Path(old).read_bytes(), modified=Path(new).read_bytes())
Path(out).write_bytes(redline)
"""


def write_docx(path: Path, clauses: Sequence[str]) -> Path:
    """The clauses as Word paragraphs (a clause's paragraphs apart), plain style."""
    from docx import Document

    document = Document()
    for clause in clauses:
        for paragraph in clause.split("\n\n"):
            document.add_paragraph(" ".join(paragraph.split()))
    document.save(str(path))
    return path


def run_redline(old_docx: Path, new_docx: Path, out: Path, site: Path) -> Path:
    env = dict(os.environ, PYTHONPATH=str(site))
    subprocess.run(
        [sys.executable, "-c", _ENGINE, str(old_docx), str(new_docx), str(out), str(site.parent / "docxodus-bin")],
        env=env,
        check=True,
        capture_output=True,
        timeout=600,
    )
    return out


def _paragraph_text(paragraph: etree._Element, *, accept: bool) -> str:
    parts = []
    for run in paragraph.iter(f"{W}r"):
        inside = {a.tag for a in run.iterancestors()}
        if (accept and f"{W}del" in inside) or (not accept and f"{W}ins" in inside):
            continue
        parts += [t.text or "" for t in run if t.tag in (f"{W}t", f"{W}delText")]
    return "".join(parts)


def changed_paragraphs(redline: Path) -> tuple[list[str], list[str]]:
    """The text of each paragraph holding a tracked change, as in the old and in the new version."""
    with zipfile.ZipFile(redline) as docx:
        body = etree.fromstring(docx.read("word/document.xml"))
    old_texts, new_texts = [], []
    for paragraph in body.iter(f"{W}p"):
        if next(paragraph.iter(f"{W}ins", f"{W}del", f"{W}moveFrom", f"{W}moveTo"), None) is None:
            continue
        old_texts.append(_paragraph_text(paragraph, accept=False))
        new_texts.append(_paragraph_text(paragraph, accept=True))
    return old_texts, new_texts


def paragraph_units(clauses: Sequence[str]) -> list[tuple[str, str]]:
    """Each written paragraph with the key of the clause it belongs to: its own where it starts
    with a clause marker (a clause the edits put inside another's text, as an inserted clause at
    an article's end, is its own clause to Pagewise and to the truth), else its clause's."""
    units = []
    for clause in clauses:
        key = clause_key(clause)
        for n, paragraph in enumerate(clause.split("\n\n")):
            if n and CLAUSE_START.match(paragraph):
                key = clause_key(paragraph)
            units.append((key, clause_key_full(paragraph)))
    return units


def changed_clause_keys(old: Sequence[str], new: Sequence[str], redline: Path) -> set[str]:
    """The keys (``clause_key``) of the clauses holding a paragraph with a tracked change."""
    old_texts, new_texts = changed_paragraphs(redline)
    found: set[str] = set()
    for texts, clauses in ((old_texts, old), (new_texts, new)):
        full = paragraph_units(clauses)
        for text in texts:
            words = clause_key_full(text)
            if len(words.split()) < 2:
                continue
            found |= {key for key, clause_words in full if words in clause_words}
    found.discard("")
    return found

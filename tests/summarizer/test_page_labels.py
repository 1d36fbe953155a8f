"""summarizer/page_labels.py: the labels, and no second copy of them in the product."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from summarizer.page_labels import (
    DISPLAY,
    PROMPT,
    TEXT,
    page_label,
    pages_list_label,
    paragraph_label,
    unit_label,
)

ROOT = Path(__file__).resolve().parents[2]
LABEL_MODULE = ROOT / "summarizer" / "page_labels.py"

NBSP = "\u00a0"


def test_pages_in_each_style() -> None:
    assert page_label(3) == f"p.{NBSP}3"
    assert page_label(3, 3) == f"p.{NBSP}3"
    assert page_label(3, 7) == f"pp.{NBSP}3\u20137"
    assert page_label(3, 7, TEXT) == "pp. 3\u20137"
    assert page_label(3, 7, PROMPT) == "pp. 3-7"
    assert page_label(7, 3, DISPLAY) == f"p.{NBSP}7"  # a last page before the first: the first alone


def test_paragraphs_and_units() -> None:
    assert paragraph_label(51) == f"¶{NBSP}51"
    assert paragraph_label(95, 97, TEXT) == "¶ 95\u201397"
    assert unit_label(1, 40, word=True, style=PROMPT) == "¶ 1-40"
    assert unit_label(1, 40, style=PROMPT) == "pp. 1-40"
    assert pages_list_label([4], style=TEXT) == "p. 4"
    assert pages_list_label([4, 9], style=TEXT) == "pp. 4, 9"
    assert pages_list_label([4, 9], word=True, style=TEXT) == "¶ 4, 9"


# A literal that ends with a mark and a space ("p. ", "pp.\u00a0", "¶ ") is the start of a label:
# the number follows, from an f-string field or a "+". Prose that names a page ("see p. 4") has
# the number in the literal itself and is left alone.
_LABEL_START = re.compile(r"(?:(?<![A-Za-z])pp?\.|¶¶?)[ \u00a0]$")


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def label_copies(source: str, name: str) -> list[str]:
    """Where ``source`` builds a page or paragraph label itself: a string piece that ends with
    "p. ", "pp. " or "¶ " (an f-string's text before a field, or a literal added to a number)."""
    tree = ast.parse(source, filename=name)
    docstrings = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Constant) or not isinstance(node.value, str) or id(node) in docstrings:
            continue
        for line in node.value.splitlines() or [""]:
            if _LABEL_START.search(line):
                found.append(f"{name}:{node.lineno}: {node.value!r}")
                break
    return found


def test_a_label_built_outside_the_label_module_is_found() -> None:
    copies = [
        'where = f"p. {page}"',
        'where = f"pp.\\u00a0{first}–{last}"',
        'tag = "¶ " + str(index)',
        'label = f"Summary of ¶ {first}-{last}"',
    ]
    for source in copies:
        assert label_copies(source, "copy.py"), source
    prose = [
        '"""A docstring may show ``p. 3`` and ``pp. 3-7``."""',
        'hint = "cite it like [¶ 12] or [p. 4]"',
        'mark = "p."',
        'stop = "Help me. "',
    ]
    for source in prose:
        assert not label_copies(source, "prose.py"), source


@pytest.mark.parametrize("floor", ["app", "summarizer", "inference"])
def test_page_and_paragraph_labels_are_written_only_by_the_label_module(floor: str) -> None:
    copies = []
    for path in sorted((ROOT / floor).rglob("*.py")):
        if path != LABEL_MODULE:
            copies += label_copies(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    assert not copies, "build these labels with summarizer/page_labels.py:\n" + "\n".join(copies)

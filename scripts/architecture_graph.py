"""The floors and groups of Pagewise, drawn from the imports: docs/architecture.md's picture.

    python -m scripts.architecture_graph            # print the Mermaid source
    python -m scripts.architecture_graph --write    # rewrite the picture in docs/architecture.md
    python -m scripts.architecture_graph --check    # exit 1 when the committed picture is stale

A node is a group (a subpackage of summarizer/ or inference/, a folder of app/) or a floor's
top-level modules; an arrow is "imports" (from app/, one arrow to each floor it uses).
``LAYERS`` is the order the groups keep, also read by tests/test_architecture.py: a module may
import its own group, the top-level modules of its own floor and of the floors below, and groups
of a lower rank; never a group of its own rank or above.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "architecture.md"
BEGIN = "<!-- begin: made by scripts/architecture_graph.py from the imports; do not edit -->"
END = "<!-- end: made by scripts/architecture_graph.py -->"

FLOORS = ("lab", "scripts", "app", "summarizer", "inference")
"""Top to bottom: a floor imports only the floors below it. The product is app/, summarizer/ and
inference/; scripts/ (the tools a maintainer runs) and lab/ (evaluation, training, benchmarks)
stand above it, and the product never imports them."""
PRODUCT = ("app", "summarizer", "inference")

LAYERS: dict[str, dict[str, int]] = {
    "summarizer": {"": 0, "library": 1, "search": 2, "summaries": 2, "compare": 2, "llm": 3, "answers": 4, "review": 4},
    "inference": {"": 0, "planning": 1, "models": 1, "engines": 2},
    # app/'s top level is its entry points and the window that composes the rest: above its groups.
    "app": {"services": 1, "jobs": 2, "widgets": 2, "commands": 2, "views": 3, "controllers": 4, "": 5},
    "lab": {"": 0, "eval": 1, "training": 2, "bench": 2},
}
"""Each floor's groups by rank ("" is the floor's top-level modules: errors, progress, ... at the
bottom of summarizer/ and inference/, the entry points at the top of app/)."""


SUBGROUPS: dict[str, dict[str, int]] = {
    "summarizer/library": {"storage": 1, "reading": 2, "cutting": 3, "vectors": 4, "": 5, "batches": 6},
}
"""Groups inside a group, by rank, kept the same way (here "" is the group's own top level:
ingest and reindex, above the four jobs they use; batches, adding many files, above ingest)."""


def module_node(path: Path) -> tuple[str, str]:
    """(floor, group) of a source file; group "" for a floor's top-level modules."""
    parts = path.relative_to(ROOT).with_suffix("").parts
    floor = parts[0]
    group = parts[1] if len(parts) > 2 else ""
    return floor, group


def type_checking_nodes(tree: ast.AST) -> set[int]:
    """The ids of the nodes under ``if TYPE_CHECKING:``: imports for type hints only, never run."""
    hidden: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If):
            test = node.test
            name = test.id if isinstance(test, ast.Name) else test.attr if isinstance(test, ast.Attribute) else ""
            if name == "TYPE_CHECKING":
                hidden.update(id(inner) for statement in node.body for inner in ast.walk(statement))
    return hidden


def imported_nodes(path: Path, *, run_time_only: bool = False) -> set[tuple[str, str, str]]:
    """(floor, group, module) of every Pagewise module ``path`` imports (absolute imports); with
    ``run_time_only``, not those under ``if TYPE_CHECKING:``."""
    found: set[tuple[str, str, str]] = set()
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    hidden = type_checking_nodes(tree) if run_time_only else set()
    for node in ast.walk(tree):
        if id(node) in hidden:
            continue
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        for name in names:
            parts = name.split(".")
            if parts[0] not in FLOORS:
                continue
            target = ROOT.joinpath(*parts)
            if target.is_dir() and (target / "__init__.py").is_file():
                group = parts[1] if len(parts) > 1 else ""
                found.add((parts[0], group, name))
            elif target.with_suffix(".py").is_file():
                found.add((parts[0], parts[1] if len(parts) > 2 else "", name))
    return found


def sources() -> list[Path]:
    return sorted(p for floor in FLOORS for p in (ROOT / floor).rglob("*.py") if "__pycache__" not in p.parts)


def edges() -> dict[tuple[str, str], set[tuple[str, str]]]:
    graph: dict[tuple[str, str], set[tuple[str, str]]] = defaultdict(set)
    for path in sources():
        here = module_node(path)
        for floor, group, _name in imported_nodes(path):
            if (floor, group) != here:
                graph[here].add((floor, group))
    return graph


def _node_id(floor: str, group: str) -> str:
    return f"{floor}_{group or 'top'}"


def _label(floor: str, group: str) -> str:
    folder = ROOT / floor / group if group else ROOT / floor
    modules = sorted(p.stem for p in folder.glob("*.py") if p.stem != "__init__")
    title = f"{floor}/{group}/" if group else f"{floor}/ (top level)"
    shown = ", ".join(modules)
    return f"{title}<br/><small>{shown}</small>"


def mermaid() -> str:
    graph = edges()
    nodes: dict[str, set[str]] = defaultdict(set)
    for path in sources():
        floor, group = module_node(path)
        nodes[floor].add(group)
    lines = ["flowchart TD"]
    for floor in FLOORS:
        lines.append(f"  subgraph {floor}_floor [{floor}/]")
        for group in sorted(nodes[floor], key=lambda g: (-LAYERS.get(floor, {}).get(g, 0), g)):
            lines.append(f'    {_node_id(floor, group)}["{_label(floor, group)}"]')
        lines.append("  end")
    arrows: set[tuple[str, str]] = set()
    for (floor, group), targets in graph.items():
        for target_floor, target_group in targets:
            # app/ and the floors above it use nearly every group below: one arrow to each floor
            # keeps the picture readable
            above = floor in ("app", "scripts", "lab") and floor != target_floor
            to = f"{target_floor}_floor" if above else _node_id(target_floor, target_group)
            arrows.add((_node_id(floor, group), to))
    lines += [f"  {source} --> {target}" for source, target in sorted(arrows)]
    return "\n".join(lines) + "\n"


def document_block() -> str:
    return f"{BEGIN}\n```mermaid\n{mermaid()}```\n{END}"


def rewritten(text: str) -> str:
    start, end = text.index(BEGIN), text.index(END) + len(END)
    return text[:start] + document_block() + text[end:]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--write", action="store_true", help="rewrite the picture in docs/architecture.md")
    parser.add_argument("--check", action="store_true", help="exit 1 when docs/architecture.md is stale")
    args = parser.parse_args(argv)
    if not args.write and not args.check:
        sys.stdout.write(mermaid())
        return 0
    text = DOC.read_text(encoding="utf-8")
    new = rewritten(text)
    if args.check:
        if new != text:
            print("docs/architecture.md is stale: run python -m scripts.architecture_graph --write", file=sys.stderr)
            return 1
        return 0
    DOC.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

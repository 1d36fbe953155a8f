"""The floors: inference/ and summarizer/ never import Qt or app/; commands start light."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("package", ["inference", "summarizer"])
def test_core_never_imports_qt_or_app(package: str) -> None:
    for path in (ROOT / package).rglob("*.py"):
        bad = _imports(path) & {"PySide6", "PyQt5", "PyQt6", "shiboken6", "app"}
        assert not bad, f"{path.relative_to(ROOT)} imports {bad}"


@pytest.mark.parametrize("package", ["inference", "summarizer", "app"])
def test_the_product_never_imports_the_lab_scripts_or_tests(package: str) -> None:
    for path in (ROOT / package).rglob("*.py"):
        bad = _imports(path) & {"lab", "scripts", "tests"}
        assert not bad, f"{path.relative_to(ROOT)} imports {bad}: the product stands below them"


def floor_order_problems() -> list[str]:
    """Imports of a floor above one's own (scripts/architecture_graph.py: FLOORS, top to bottom)."""
    from scripts.architecture_graph import FLOORS, imported_nodes, module_node, sources

    problems = []
    for path in sources():
        floor, _group = module_node(path)
        for target_floor, _target, name in imported_nodes(path):
            if FLOORS.index(target_floor) < FLOORS.index(floor):
                problems.append(f"{path.relative_to(ROOT)} ({floor}/) imports {name}: a floor above it")
    return problems


def test_floors_import_only_floors_below_them() -> None:
    problems = floor_order_problems()
    assert not problems, "\n".join(problems)


def test_no_python_file_edits_sys_path() -> None:
    tracked = subprocess.run(["git", "ls-files", "*.py"], cwd=ROOT, capture_output=True, text=True, check=True)
    edits = tuple(f"sys.path.{verb}(" for verb in ("insert", "append", "extend"))  # spelled so: not one itself
    offenders = []
    for name in tracked.stdout.split():
        path = ROOT / name
        if path.is_file() and any(edit in path.read_text(encoding="utf-8") for edit in edits):
            offenders.append(name)
    assert not offenders, f"run modules with python -m from the repository root instead: {offenders}"


def test_app_services_never_import_qt() -> None:  # shared by the window and the commands
    for path in (ROOT / "app" / "services").rglob("*.py"):
        bad = _imports(path) & {"PySide6", "shiboken6"}
        assert not bad, f"{path.relative_to(ROOT)} imports {bad}"


def test_inference_does_not_import_summarizer() -> None:
    for path in (ROOT / "inference").rglob("*.py"):
        assert "summarizer" not in _imports(path), path


def test_help_does_not_import_heavy_libraries() -> None:
    code = (
        "import sys, contextlib, io\n"
        "from app.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "    main(['--help'])\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "    main(['search', '--help'])\n"
        "heavy = [m for m in ('torch', 'llama_cpp', 'PySide6', 'sentence_transformers', 'faiss', 'pypdf')"
        " if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_the_network_is_blocked_in_tests() -> None:
    import socket

    from tests.conftest import NetworkBlocked

    with pytest.raises(NetworkBlocked), socket.create_connection(("192.0.2.1", 80), timeout=1):
        pass


def group_order_problems() -> list[str]:
    """Imports that break a floor's group order (scripts/architecture_graph.py: LAYERS): a
    module imports its own group and groups of a lower rank (the floor's top level, "", has a rank
    too: the bottom of summarizer/ and inference/, the top of app/)."""
    from scripts.architecture_graph import LAYERS, imported_nodes, module_node, sources

    problems = []
    for path in sources():
        floor, group = module_node(path)
        ranks = LAYERS.get(floor, {})
        file = path.relative_to(ROOT)
        for target_floor, target, name in imported_nodes(path):
            if target_floor != floor or not ranks or target == group:
                continue
            if target not in ranks or group not in ranks:
                problems.append(f"{file}: its group or {name}'s ({target!r}) has no rank in LAYERS")
            elif ranks[target] >= ranks[group]:
                problems.append(f"{file} ({group or 'top level'}) imports {name} ({target}): not a lower group")
    return problems


def subgroup_order_problems() -> list[str]:
    """Imports inside a group with subgroups (scripts/architecture_graph.py: SUBGROUPS) that
    reach a subgroup of the same or a higher rank."""
    from scripts.architecture_graph import SUBGROUPS, imported_nodes, sources

    problems = []
    for parent, ranks in SUBGROUPS.items():
        prefix = parent.split("/")
        for path in sources():
            parts = path.relative_to(ROOT).with_suffix("").parts
            if list(parts[: len(prefix)]) != prefix:
                continue
            here = parts[len(prefix)] if len(parts) > len(prefix) + 1 else ""
            for _floor, _group, name in imported_nodes(path):
                target_parts = name.split(".")
                if target_parts[: len(prefix)] != prefix or len(target_parts) <= len(prefix):
                    continue
                target = target_parts[len(prefix)]
                target = target if (ROOT.joinpath(*prefix, target) / "__init__.py").is_file() else ""
                if target == here:
                    continue
                if here not in ranks or target not in ranks:
                    problems.append(f"{path.relative_to(ROOT)}: {here!r} or {target!r} has no rank in SUBGROUPS")
                elif ranks[target] >= ranks[here]:
                    problems.append(
                        f"{path.relative_to(ROOT)} ({here or 'top level'}) imports {name}: not a lower group"
                    )
    return problems


def test_subgroups_import_only_subgroups_below_them() -> None:
    from scripts.architecture_graph import SUBGROUPS

    problems = subgroup_order_problems()
    assert not problems, "\n".join(problems)
    for parent, ranks in SUBGROUPS.items():  # every subgroup has a rank, and every rank a subgroup
        assert {p.parent.name for p in (ROOT / parent).glob("*/__init__.py")} == set(ranks) - {""}, parent


def test_the_library_keeps_a_short_top_level() -> None:
    top = [p.stem for p in (ROOT / "summarizer" / "library").glob("*.py") if p.stem != "__init__"]
    assert len(top) <= 12, f"summarizer/library/ has {len(top)} modules at its top level: put them in its groups"


def test_groups_import_only_groups_below_them() -> None:
    from scripts.architecture_graph import LAYERS

    problems = group_order_problems()
    assert not problems, "\n".join(problems)
    for floor, ranks in LAYERS.items():  # every group has a rank, and every rank a group
        groups = {p.parent.name for p in (ROOT / floor).glob("*/__init__.py")}
        assert groups == set(ranks) - {""}, floor


def import_circles() -> list[list[str]]:
    """Circles of imports between Pagewise modules (scripts/architecture_graph.py: sources), each
    as the modules in import order, the first repeated at the end.

    Every import that runs counts: at module level and inside functions. A circle closed by an
    import inside a function runs, but still makes two modules one job that neither can be read
    without. An import under ``TYPE_CHECKING`` does not count: it names a type for the checker
    (a mixin's host, a controller a callback belongs to) and never loads the module. Across groups
    a circle already breaks the ranks (LAYERS, SUBGROUPS), so the circles this finds lie inside
    one group."""
    from graphlib import CycleError, TopologicalSorter

    from scripts.architecture_graph import imported_nodes, sources

    imports: dict[str, set[str]] = {}
    for path in sources():
        parts = path.relative_to(ROOT).with_suffix("").parts
        here = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        imports[here] = {name for _floor, _group, name in imported_nodes(path, run_time_only=True) if name != here}
    circles: list[list[str]] = []
    while True:  # each round finds one circle and drops one of its imports, until none is left
        try:
            TopologicalSorter(imports).prepare()  # a module's imports come before it
        except CycleError as error:
            circle = list(reversed(error.args[1]))  # graphlib lists each module before its importer
            circles.append(circle)
            imports[circle[0]].discard(circle[1])
            continue
        return circles


def test_no_import_circles() -> None:
    circles = import_circles()
    assert not circles, "import circles (a -> b: a imports b; move what both need into a module of its own):\n" + (
        "\n".join(" -> ".join(circle) for circle in circles)
    )


# Tests of a group named by a job of it rather than by one of its modules.
JOB_TESTS = {
    "tests/summarizer/library/test_ingest_kill.py",
    "tests/summarizer/library/test_ingest_words_only.py",
    "tests/summarizer/library/vectors/test_index_rewrite_windows.py",
    "tests/summarizer/review/test_review_items.py",
    "tests/summarizer/review/test_review_side.py",
    "tests/summarizer/review/test_review_smollm2.py",
    "tests/inference/engines/test_nan_check.py",
    "tests/inference/engines/test_remote_llama_server.py",
    "tests/inference/planning/test_planner_llama.py",
    "tests/app/commands/test_summarize_ask.py",
    "tests/app/controllers/test_review_cells.py",
}


def test_the_test_tree_mirrors_the_groups() -> None:
    from scripts.architecture_graph import LAYERS

    for floor, ranks in LAYERS.items():
        for group in set(ranks) - {""}:
            for folder in [ROOT / floor / group, *(p.parent for p in (ROOT / floor / group).glob("*/__init__.py"))]:
                modules = {p.stem for p in folder.glob("*.py")} - {"__init__"}
                tests = ROOT / "tests" / folder.relative_to(ROOT)
                assert (tests / "__init__.py").is_file(), tests
                for test in tests.glob("test_*.py"):  # named by a module of the group, or listed as a job's
                    assert test.stem[5:] in modules or str(test.relative_to(ROOT)) in JOB_TESTS, test
        for test in (ROOT / "tests" / floor).glob("test_*.py"):  # top level: only the floor's own modules
            grouped = {p.stem for p in (ROOT / floor).glob("*/*.py")} - {"__init__"}
            assert test.stem[5:] not in grouped, f"{test} tests a module of a group: move it to its folder"


def test_docs_architecture_picture_is_made_from_the_imports() -> None:
    from scripts.architecture_graph import DOC, rewritten

    text = DOC.read_text(encoding="utf-8")
    assert rewritten(text) == text, "docs/architecture.md is stale: run python -m scripts.architecture_graph --write"

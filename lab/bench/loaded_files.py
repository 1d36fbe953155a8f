"""What Pagewise loads, against what its bundle carries (issue 54, installer size).

    python -m lab.bench.loaded_files --site SITE_PACKAGES [--out FILE.json]

Runs the jobs a user runs (``--selftest``: the window, the ingest process with the embedding
model, the viewer, hybrid search with the clause ranker, OCR, the inference worker; then
``ingest`` of a Word contract, ``search --all``, ``review --evidence-only --format xlsx`` and
``compare --format docx``) with a ``sitecustomize`` on the path that, at the exit of every Python
process (the spawned workers too), writes the files it had loaded: its modules' files and the
shared libraries in ``/proc/self/maps``. Those are mapped to the top-level packages of SITE_PACKAGES
(the Windows tree of the Wine build, or a venv's), whose sizes on disk are summed: per package,
what is carried and what was loaded. The jobs run on Linux from the checkout; a package's
Windows files are matched by name (a module or library loaded on Linux is the same file's
counterpart in the Windows tree), so the figure says which packages the app never touches.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SITECUSTOMIZE = """
import atexit, os, sys
def _pagewise_loaded():
    out = os.environ.get("PAGEWISE_LOADED_DIR")
    if not out:
        return
    files = set()
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if path:
            files.add(os.path.realpath(path))
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                parts = line.split(None, 5)
                if len(parts) == 6 and parts[5].startswith("/"):
                    files.add(os.path.realpath(parts[5].strip()))
    except OSError:
        pass
    with open(os.path.join(out, f"{os.getpid()}.txt"), "w") as handle:
        handle.write("\\n".join(sorted(files)))
atexit.register(_pagewise_loaded)
"""


def top_level(site: Path, path: Path) -> str | None:
    try:
        rel = path.relative_to(site)
    except ValueError:
        return None
    first = rel.parts[0]
    if first.endswith(".libs"):
        return first[: -len(".libs")]
    return first.split(".")[0] if "." in first and not first.endswith(".dist-info") else first


def sizes_by_package(site: Path) -> dict[str, int]:
    sizes: dict[str, int] = defaultdict(int)
    for folder, _dirs, files in os.walk(site):
        for name in files:
            path = Path(folder, name)
            package = top_level(site, path)
            if package and not package.endswith(".dist-info"):
                sizes[package.lower()] += path.stat().st_size
    return dict(sizes)


def run_jobs(loaded_dir: Path, home: Path) -> None:
    custom = Path(tempfile.mkdtemp(prefix="pagewise-sitecustomize-"))
    (custom / "sitecustomize.py").write_text(SITECUSTOMIZE)
    env = dict(
        os.environ,
        PAGEWISE_LOADED_DIR=str(loaded_dir),
        PAGEWISE_HOME=str(home),
        PYTHONPATH=os.pathsep.join([str(custom), str(ROOT)]),
        QT_QPA_PLATFORM="offscreen",
    )
    cli = [sys.executable, "-m", "app.cli"]
    word = ROOT / "tests" / "fixtures" / "docx" / "common-paper-cloud-service-agreement.docx"
    out = Path(tempfile.mkdtemp(prefix="pagewise-loaded-out-"))
    jobs = [
        [*cli, "--selftest"],
        [*cli, "ingest", str(ROOT / "assets" / "sample-contract.pdf"), str(word)],
        [*cli, "search", "--all", "governing law"],
        [*cli, "review", "--all", "--evidence-only", "--format", "xlsx", "--out", str(out / "table.xlsx")],
        [
            *cli,
            "compare",
            str(word),
            str(ROOT / "assets" / "sample-contract.pdf"),
            "--format",
            "docx",
            "--out",
            str(out / "redline.docx"),
        ],
    ]
    for job in jobs:
        result = subprocess.run(job, env=env, cwd=ROOT, capture_output=True, text=True)
        print(f"{' '.join(job[3:])[:60]}: exit {result.returncode}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, required=True, help="the site-packages to size (the Windows tree)")
    parser.add_argument(
        "--linux-site",
        type=Path,
        default=Path(sys.prefix) / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages",
    )
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as loaded, tempfile.TemporaryDirectory() as home:
        run_jobs(Path(loaded), Path(home))
        files: set[Path] = set()
        for record in Path(loaded).glob("*.txt"):
            files.update(Path(line) for line in record.read_text().splitlines() if line)
    used = {p for p in (top_level(args.linux_site.resolve(), f) for f in files) if p}
    carried = sizes_by_package(args.site)
    rows = sorted(carried.items(), key=lambda kv: -kv[1])
    mib = 1024 * 1024
    table = [
        {"package": name, "mib": round(size / mib, 1), "loaded": name in {u.lower() for u in used}}
        for name, size in rows
    ]
    never = sum(r["mib"] for r in table if not r["loaded"])
    total = sum(r["mib"] for r in table)
    for row in table[:40]:
        print(f"{row['package']:32} {row['mib']:8.1f} MiB  {'loaded' if row['loaded'] else 'never loaded'}")
    print(f"total {total:.0f} MiB, never loaded {never:.0f} MiB")
    if args.out:
        args.out.write_text(json.dumps({"packages": table, "total_mib": total, "never_loaded_mib": never}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

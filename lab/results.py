"""How the lab writes a measurement's result file: the one JSON layout its evaluations, trainings
and benchmarks share (``--out``), so that a rerun's file diffs cleanly against the one the docs cite.
"""

from __future__ import annotations

import json
from pathlib import Path


def write_json(path: Path, result: object, *, indent: int = 1, ensure_ascii: bool = True) -> None:
    """``result`` as indented JSON with a closing newline, in UTF-8 (``ensure_ascii=False`` keeps
    a contract's quotes and section signs readable); the folder is made when missing."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=indent, ensure_ascii=ensure_ascii) + "\n", encoding="utf-8")

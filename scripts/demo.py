"""The README's main job: add the bundled sample contract to a library and search it.

Run through `make demo` (which sets PAGEWISE_HOME to a demo library inside the checkout).
"""

from __future__ import annotations

import sys
from pathlib import Path

from app.cli import main as pagewise

QUESTIONS = (
    "termination for convenience or breach",
    "who owns the licensed domain names",
)


def run(sample: Path) -> int:
    print(f"$ pagewise ingest {sample}")
    code = pagewise(["ingest", str(sample)])
    if code:
        return code
    for question in QUESTIONS:
        print(f'\n$ pagewise search --all "{question}" -k 2')
        code = pagewise(["search", "--all", question, "-k", "2"])
        if code:
            return code
    return 0


if __name__ == "__main__":
    sys.exit(run(Path(sys.argv[1] if len(sys.argv) > 1 else "assets/sample-contract.pdf")))

"""Where the loop guard would end real contract text: CUAD's contracts streamed through it.

    .venv/bin/python -m lab.eval.loop_guard_on_contracts [--limit 150] [--corpus ../shared/data/cuad-train]

A model's reply is not a contract, but a contract's running text is what a good answer quotes:
clauses, numbered lists, schedules. Each contract's words are fed to a fresh
``inference.engines.loop_guard.LoopGuard`` as a reply would stream; printed: how many contracts
trip it somewhere, and the 40 words before each trip (the first trip of a contract only), so a
reader sees what kind of text it stops (redaction runs, dot leaders, flattened tables) and what it
lets through.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from lab.eval.cuad_corpus import CORPUS, cuad_texts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--limit", type=int, default=150, help="contracts to read (in the corpus's order)")
    args = parser.parse_args()
    from inference.engines.loop_guard import LoopGuard

    read = tripped = 0
    for name, text in cuad_texts(args.corpus):
        read += 1
        guard = LoopGuard()
        words = text.split()
        for i, word in enumerate(words):
            if guard.feed(word + " "):
                tripped += 1
                print(f"{name[:48]}: …{' '.join(words[max(0, i - 40) : i + 1])[-200:]}", flush=True)
                break
        if read >= args.limit:
            break
    print(f"{read} contracts streamed; {tripped} trip the loop guard somewhere")


if __name__ == "__main__":
    main()

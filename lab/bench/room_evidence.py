"""Does a data room's review wait for the evidence (issue 57)? The model's review of a packed
library's contracts (``summarizer.review.room_review``) with a stand-in for a GPU: a scripted
engine with ``--slots`` slots, each reading taking ``--reading-s`` seconds and answering "not
found" (so each item reads every unit of its contract), and the real evidence (searches and the
clause ranker on this machine's CPU). Prints one JSON object: elapsed_s, busy_share (the slots'),
readings, the evidence items stored, and the contracts.

    flock /tmp/pagewise-cpu.lock python -m lab.bench.room_evidence --library build/room-library.tgz \
        --limit 4 --reading-s 0.2 --slots 4

It uses only ``review_room``, so the same script measures an older checkout (run it with that
checkout's ``PYTHONPATH``) for a before/after.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from inference.cancel import NEVER_CANCELLED, CancelToken
from inference.engines.engine import Completion, GenerationStats, JsonSchema, Prompt
from inference.engines.fake import FakeEngine
from inference.engines.prompt_feed import FedResultCallback, PromptFeed, run_fed_threads
from lab.bench.library_pack import unpack_library

NOT_FOUND = json.dumps({"found": False, "answer": "", "quote": "", "pages": []})


class TimedSlots(FakeEngine):
    """``slots`` readings at once, each ``reading_s`` long, each "not found".

    ``generate_fed`` is ``RemoteEngine.generate_fed`` with the server's reply replaced by a wait:
    both hand ``run_fed_threads`` (the one loop of slot threads) a blocking call per reading. What
    they have alike beyond that is ``Engine.generate_fed``'s signature, which an override restates."""

    def __init__(self, slots: int, reading_s: float, n_ctx: int) -> None:
        super().__init__(default_reply=NOT_FOUND, n_ctx=n_ctx)
        self.slots, self.reading_s = slots, reading_s

    @property
    def parallel(self) -> int:
        return self.slots

    def generate_fed(
        self,
        feed: PromptFeed,
        *,
        max_tokens: int = 256,
        json_schema: JsonSchema | None = None,
        cancel: CancelToken = NEVER_CANCELLED,
        on_result: FedResultCallback,
    ) -> None:
        def one(prompt: Prompt, stop: CancelToken) -> Completion:
            stop.wait(self.reading_s)
            return Completion(NOT_FOUND, GenerationStats(total_s=self.reading_s))

        run_fed_threads(feed, self.slots, one, on_result, cancel)


def measure(args: argparse.Namespace) -> dict[str, Any]:
    from summarizer.library.storage.store import Library
    from summarizer.review.checklist import load_checklist
    from summarizer.review.room_review import review_room

    home = unpack_library(Path(args.library), "room-evidence-")
    checklist = load_checklist(args.checklist)
    engine = TimedSlots(args.slots, args.reading_s, args.n_ctx)
    with Library.open(home / "library.sqlite") as library:
        records = [r for r in library.documents() if r.state == "ready" and r.passages > 0][: args.limit]
        stored: list[int] = []
        started = time.perf_counter()
        result = review_room(
            library,
            engine,
            [r.doc_id for r in records],
            checklist,
            model="bench/timed-slots",
            fresh=True,
            on_item=lambda done: stored.append(len(done.result.evidence)),
        )
        wall = time.perf_counter() - started
    return {
        "reading_s": args.reading_s,
        "slots": args.slots,
        "n_ctx": args.n_ctx,
        "checklist_items": len(checklist.items),
        "contracts": [f"{r.title[:40]} ({r.pages} p.)" for r in records],
        "readings": result.readings,
        "items": result.items_answered,
        "items_with_evidence": sum(n > 0 for n in stored),
        "elapsed_s": round(wall, 1),
        "busy_share": None if result.busy_share is None else round(result.busy_share, 3),
        "ranker": os.environ.get("PAGEWISE_RANKER", "(shipped)"),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--library", required=True, help="a packed library (.tgz, lab.bench.gpu_review prepare)")
    parser.add_argument("--limit", type=int, default=4, help="the library's first N contracts")
    parser.add_argument("--reading-s", type=float, default=0.2, help="seconds per reading (the stand-in GPU)")
    parser.add_argument("--slots", type=int, default=4, help="readings at once")
    parser.add_argument("--n-ctx", type=int, default=4096, help="the context the readings are cut for")
    parser.add_argument("--checklist", default="cuad", help="cuad, or a CSV/YAML checklist file")
    args = parser.parse_args(argv)
    sys.stdout.write(json.dumps(measure(args)) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

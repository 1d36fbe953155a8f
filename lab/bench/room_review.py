"""What a server buys a data room's review (issue 57): the model's review of the library's
contracts through an OpenAI-compatible server, with the engine kept busy across contracts
(``summarizer.review.room_review``), and the figures as one JSON object:

    python -m lab.bench.room_review --url http://127.0.0.1:8080 [--limit 40] [--checklist cuad]

For llama.cpp's server, run it once per ``llama-server --parallel 1 / 4 / 8`` (the engine takes
the slots from ``/props``; ``--parallel`` here is only for servers that do not say). It reviews
the contracts of the library in ``$PAGEWISE_HOME`` (oldest first, ``--limit`` of them) and asks
every item again (``--keep`` reads back what an earlier run of the bench stored), storing the
answers under ``bench/<the server's model>`` so the app's own stored reviews are left alone.

Prints: contracts, items, readings, elapsed_s, contracts_per_hour, items_per_min, busy_share
(the slots' time-weighted busy share between the first reading and the last), slots,
overloaded_retries (429/503 asked again) and the server's model.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import Any


def measure(
    url: str, *, limit: int | None, checklist_name: str, parallel: int, keep: bool, api_key: str | None
) -> dict[str, Any]:
    from inference.engines.remote import RemoteEngine
    from summarizer.library.storage.store import Library
    from summarizer.review.checklist import load_checklist
    from summarizer.review.room_review import review_room

    checklist = load_checklist(checklist_name)
    engine = RemoteEngine(url, api_key=api_key, max_parallel=parallel)
    with Library.open() as library, engine:
        engine.load()
        doc_ids = [r.doc_id for r in library.documents() if r.state == "ready" and r.passages > 0][:limit]
        if not doc_ids:
            raise SystemExit("The library has no contracts ready to review: add some with `pagewise ingest`.")
        model = engine.model_name
        result = review_room(library, engine, doc_ids, checklist, model=f"bench/{model}", fresh=not keep)
    hours = result.elapsed_s / 3600 if result.elapsed_s > 0 else None
    return {
        "url": engine.url,
        "model": model,
        "checklist": checklist.name,
        "contracts": result.contracts,
        "reviewed": result.reviewed,
        "skipped": result.skipped,
        "items": result.items_answered,
        "readings": result.readings,
        "elapsed_s": round(result.elapsed_s, 3),
        "contracts_per_hour": round(result.reviewed / hours, 1) if hours else None,
        "items_per_min": round(result.items_answered / (result.elapsed_s / 60), 1) if result.elapsed_s > 0 else None,
        "busy_share": None if result.busy_share is None else round(result.busy_share, 3),
        "slots": result.slots,
        "overloaded_retries": engine.overloaded_retries,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", required=True, help="the server's base address, e.g. http://127.0.0.1:8080")
    parser.add_argument("--limit", type=int, help="review only the first N contracts of the library")
    parser.add_argument("--checklist", default="cuad", help="cuad, or a CSV/YAML checklist file")
    parser.add_argument("--parallel", type=int, default=8, help="requests at once when the server does not say")
    parser.add_argument("--keep", action="store_true", help="read back what an earlier run stored")
    args = parser.parse_args(argv)
    figures = measure(
        args.url,
        limit=args.limit,
        checklist_name=args.checklist,
        parallel=args.parallel,
        keep=args.keep,
        api_key=os.environ.get("PAGEWISE_API_KEY") or None,
    )
    sys.stdout.write(json.dumps(figures) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

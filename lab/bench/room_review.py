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

The local engine instead of a server (``--model``): planned as ``pagewise review`` plans it
(``--budget-gib`` of GPU memory, 0 for the CPU; ``--max-parallel`` caps the sequences), with the
sequences fed live across contracts (``--feed live``, ``LocalEngine.generate_fed``) or, as before
issue 57's live feed, in chunks of four times ``parallel`` readings through ``generate_batch``
(``--feed chunked``); ``--library`` unpacks a packed library (``lab.bench.gpu_review prepare``)
into a fresh data folder first, ``--items`` asks the first N items of the checklist:

    python -m lab.bench.room_review --model M.gguf --budget-gib 12 --library build/room-library.tgz \
        --limit 20 --feed live --threads 8

Besides busy_share (the worker's meter live; take-to-reply chunked, which counts a chunk's
waiting readings as busy) it prints seq_busy_share: the replies' own seconds in a sequence
(stats.total_s, from admission to the reply's end) over slots x the span from the first reading
taken to the last reply, the same measure for both feeds; and the plan.
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


def measure_local(args: argparse.Namespace) -> dict[str, Any]:
    """The local engine over the library's contracts (see the module's note)."""
    import dataclasses
    import functools
    import time
    from pathlib import Path

    from inference.engines.engine import Completion, Engine
    from inference.engines.local import LocalEngine
    from inference.planning.job_time import ANSWER
    from inference.planning.plan import summary_line
    from lab.bench.library_pack import unpack_library
    from summarizer.library.storage.store import Library
    from summarizer.llm.local_model import plan_local_model
    from summarizer.review.checklist import load_checklist
    from summarizer.review.room_review import review_room

    if args.library:
        unpack_library(Path(args.library), "room-bench-")
    checklist = load_checklist(args.checklist)
    if args.items:
        checklist = dataclasses.replace(checklist, items=checklist.items[: args.items])
    budget = int(args.budget_gib * 2**30) if args.budget_gib else 0
    plan, parallel = plan_local_model(
        args.model, n_threads=args.threads, budget=budget, max_parallel=args.max_parallel, job=ANSWER
    )
    engine = LocalEngine()
    seconds_in_sequences: list[float] = []
    window: list[float] = []
    fed = engine.generate_fed if args.feed == "live" else functools.partial(Engine.generate_fed, engine)

    def generate_fed(feed: Any, *, on_result: Any, **kwargs: Any) -> None:
        def counted(tag: Any, completion: Completion) -> None:
            seconds_in_sequences.append(completion.stats.total_s)
            window.append(time.perf_counter())
            on_result(tag, completion)

        window.append(time.perf_counter())
        fed(feed, on_result=counted, **kwargs)

    engine.generate_fed = generate_fed  # type: ignore[method-assign]
    with Library.open() as library, engine:
        load = engine.load(plan)
        doc_ids = [r.doc_id for r in library.documents() if r.state == "ready" and r.passages > 0][: args.limit]
        if not doc_ids:
            raise SystemExit("The library has no contracts ready to review: add some with `pagewise ingest`.")
        result = review_room(library, engine, doc_ids, checklist, model=f"bench/{args.feed}", fresh=not args.keep)
        log = open(engine.log_path, encoding="utf-8", errors="replace").read().splitlines()  # noqa: SIM115
    span = window[-1] - window[0] if len(window) > 1 else 0.0
    minutes = result.elapsed_s / 60 if result.elapsed_s > 0 else None
    return {
        "engine": "local",
        "feed": args.feed,
        "model": os.path.basename(args.model),
        "backend": load.backend,
        "budget_gib": args.budget_gib,
        "plan": summary_line(plan),
        "parallel": parallel,
        "checklist_items": len(checklist.items),
        "contracts": result.contracts,
        "reviewed": result.reviewed,
        "items": result.items_answered,
        "readings": result.readings,
        "elapsed_s": round(result.elapsed_s, 3),
        "contracts_per_hour": round(result.reviewed / (minutes / 60), 1) if minutes else None,
        "items_per_min": round(result.items_answered / minutes, 1) if minutes else None,
        "busy_share": None if result.busy_share is None else round(result.busy_share, 3),
        "seq_busy_share": round(sum(seconds_in_sequences) / (parallel * span), 3) if span > 0 else None,
        "slots": result.slots,
        "layouts": sorted({line.split(": ", 1)[1] for line in log if " at a time" in line and "[pagewise]" in line}),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", help="the server's base address, e.g. http://127.0.0.1:8080")
    parser.add_argument("--model", help="a GGUF file: review with the local engine instead of a server")
    parser.add_argument("--budget-gib", type=float, default=12.0, help="local: GPU memory to plan for (0: CPU)")
    parser.add_argument("--threads", type=int, default=8, help="local: CPU threads")
    parser.add_argument("--max-parallel", type=int, help="local: at most this many sequences")
    parser.add_argument("--feed", choices=("live", "chunked"), default="live", help="local: how readings are fed")
    parser.add_argument("--library", help="local: a packed library (.tgz) to review in a fresh data folder")
    parser.add_argument("--items", type=int, default=0, help="local: only the first N checklist items")
    parser.add_argument("--limit", type=int, help="review only the first N contracts of the library")
    parser.add_argument("--checklist", default="cuad", help="cuad, or a CSV/YAML checklist file")
    parser.add_argument("--parallel", type=int, default=8, help="requests at once when the server does not say")
    parser.add_argument("--keep", action="store_true", help="read back what an earlier run stored")
    args = parser.parse_args(argv)
    if args.model:
        sys.stdout.write(json.dumps(measure_local(args)) + "\n")
        return 0
    if not args.url:
        parser.error("--url or --model is required")
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

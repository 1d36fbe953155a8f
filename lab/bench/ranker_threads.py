"""The clause ranker's two ways of using two cores, in one run: two threads inside each ONNX run
(the pairs one after the other, as before issue 46) against one thread per run with two runs side
by side (summarizer/search/clause_ranker.py today). Same passages, same question; the scores must
be identical.

    python -m lab.bench.ranker_threads [--pairs 200] [--home build/dataroom-bench/home-449]

Reads passages from a library (``--home``, the data room's by default); prints one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

QUESTION = "Is there a cap on liability under this contract?"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=200)
    parser.add_argument("--home", type=Path, default=Path("build/dataroom-bench/home-449"))
    args = parser.parse_args(argv)
    os.environ["PAGEWISE_HOME"] = str(args.home)
    import onnxruntime as ort

    from summarizer.library.storage.store import Library
    from summarizer.search.clause_ranker import ClauseRanker, passage_text, ranker_dir

    with Library.open() as library:
        rows = library.db.execute("SELECT heading, text FROM passages ORDER BY rowid LIMIT ?", [args.pairs]).fetchall()
    texts = [passage_text(h or "", t) for h, t in rows]
    ranker = ClauseRanker(ranker_dir(), threads=2)

    inside = ClauseRanker(ranker_dir(), threads=1)  # the pairs one after the other, ...
    options = ort.SessionOptions()
    options.intra_op_num_threads, options.inter_op_num_threads, options.log_severity_level = 2, 1, 3
    model = str(ranker_dir() / "model.onnx")
    inside._session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])  # ... two threads each

    result: dict[str, object] = {"pairs": len(texts), "cpus": os.cpu_count()}
    scores = {}
    for name, candidate in (("two_threads_per_run", inside), ("runs_side_by_side", ranker)):
        candidate.score_texts(QUESTION, texts[:10])  # warm up
        started = time.perf_counter()
        scores[name] = candidate.score_texts(QUESTION, texts)
        result[f"{name}_ms_per_pair"] = round(1000 * (time.perf_counter() - started) / len(texts), 2)
    result["same_scores"] = scores["two_threads_per_run"] == scores["runs_side_by_side"]
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

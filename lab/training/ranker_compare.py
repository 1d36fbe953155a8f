"""The trained rankers side by side on the validation contracts (CUAD, never trained on).

    .venv/bin/python -m lab.training.ranker_compare [--data .device/ranker/data.json.xz] \
        [--trained .device/trained] [--top 20] [--out docs/data/model-training/ranker-compare.json]

For every evaluation question of the 39 validation contracts (lab/eval/questions.json's phrasings;
positives: the passages holding a CUAD quote of its category), BM25's top ``--top`` passages
(from lab/training/ranker_data.py) are reordered by: the cross-encoder trained pointwise (BCE), the
one trained listwise, the listwise one as shipped (int8 ONNX from lab/training/ranker_export.py),
the fine-tuned bi-encoder, base all-MiniLM-L6-v2 (the vectors Pagewise has today), the
cross-encoder and bi-encoder together (sum of their per-question z-scores), and the
cross-encoder blended with BM25's order (reciprocal-rank fusion). Recall@3 and @10 of each,
for reordering the top 10 and the top 20. This is a same-candidates comparison; the figures
through Pagewise's own fusion are lab/eval/score_retrieval.py's and lab/eval/score_validation.py's.
"""

from __future__ import annotations

import argparse
import json
import lzma
import sys
import time
from pathlib import Path
from typing import Any

import lab.training.ranker_export as ranker_export
from lab.results import write_json

ROOT = Path(__file__).resolve().parents[2]


def passage_text(p: dict[str, Any]) -> str:
    """The passage as the ranker reads it (one rule: summarizer.search.clause_ranker's)."""
    from summarizer.search.clause_ranker import passage_text as ranker_text

    return ranker_text(p["heading"], p["text"])


def ce_torch(model: Any, tok: Any, max_len: int) -> Any:
    import torch

    def score(query: str, texts: list[str]) -> list[float]:
        out: list[float] = []
        with torch.no_grad():
            for i in range(0, len(texts), 16):
                chunk = texts[i : i + 16]
                enc = tok(
                    [query] * len(chunk),
                    chunk,
                    truncation="only_second",
                    max_length=max_len,
                    padding=True,
                    return_tensors="pt",
                )
                out.extend(model(**enc).logits[:, 0].tolist())
        return out

    return score


def ce_onnx(folder: Path) -> Any:
    from summarizer.search.clause_ranker import ClauseRanker

    ranker = ClauseRanker(folder, threads=2)
    return lambda query, texts: ranker.score_texts(query, texts)


def bi_torch(model: Any, tok: Any) -> Any:
    import torch

    cache: dict[str, Any] = {}

    def embed(texts: list[str], max_len: int) -> Any:
        enc = tok(texts, truncation=True, max_length=max_len, padding=True, return_tensors="pt")
        with torch.no_grad():
            hidden = model(**enc).last_hidden_state
        mask = enc["attention_mask"].unsqueeze(-1).float()
        return torch.nn.functional.normalize((hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9), dim=-1)

    def score(query: str, texts: list[str]) -> list[float]:
        missing = [t for t in dict.fromkeys(texts) if t not in cache]
        for i in range(0, len(missing), 16):
            for t, v in zip(missing[i : i + 16], embed(missing[i : i + 16], 256), strict=True):
                cache[t] = v
        q = embed([query], 256)[0]
        return [float(cache[t] @ q) for t in texts]

    return score


def zscores(values: list[float]) -> list[float]:
    n = len(values)
    mean = sum(values) / n
    sd = (sum((v - mean) ** 2 for v in values) / n) ** 0.5 or 1.0
    return [(v - mean) / sd for v in values]


def recall(order: list[int], positives: set[int], k: int) -> float:
    return len(positives & set(order[:k])) / len(positives)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=ROOT / ".device" / "ranker" / "data.json.xz")
    parser.add_argument("--trained", type=Path, default=ROOT / ".device" / "trained")
    parser.add_argument("--base", type=Path, default=ROOT / ".device" / "minilm")
    parser.add_argument("--shipped", type=Path, default=ROOT / "assets" / "models" / "clause-ranker")
    parser.add_argument("--top", type=int, default=20)
    models = ["ce_bce", "ce_listwise", "ce_listwise_int8", "bi_tuned", "bi_base"]
    parser.add_argument("--models", nargs="+", choices=models, default=models, help="which to compare (default: all)")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "data" / "model-training" / "ranker-compare.json")
    args = parser.parse_args()
    import torch
    from transformers import AutoTokenizer, BertModel

    torch.set_num_threads(2)
    with lzma.open(args.data) as f:
        data = json.load(f)
    valid = [c for c in data["contracts"] if c["split"] == "validation"]
    tok = AutoTokenizer.from_pretrained(str(args.base))
    factories: dict[str, Any] = {
        "ce_bce": lambda: ce_torch(ranker_export.cross_encoder(args.trained / "ce-bce", args.base), tok, 320),
        "ce_listwise": lambda: ce_torch(ranker_export.cross_encoder(args.trained / "ce-listwise", args.base), tok, 320),
        "ce_listwise_int8": lambda: ce_onnx(args.shipped),
        "bi_tuned": lambda: bi_torch(ranker_export.bi_encoder(args.trained / "bi", args.base), tok),
        "bi_base": lambda: bi_torch(BertModel.from_pretrained(str(args.base), add_pooling_layer=False).eval(), tok),
    }
    scorers = {name: factories[name]() for name in args.models}
    scores: dict[str, list[list[float]]] = {name: [] for name in scorers}
    questions = []
    seconds: dict[str, float] = {}
    for c in valid:
        for e in c["eval_examples"]:
            if not e["positive"] or not e["candidates"]:
                continue
            cands = e["candidates"][: args.top]
            texts = [passage_text(c["passages"][i]) for i in cands]
            questions.append((cands, set(e["positive"]), e["candidates"]))
            for name, fn in scorers.items():
                started = time.perf_counter()
                scores[name].append(fn(e["query"], texts))
                seconds[name] = seconds.get(name, 0.0) + time.perf_counter() - started
    combos: dict[str, list[list[float]]] = dict(scores)
    for name in ("ce_listwise", "ce_listwise_int8"):
        if name in scores and "bi_tuned" in scores:  # both together: the sum of their z-scores
            combos[f"{name}+bi_tuned"] = [
                [a + b for a, b in zip(zscores(x), zscores(y), strict=True)]
                for x, y in zip(scores[name], scores["bi_tuned"], strict=True)
            ]
    for name in ("ce_listwise", "ce_listwise_int8"):
        if name in scores:
            combos[f"{name}+bm25_rrf"] = [_rrf_with_bm25(s) for s in scores[name]]
    table: dict[str, dict[str, float]] = {}
    for top_n in (10, args.top):
        row = {"bm25@3": 0.0, "bm25@10": 0.0}
        for _cands, positives, full in questions:
            row["bm25@3"] += recall(full, positives, 3)
            row["bm25@10"] += recall(full, positives, 10)
        table[f"bm25 (top {top_n})"] = {k: round(v / len(questions), 4) for k, v in row.items()}
        for name, per_question in combos.items():
            r3 = r10 = 0.0
            for (cands, positives, full), s in zip(questions, per_question, strict=True):
                head = sorted(range(min(top_n, len(cands))), key=lambda j: -s[j])
                order = [cands[j] for j in head] + full[len(head) :]
                r3 += recall(order, positives, 3)
                r10 += recall(order, positives, 10)
            table[f"{name} (top {top_n})"] = {
                "recall@3": round(r3 / len(questions), 4),
                "recall@10": round(r10 / len(questions), 4),
            }
    result = {
        "command": "python -m lab.training.ranker_compare " + " ".join(sys.argv[1:]),
        "questions": len(questions),
        "contracts": len(valid),
        "candidates": f"BM25's top {args.top} passages of lab/training/ranker_data.py",
        "table": table,
        "seconds_per_question": {k: round(v / len(questions), 4) for k, v in seconds.items()},
    }
    write_json(args.out, result)
    print(json.dumps(result, indent=1))


def _rrf_with_bm25(model_scores: list[float], k: int = 5) -> list[float]:
    """BM25's order (the candidates' own) and the model's, fused by reciprocal rank."""
    by_model = sorted(range(len(model_scores)), key=lambda j: -model_scores[j])
    model_rank = {j: r for r, j in enumerate(by_model, start=1)}
    return [1 / (k + j + 1) + 1 / (k + model_rank[j]) for j in range(len(model_scores))]


if __name__ == "__main__":
    main()

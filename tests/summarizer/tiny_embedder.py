"""A tiny random sentence-transformers model (BERT, mean pooling, normalized), built in a test.

Only all-MiniLM-L6-v2 installs offline; this one borrows its tokenizer and has random weights
of another width, so vectors of the two models can never be confused.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from summarizer.library.vectors.embedding_model import resolve_model_dir

DIM = 32
MAX_SEQ = 128


def build_tiny_embedder(folder: Path, seed: int = 0) -> Path:
    import torch
    from transformers import BertConfig, BertModel

    minilm = resolve_model_dir("sentence-transformers/all-MiniLM-L6-v2")
    folder.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(seed)
    config = BertConfig(
        vocab_size=30522,
        hidden_size=DIM,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=64,
        max_position_embeddings=MAX_SEQ + 2,
    )
    BertModel(config).save_pretrained(str(folder), safe_serialization=True)
    for name in ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt", "modules.json"):
        shutil.copy(minilm / name, folder / name)
    (folder / "sentence_bert_config.json").write_text(json.dumps({"max_seq_length": MAX_SEQ, "do_lower_case": False}))
    (folder / "1_Pooling").mkdir(exist_ok=True)
    pooling = json.loads((minilm / "1_Pooling" / "config.json").read_text())
    (folder / "1_Pooling" / "config.json").write_text(json.dumps(pooling | {"word_embedding_dimension": DIM}))
    return folder

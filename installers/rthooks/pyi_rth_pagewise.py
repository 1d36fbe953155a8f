"""Runs first in every process of the frozen app (the window, the ingest and model workers).

The bundle carries the embedding model, so the Hugging Face libraries must never try the
network on their own (summarizer.library.embedding_model does the same before loading a model).
"""

import os

for _name, _value in (
    ("HF_HUB_OFFLINE", "1"),
    ("TRANSFORMERS_OFFLINE", "1"),
    ("HF_HUB_DISABLE_TELEMETRY", "1"),
    ("TOKENIZERS_PARALLELISM", "false"),
):
    os.environ.setdefault(_name, _value)

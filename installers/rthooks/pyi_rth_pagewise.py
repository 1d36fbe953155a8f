"""Runs first in every process of the frozen app (the window, the ingest and model workers).

The bundle carries the embedding model, loaded from its folder with ``local_files_only`` (see
summarizer.library.vectors.embedding_model), so nothing here turns the hub off: ``HF_HUB_OFFLINE`` would
make the model download in the window fail. Only the hub's telemetry and the tokenizers' fork
warning are turned off.
"""

import os

for _name, _value in (
    ("HF_HUB_DISABLE_TELEMETRY", "1"),
    ("TOKENIZERS_PARALLELISM", "false"),
):
    os.environ.setdefault(_name, _value)

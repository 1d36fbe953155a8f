"""Pagewise inference core, in groups by job (docs/architecture.md has the picture):

* ``planning``: the GGUF read, GPU memory priced, the placement chosen (a ``Plan``);
* ``engines``: the engine interface and its local (llama.cpp worker), remote and fake engines;
* ``models``: the recommended models and their download.

The top-level modules are the lowest floor of the project, shared by ``summarizer`` and
``app``: ``progress``, ``cancel``, ``errors``, ``telemetry`` (NVML) and ``llama_log`` (llama.cpp's
log). Nothing here imports Qt or the floors above.
"""

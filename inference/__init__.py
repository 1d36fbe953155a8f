"""Pagewise inference core: GGUF inspection, VRAM planning, engines, telemetry.

Also the lowest floor of the project: ``inference.progress``, ``inference.cancel`` and
``inference.errors`` are shared by ``summarizer`` and ``app``. Nothing here imports Qt.
"""

"""Speed and resource measurements that the docs cite, kept runnable.

On the GPU machine (the device tool): ``gpu_planner`` (planner accuracy), ``gpu_offload``
(offloaded prefill against raw llama.cpp, cancel), ``gpu_compress`` and ``gpu_summarize``
(hierarchical compression, 1M tokens), ``gpu_review`` (the checklist review),
``gpu_offload_runs.sh`` and ``gpu_cuda_variant.sh`` (the device calls that ran them).
On this machine: ``ocr`` (OCR quality and speed on scans of the fixtures), ``filing_ingest``,
``cpu_build`` (llama.cpp builds compared), ``prompt_lookup``, ``grammar_check``, ``http_cancel``
(why the remote engine keeps its own HTTP client), ``long_library`` (the 1M-token library the
compression benchmarks read).
"""

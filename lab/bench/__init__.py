"""Speed and resource measurements that the docs cite, kept runnable.

On the GPU machine (the device tool): ``gpu_planner`` (planner accuracy), ``gpu_offload``
(offloaded prefill against raw llama.cpp, cancel), ``gpu_compress`` and ``gpu_summarize``
(hierarchical compression, 1M tokens), ``gpu_review`` (the checklist review),
``gpu_offload_runs.sh`` and ``gpu_cuda_variant.sh`` (the device calls that ran them).
On both: ``cold_start`` (where a cold ``pagewise ask`` spends its time) and
``first_answer_after_open`` (the window's first answer after it opens; needs PySide6).
On this machine: ``ocr`` (OCR quality and speed on scans of the fixtures), ``filing_ingest``,
``cpu_build`` (llama.cpp builds compared), ``prompt_lookup``, ``grammar_check``, ``http_cancel``
(why the remote engine keeps its own HTTP client), ``long_library`` (the 1M-token library the
compression benchmarks read), ``compare_view`` (the Compare tab on a long edited pair; needs
PySide6).
"""

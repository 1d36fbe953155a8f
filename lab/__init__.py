"""Pagewise's lab: how the product's figures and shipped models were made, kept apart from the product.

Run its modules from the repository root as ``python -m lab.<group>.<module> --help``. The lab
imports the product (``summarizer``, ``inference``, ``app``) and the maintained tools of
``scripts/``; the product never imports the lab (tests/test_architecture.py checks both). Groups:

- ``lab.eval``: quality on labelled data: clause recall on the fixture contracts and CUAD's
  validation contracts, FinanceBench page recall, the review's evidence, their shared rules
  (``quote_match``, ``cuad_corpus``) and the label files.
- ``lab.training``: the shipped clause ranker and clause embedder, from training data to export,
  and the "probably absent" calibration (``summarizer/review/checklists/absent-model.json``).
- ``lab.bench``: speed and resource measurements that docs/ cites: the GPU benchmarks and their
  device runs, OCR, filing ingest, llama.cpp builds, prompt lookup, grammar cost.

Shared by all three: ``lab.results.write_json``, the layout of a result file (``--out``).
"""

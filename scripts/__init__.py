"""The tools a maintainer runs: the demo, screenshots, benchmarks the README cites, checks.

Run from the repository root as ``python -m scripts.<name> --help`` (``scripts/README.md`` lists
them). Experiments, evaluation and model training live in ``lab/``.
"""

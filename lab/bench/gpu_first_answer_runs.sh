#!/bin/bash
# Issue 47's GPU runs in one device call (about 5 minutes after the llama.cpp build): the cold-start
# breakdown of `pagewise ask` and the window's first answer 5 s after it opens, for the
# Llama-3.1-8B shape (random weights, Q4_K_M) at a 12 GiB budget. Results under $OUT.
#   bash lab/bench/gpu_first_answer_runs.sh
# Needs carry [".device"]: build_llama.sh with its wheels, .device/minilm (all-MiniLM-L6-v2's
# tokenizer files: passages are cut in its tokens; no vectors are made), and for the window
# PySide6's wheels (PySide6_Essentials, shiboken6, and QtPdf's) in .device/whl. Without PySide6 the
# window run is skipped and said so: cold_start's "app" phases bound it (see docs/benchmarks.md).
set -uo pipefail
case "${1:-}" in -h|--help) sed -n '2,9p' "$0" | cut -c3-; exit 0 ;; esac
bash .device/build_llama.sh || exit 1
export PYTHONPATH=/tmp/site:$PWD:${PYTHONPATH:-}
nvidia-smi --query-gpu=name,memory.used,memory.total --format=csv,noheader
MODEL=$(python3 -c "from lab.bench.gpu_offload import model_file; print(model_file('llama-3.1-8b'))") || exit 1
python3 -m lab.bench.cold_start --model "$MODEL" --budget-gib 12 --threads 8 --no-embed \
  --tokenizer-dir .device/minilm --out "$OUT/cold-start-gpu-llama-3.1-8b.json"
if python3 -c "import PySide6.QtWidgets" 2>/dev/null; then
  QT_QPA_PLATFORM=offscreen python3 -m lab.bench.first_answer_after_open --model "$MODEL" --budget 12GiB \
    --wait 5 --threads 8 --no-embed --tokenizer-dir .device/minilm --tag gpu --out "$OUT"
else
  echo "PySide6 cannot be imported here: the window run (first_answer_after_open) was skipped"
fi
ls -la "$OUT"
